"""Cumulative sums and products along an axis. Gradients: grad_registry/cumulative_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.errors import InvalidArgumentError
from ..arg_errors import scalar_int_arg
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op


def _cumulative(np_func, identity: int):
    def kernel(x, *, axis, exclusive, reverse):
        if x.ndim == 0:
            raise ValueError("cumulative ops need a tensor of rank >= 1")
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"axis {axis} is out of range for a tensor of rank {x.ndim}")
        if reverse:
            x = np.flip(x, axis)
        if x.dtype.kind in "iu":
            out = np_func(x, axis=axis, dtype=x.dtype)
        else:
            out = np_func(x, axis=axis)
        if exclusive:
            out = np.roll(out, 1, axis=axis)
            index = [slice(None)] * x.ndim
            index[axis] = slice(0, 1)
            out[tuple(index)] = identity
        return np.flip(out, axis) if reverse else out
    return kernel


def _cumulative_infer(inputs, attrs):
    x = inputs[0]
    rank = x.shape.rank
    axis = attrs["axis"]
    if rank and not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    # A scalar is TF's runtime error (its shape function does not look): the kernel's.
    return [(x.dtype, x.shape)]


CUMSUM = declare_op("Cumsum", _cumulative(np.cumsum, 0), _cumulative_infer,
                    input_kinds="fciu", grad_inputs=())
CUMPROD = declare_op("Cumprod", _cumulative(np.cumprod, 1), _cumulative_infer,
                     input_kinds="fciu", grad_inputs=(0,))


def static_axis(axis: Any, what: str = "axis") -> int:
    """An axis argument (int or statically known scalar tensor) as an int attr,
    with TF's exception classes for anything else (arg_errors.scalar_int_arg)."""
    return scalar_int_arg(axis, what)


def _apply(op_def, x, axis, exclusive, reverse, name):
    x = convert_to_tensor(x)
    axis = static_axis(axis)
    rank = x.shape.rank
    if rank is not None and rank > 0 and not -rank <= axis < rank:  # TF: a runtime error
        raise InvalidArgumentError(None, None, f"{op_def.type}: axis {axis} is out of range "
                                   f"for a tensor of rank {rank}")
    attrs = {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply_op(op_def, (x,), attrs, name)


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: Optional[str] = None):
    """Running sums along `axis`; `exclusive` leaves out the current element, `reverse`
    runs from the end."""
    return _apply(CUMSUM, x, axis, exclusive, reverse, name)


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
            name: Optional[str] = None):
    """Running products along `axis` (flags as in cumsum)."""
    return _apply(CUMPROD, x, axis, exclusive, reverse, name)


__all__ = ["cumsum", "cumprod"]
