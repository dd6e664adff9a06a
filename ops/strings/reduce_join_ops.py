"""dg.strings.reduce_join: strings joined along axes, TF's ReduceJoin (never differentiable).

The axes are reduced one after the other in the order given, each joining the strings
along that (original) axis with `separator`; axis=None joins everything in row-major
order. keepdims keeps the reduced axes with size 1. An axis out of range is TF's
OutOfRangeError eagerly (ValueError while building a graph); a repeated axis the
kernel's InvalidArgumentError."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.errors import InvalidArgumentError, OutOfRangeError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..tensor_util import constant_value

_state = context.state


def _join_axis(x: np.ndarray, axis: int, separator: bytes) -> np.ndarray:
    """x with `axis` joined into one string (kept with size 1)."""
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(int(np.prod(moved.shape[:-1])), moved.shape[-1])
    joined = np.empty(rows.shape[0], dtype=object)
    joined[:] = [separator.join(row) for row in rows]
    return np.expand_dims(joined.reshape(moved.shape[:-1]), axis)


def _reduce_join_kernel(x: np.ndarray, *, axes: Optional[tuple], keepdims: bool,
                        separator: str) -> np.ndarray:
    sep = separator.encode("utf-8")
    if axes is None:
        joined = np.asarray(sep.join(x.ravel()), dtype=object)
        return joined.reshape((1,) * x.ndim) if keepdims else joined
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(None, None, f"Duplicate reduction dimension in {list(axes)}")
    out = x
    for axis in axes:
        out = _join_axis(out, axis, sep)
    if not keepdims:
        out = out.reshape([d for i, d in enumerate(out.shape) if i not in axes])
    return out


def _reduce_join_infer(inputs, attrs):
    shape, axes = inputs[0].shape, attrs["axes"]
    if axes is None and not attrs["keepdims"]:
        return [(dtypes.string, TensorShape(()))]
    if shape.rank is None:
        return [(dtypes.string, TensorShape(None))]
    reduced = range(shape.rank) if axes is None else set(axes)
    dims = [1 if i in reduced else d for i, d in enumerate(shape.dims)]
    if not attrs["keepdims"]:
        dims = [d for i, d in enumerate(shape.dims) if i not in reduced]
    return [(dtypes.string, TensorShape(tuple(dims)))]


REDUCE_JOIN = declare_op("ReduceJoin", _reduce_join_kernel, _reduce_join_infer,
                         input_kinds="O", grad_inputs=())


def _axes(axis: Any, rank: Optional[int]) -> Optional[tuple]:
    """`axis` (None, an int, a list or an integer tensor of known value) as non-negative
    ints in the order given; TF's classes for anything else."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        if not axis.dtype.is_integer:
            raise TypeError(f"reduce_join: axis must be int32, got {axis.dtype.name}")
        value = constant_value(axis)
        if value is None:
            raise ValueError("reduce_join: axis must be statically known")
        axis = value
    array = np.asarray(axis)
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(f"Cannot convert {axis!r} to an int32 reduction axis")
    axes = [int(a) for a in array.reshape(-1)]
    if rank is None:
        if any(a < 0 for a in axes):
            raise ValueError("reduce_join: a negative axis needs an input of known rank")
        return tuple(axes)
    for a in axes:
        if not -rank <= a < rank:
            message = f"Invalid reduction dimension {a} for input with {rank} dimension(s)"
            if _state.graph is None:
                raise OutOfRangeError(None, None, message)
            raise ValueError(message)
    return tuple(a % rank for a in axes)


def reduce_join(inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "",
                name: Optional[str] = None):
    """The strings of `inputs` joined with `separator` along `axis` (None: all, in
    row-major order; several axes one after the other, in the order given)."""
    x = convert_to_tensor(inputs, dtype_hint=dtypes.string)
    if x.dtype is not dtypes.string:
        raise InvalidArgumentError(None, None, "cannot compute ReduceJoin as input #0"
                                   "(zero-based) was expected to be a string tensor but is a "
                                   f"{x.dtype.name} tensor")
    attrs = {"axes": _axes(axis, x.shape.rank), "keepdims": bool(keepdims),
             "separator": separator}
    return apply_op(REDUCE_JOIN, (x,), attrs, name)
