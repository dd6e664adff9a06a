"""dg.nn.compute_average_loss: a per-replica loss scaled by the global batch size."""
from __future__ import annotations

from typing import Any, Optional

from ..framework.errors import InvalidArgumentError
from ..ops.constant_op import convert_to_tensor
from ..ops.math.math_ops import cast, multiply
from ..ops.math.special_math_ops import divide_no_nan
from ..ops.array.array_ops import shape
from ..eager.eager_tensor import EagerTensor
from ..ops.math.reduction_ops import reduce_sum
from .strategy import get_strategy, has_strategy, in_cross_replica_context


def compute_average_loss(per_example_loss: Any, sample_weight: Optional[Any] = None,
                         global_batch_size: Optional[Any] = None) -> Any:
    """sum(per_example_loss * sample_weight) / global_batch_size (0 when that is 0).

    global_batch_size defaults to this replica's batch times num_replicas_in_sync,
    so summing the replicas' results gives the mean over the global batch (TF)."""
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    rank = per_example_loss.shape.rank
    if rank is not None and rank < 1:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with "
                         f"at least rank 1. Received per_example_loss={per_example_loss} with "
                         f"rank {rank}")
    if sample_weight is not None:
        per_example_loss = cast(multiply(per_example_loss,
                                         cast(convert_to_tensor(sample_weight), input_dtype)),
                                input_dtype)
    if global_batch_size is None:
        if has_strategy() and in_cross_replica_context():
            raise RuntimeError("You are calling `compute_average_loss` in cross replica "
                               "context, while it was expected to be called in replica "
                               "context.")
        batch = per_example_loss.shape[0]
        if batch is None:  # unknown while building a graph: read it at run time
            batch = shape(per_example_loss)[0]
        global_batch_size = batch * get_strategy().num_replicas_in_sync
    size: Any = convert_to_tensor(global_batch_size)
    if size.shape.rank not in (None, 0) or not size.dtype.is_integer:
        raise InvalidArgumentError(None, None, "compute_average_loss: global_batch_size must "
                                   f"be an integer scalar, got {size}")
    if isinstance(size, EagerTensor) and int(size.numpy()) < 0:
        raise InvalidArgumentError(None, None, "global_batch_size must be non-negative.")
    return divide_no_nan(reduce_sum(per_example_loss), cast(size, input_dtype))
