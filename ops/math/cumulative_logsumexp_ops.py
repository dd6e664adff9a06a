"""CumulativeLogsumexp (`dg.math.cumulative_logsumexp`): log(cumsum(exp(x))) along an axis,
computed stably (NumPy's logaddexp.accumulate), with cumsum's exclusive / reverse flags
(an exclusive first entry is -inf, log of an empty sum). Gradient:
grad_registry/cumulative_logsumexp_grad.py (TF's formula, itself differentiable)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from .cumulative_ops import static_axis


def _kernel(x, *, axis, exclusive, reverse):
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"CumulativeLogsumexp: axis {axis} is out of range for a tensor of "
                         f"rank {x.ndim}")
    values = np.flip(x, axis) if reverse else x
    with np.errstate(all="ignore"):
        out = np.logaddexp.accumulate(values, axis=axis)
    if exclusive:
        out = np.roll(out, 1, axis=axis)
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, 1)
        out[tuple(index)] = -np.inf
    out = np.flip(out, axis) if reverse else out
    return np.ascontiguousarray(out).astype(x.dtype)


def _infer(inputs, attrs):
    x = inputs[0]
    rank, axis = x.shape.rank, attrs["axis"]
    if rank == 0:
        raise ValueError("CumulativeLogsumexp needs a tensor of rank >= 1")
    if rank is not None and not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    return [(x.dtype, x.shape)]


CUMULATIVE_LOGSUMEXP = declare_op("CumulativeLogsumexp", _kernel, _infer, input_kinds="f",
                                  grad_outputs=(0,))


def cumulative_logsumexp(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
                         name: Optional[str] = None):
    """log(cumsum(exp(x))) along `axis`, without overflow."""
    x = convert_to_tensor(x)
    attrs = {"axis": static_axis(axis), "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply_op(CUMULATIVE_LOGSUMEXP, (x,), attrs, name)


__all__ = ["cumulative_logsumexp"]
