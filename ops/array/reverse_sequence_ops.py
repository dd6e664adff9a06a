"""ReverseSequence (`dg.reverse_sequence`): reverses the first seq_lengths[i] elements along
`seq_axis` of each slice i along `batch_axis`, as TF. Its gradient
(grad_registry/reverse_sequence_grad.py) is the same reversal of the gradient."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op


def _check_axes(rank: int, seq_dim: int, batch_dim: int) -> None:
    """The kernel's checks, in TF's order and with its messages (InvalidArgumentError)."""
    if seq_dim < 0:
        raise InvalidArgumentError(None, None, f"Invalid seq_dim {seq_dim}")
    if batch_dim < 0:
        raise InvalidArgumentError(None, None, f"Invalid batch_dim {batch_dim}")
    if seq_dim == batch_dim:
        raise InvalidArgumentError(None, None, f"batch_dim == seq_dim == {seq_dim}")
    if seq_dim >= rank:
        raise InvalidArgumentError(None, None,
                                   f"seq_dim must be < input rank ( {seq_dim} vs. {rank})")
    if batch_dim >= rank:
        raise InvalidArgumentError(None, None,
                                   f"batch_dim must be < input rank ( {batch_dim} vs. {rank})")


def _check_axes_static(rank: int, seq_dim: int, batch_dim: int) -> None:
    """The graph-time shape function's checks (ValueError): TF leaves a negative seq_dim
    and seq_dim == batch_dim to the kernel."""
    if batch_dim >= rank:
        raise ValueError(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if seq_dim >= rank:
        raise ValueError(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    if batch_dim < 0:
        raise ValueError(f"batch_dim must be >=0, got {batch_dim}")


def _reverse_sequence(x, seq_lengths, *, seq_dim, batch_dim):
    _check_axes(x.ndim, seq_dim, batch_dim)
    lengths = np.asarray(seq_lengths).astype(np.int64)
    if lengths.ndim != 1:
        raise ValueError(f"seq_lengths must be 1-dim, not {lengths.ndim}-dim")
    if lengths.shape[0] != x.shape[batch_dim]:
        raise ValueError(f"Length of seq_lengths != input.dims({batch_dim}), "
                         f"({lengths.shape[0] if lengths.ndim == 1 else lengths.shape} vs. "
                         f"{x.shape[batch_dim]})")
    if np.any(lengths < 0) or np.any(lengths > x.shape[seq_dim]):
        bad = int(np.argmax((lengths < 0) | (lengths > x.shape[seq_dim])))
        raise ValueError(f"seq_lens({bad}) > input.dims({seq_dim}) (or negative): "
                         f"{lengths[bad]} vs. {x.shape[seq_dim]}")
    out = x.copy()
    for i, n in enumerate(lengths):
        if n <= 1:
            continue
        index: list = [slice(None)] * x.ndim
        index[batch_dim] = i
        index[seq_dim] = slice(0, int(n))
        out[tuple(index)] = np.flip(x[tuple(index)], axis=seq_dim - (batch_dim < seq_dim))
    return out


def _infer(inputs, attrs):
    x, lengths = inputs
    if not lengths.dtype.is_integer:
        raise TypeError(f"seq_lengths must be int32 or int64, got {lengths.dtype.name}")
    rank = x.shape.rank
    if rank is not None:
        _check_axes_static(rank, attrs["seq_dim"], attrs["batch_dim"])
        if lengths.shape.rank is not None and lengths.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {lengths.shape.rank} for "
                             f"seq_lengths")
        batch = x.shape.dims[attrs["batch_dim"]]
        if (lengths.shape.rank == 1 and batch is not None and lengths.shape.dims[0] is not None
                and lengths.shape.dims[0] != batch):
            raise ValueError(f"Dimensions must be equal, but are {batch} and "
                             f"{lengths.shape.dims[0]}")
    return [(x.dtype, x.shape)]


REVERSE_SEQUENCE = declare_op("ReverseSequence", _reverse_sequence, _infer, grad_inputs=(1,))


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: Optional[int] = None,  # noqa: A002
                     batch_axis: Optional[int] = None, name: Optional[str] = None):
    """Reverses the leading seq_lengths[i] entries along seq_axis of batch entry i."""
    x = convert_to_tensor(input)
    lengths = seq_lengths if isinstance(seq_lengths, Tensor) else \
        constant(np.asarray(seq_lengths).astype(np.int64 if np.asarray(seq_lengths).dtype ==
                                                np.int64 else np.int32))
    batch = 0 if batch_axis is None else int(batch_axis)
    if seq_axis is None:
        raise TypeError("reverse_sequence() missing required argument 'seq_axis'")
    # TF's op takes the axes as given: a negative one is "Invalid seq_dim" (not wrapped).
    return apply_op(REVERSE_SEQUENCE, (x, lengths), {"seq_dim": int(seq_axis),
                                                    "batch_dim": batch}, name)


def reverse_sequence_v1(input: Any, seq_lengths: Any, seq_axis: Optional[int] = None,  # noqa: A002
                        batch_axis: Optional[int] = None, name: Optional[str] = None,
                        seq_dim: Optional[int] = None, batch_dim: Optional[int] = None):
    """TF 1's form: also takes the deprecated names seq_dim and batch_dim."""
    return reverse_sequence(input, seq_lengths, seq_axis if seq_axis is not None else seq_dim,
                            batch_axis if batch_axis is not None else batch_dim, name)


__all__ = ["reverse_sequence"]
