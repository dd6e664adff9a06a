"""tf.gather with `batch_dims`: the first b axes of params and indices are batch axes,
and each batch's indices pick along `axis` of that batch's params.

Composed of a transpose (the gathered axis moved just after the batch axes),
gather_nd over the batch axes, and a transpose back, so it differentiates as those
ops do. Needs params and indices of known rank, indices of known shape.
"""
from __future__ import annotations

from typing import Any

from ..arg_errors import mode_error
from .array_ops import expand_dims, transpose
from .scatter_ops import gather_nd


def batched_gather(params: Any, indices: Any, axis: int, batch_dims: int, name: Any = None):
    """params[b..., p..., indices[b..., i...], r...] -> result[b..., p..., i..., r...]."""
    rank, index_rank = params.shape.rank, indices.shape.rank
    if rank is None or index_rank is None:
        raise ValueError(f"gather with batch_dims={batch_dims} needs params and indices of "
                         f"known rank, got {params.shape} and {indices.shape}")
    for k in range(batch_dims):
        p, i = params.shape[k], indices.shape[k]
        if p is not None and i is not None and p != i:
            raise mode_error(f"params.shape[{k}]: {p} should be equal to indices.shape[{k}]: "
                             f"{i}", ValueError)
    moved = list(range(batch_dims)) + [axis] + list(range(batch_dims, axis)) + \
        list(range(axis + 1, rank))
    picked = gather_nd(transpose(params, moved), expand_dims(indices, -1),
                       batch_dims=batch_dims)
    gathered = index_rank - batch_dims          # the indices' own axes
    between = axis - batch_dims                 # params axes between batch and gathered
    rest = rank - axis - 1
    if between == 0:
        return picked
    back = list(range(batch_dims)) + \
        list(range(batch_dims + gathered, batch_dims + gathered + between)) + \
        list(range(batch_dims, batch_dims + gathered)) + \
        list(range(batch_dims + gathered + between, batch_dims + gathered + between + rest))
    return transpose(picked, back, name=name or "transpose")
