"""Static dtype/shape rules shared by op declarations (unknown dims allowed)."""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from ..framework import dtypes
from ..framework.tensor_shape import TensorShape, broadcast_shapes, unknown_shape


def same_as_input(inputs, attrs):
    """One output with the dtype and shape of the first input."""
    x = inputs[0]
    return [(x.dtype, x.shape)]


def with_dtype(dtype: dtypes.DType) -> Callable:
    """One output of `dtype` shaped like the first input."""
    def infer(inputs, attrs):
        return [(dtype, inputs[0].shape)]
    return infer


def require_dtypes(op_type: str, allowed: Callable[[dtypes.DType], bool], what: str) -> Callable:
    """Wraps nothing: returns a check raising TypeError naming the op and dtype."""
    def check(x) -> None:
        if not allowed(x.dtype):
            raise TypeError(f"{op_type} does not support dtype {x.dtype.name}; expected {what}")
    return check


def elementwise_unary(predicate: Optional[Callable] = None, what: str = "") -> Callable:
    """Same dtype and shape as the input; optional dtype check."""
    def infer(inputs, attrs):
        x = inputs[0]
        if predicate is not None and not predicate(x.dtype):
            raise TypeError(f"dtype {x.dtype.name} is not allowed; expected {what}")
        return [(x.dtype, x.shape)]
    return infer


def check_same_dtype(inputs) -> dtypes.DType:
    x = inputs[0]
    if len(inputs) == 2 and inputs[1].dtype is x.dtype:
        return x.dtype
    for i, y in enumerate(inputs[1:], start=1):
        if y.dtype is not x.dtype:
            raise TypeError(f"Input {i} has type {y.dtype.name} that does not match "
                            f"type {x.dtype.name} of input 0")
    return x.dtype


def broadcast_binary(inputs, attrs):
    """Two inputs of one dtype broadcast to one output of that dtype."""
    dtype = check_same_dtype(inputs)
    return [(dtype, broadcast_shapes(inputs[0].shape, inputs[1].shape))]


def broadcast_compare(inputs, attrs):
    """Two inputs of one dtype broadcast to one boolean output."""
    check_same_dtype(inputs)
    return [(dtypes.bool_, broadcast_shapes(inputs[0].shape, inputs[1].shape))]


def normalize_axis(axis: int, rank: Optional[int]) -> int:
    """One `axis` as an index in [0, rank) (unchanged when the rank is unknown);
    ValueError naming both when it is out of range."""
    if rank is None:
        return axis
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank


def normalize_axes(axis: Any, rank: Optional[int]) -> Optional[tuple]:
    """Axis argument (None/int/list) as a sorted tuple of non-negative ints."""
    if axis is None:
        return None if rank is None else tuple(range(rank))
    if isinstance(axis, (int,)) or hasattr(axis, "__index__") and not hasattr(axis, "__len__"):
        axis = (int(axis),)
    axes = tuple(int(a) for a in axis)
    if rank is None:
        return axes if all(a >= 0 for a in axes) else None
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of bounds for a tensor of rank {rank}")
        out.append(a % rank)
    return tuple(sorted(set(out)))


def reduced_shape(shape: TensorShape, axis: Any, keepdims: bool) -> TensorShape:
    """The static shape of a reduction of `shape` over `axis`."""
    rank = shape.rank
    if axis is None and not keepdims:
        return TensorShape(())   # every axis reduced: a scalar, whatever the rank (as TF)
    axes = normalize_axes(axis, rank)
    dims = shape.dims
    if dims is None or axes is None:
        return unknown_shape()
    if keepdims:
        return TensorShape(tuple(1 if i in axes else d for i, d in enumerate(dims)))
    return TensorShape(tuple(d for i, d in enumerate(dims) if i not in axes))


def reduction(output_dtype: Optional[dtypes.DType] = None) -> Callable:
    """Reduction over attrs axis/keepdims; output dtype is the input's by default."""
    def infer(inputs, attrs):
        x = inputs[0]
        return [(output_dtype or x.dtype, reduced_shape(x.shape, attrs.get("axis"),
                                                        attrs.get("keepdims", False)))]
    return infer


def shapes_of(inputs: Sequence[Any]) -> List[TensorShape]:
    return [t.shape for t in inputs]
