"""Slicing: slice, strided_slice and `Tensor.__getitem__`. Gradients: slicing_grad.py.

A strided slice is described, as in TensorFlow, by three 1-D int tensors
(begin, end, strides) and five bit masks: bit i of `begin_mask`/`end_mask`
ignores begin[i]/end[i] (full range), `ellipsis_mask` marks spec i as `...`,
`new_axis_mask` as `None` (a new axis of size 1), `shrink_axis_mask` as a
single index whose axis is dropped. begin/end/strides are op inputs (not
attrs) so that tensors may index tensors; shape inference uses whatever part
of their value is known statically.
"""
from __future__ import annotations

import functools

import builtins
from typing import Any, List, Optional, Sequence

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor, register_operator
from ...framework.tensor_shape import TensorShape, unknown_shape
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from .int_vectors import int_vector, only_ints
from .join_ops import stack
from .scatter_ops import boolean_mask
from ..math.math_ops import cast
from ..tensor_util import constant_value, shape_from_tensor

_state = context.state


class _TranslatedIndices(context.OwnedThreadState):
    """This thread's `__getitem__` indices of ints, None and `...` translated once,
    {index: (begin, end, strides, masks)} (the masks dict is never written): `x[t]`
    in a loop indexes the same way every step."""

    def __init__(self) -> None:
        self.by_index: dict = {}


_translated = context.owned_state(_TranslatedIndices)
MAX_TRANSLATED_INDICES = 4096

MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


# -- spec expansion (shared by kernels and shape rules) ---------------------
def expand_specs(n: int, attrs: dict, rank: int) -> List[tuple]:
    """The n slice specs against an input of `rank` as (kind, spec index, input axis)
    with kind in slice/shrink/new/full ('full' fills the ellipsis and the tail).
    Memoised per (n, masks, rank): a loop body slices the same way every iteration."""
    return _expanded(n, attrs["ellipsis_mask"], attrs["new_axis_mask"],
                     attrs["shrink_axis_mask"], rank)


@functools.lru_cache(maxsize=1024)
def _expanded(n: int, ellipsis_mask: int, new_axis: int, shrink: int,
              rank: int) -> List[tuple]:
    ellipsis = ellipsis_mask & ((1 << n) - 1)
    if bin(ellipsis).count("1") > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    consumed = sum(1 for i in range(n) if not (ellipsis | new_axis) & (1 << i))
    if consumed > rank:
        raise ValueError(f"Index out of range using input dim {rank}; input has only "
                         f"{rank} dims")
    specs: List[tuple] = []
    axis = 0
    for i in range(n):
        bit = 1 << i
        if ellipsis & bit:
            for _ in range(rank - consumed):
                specs.append(("full", None, axis))
                axis += 1
        elif new_axis & bit:
            specs.append(("new", i, None))
        elif shrink & bit:
            specs.append(("shrink", i, axis))
            axis += 1
        else:
            specs.append(("slice", i, axis))
            axis += 1
    while axis < rank:
        specs.append(("full", None, axis))
        axis += 1
    return tuple(specs)  # type: ignore[return-value]  # shared: read-only


def _check_index(index: int, dim: int, axis: int) -> None:
    if not -dim <= index < dim:
        raise ValueError(f"slice index {index} of dimension {axis} out of bounds.")


def numpy_index(shape: Sequence[int], begin, end, strides, attrs: dict) -> tuple:
    """The NumPy basic index equivalent to a strided slice of an array of `shape`."""
    index: list = []
    for kind, i, axis in expand_specs(len(begin), attrs, len(shape)):
        if kind == "full":
            index.append(builtins.slice(None))
        elif kind == "new":
            index.append(None)
        elif kind == "shrink":
            _check_index(int(begin[i]), shape[axis], axis)
            index.append(int(begin[i]))
        else:
            step = int(strides[i])
            if step == 0:
                raise ValueError(f"strides[{i}] must be non-zero")
            bit = 1 << i
            index.append(builtins.slice(None if attrs["begin_mask"] & bit else int(begin[i]),
                                        None if attrs["end_mask"] & bit else int(end[i]), step))
    return tuple(index)


def _strided_slice_kernel(x, begin, end, strides, **attrs):
    return np.asarray(x[numpy_index(x.shape, begin, end, strides, attrs)])


def partial_value(tensor: Any, length: Optional[int]) -> Optional[list]:
    """The statically known entries of a 1-D int tensor (None where unknown)."""
    value = constant_value(tensor)
    if value is not None:
        return [int(v) for v in np.reshape(value, -1)]
    op = getattr(tensor, "op", None)
    if op is not None and op.type == "Pack":
        parts = [constant_value(t) for t in op.inputs]
        return [None if p is None else int(p) for p in parts]
    return None if length is None else [None] * length


def _slice_length(dim, start, stop, step) -> Optional[int]:
    if step is None or dim is None:
        return None
    if step == 0:
        raise ValueError("strides must be non-zero")
    return len(range(*builtins.slice(start, stop, step).indices(dim)))


def _strided_slice_infer(inputs, attrs):
    x, begin, end, strides = inputs
    for t in (begin, end, strides):
        if not t.dtype.is_integer:
            raise TypeError(f"begin, end and strides must be int32 or int64, got {t.dtype.name}")
    n = begin.shape[0] if begin.shape.rank == 1 else None
    if n is None or x.shape.rank is None:
        return [(x.dtype, unknown_shape())]
    starts, stops, steps = (partial_value(t, n) for t in (begin, end, strides))
    dims = []
    for kind, i, axis in expand_specs(n, attrs, x.shape.rank):
        if kind == "new":
            dims.append(1)
            continue
        dim = x.shape[axis]
        if kind == "full":
            dims.append(dim)
        elif kind == "shrink":
            if dim is not None and starts[i] is not None:
                _check_index(starts[i], dim, axis)
        else:
            bit = 1 << i
            start = None if attrs["begin_mask"] & bit else starts[i]
            stop = None if attrs["end_mask"] & bit else stops[i]
            unknown = (start is None and not attrs["begin_mask"] & bit) or \
                (stop is None and not attrs["end_mask"] & bit)
            dims.append(None if unknown else _slice_length(dim, start, stop, steps[i]))
    return [(x.dtype, TensorShape(tuple(dims)))]


STRIDED_SLICE = declare_op("StridedSlice", _strided_slice_kernel, _strided_slice_infer,
                           grad_inputs=(1, 2, 3))


def _strided_slice_grad_kernel(shape, begin, end, strides, dy, **attrs):
    shape = tuple(int(d) for d in shape)
    out = np.zeros(shape, dtype=dy.dtype)
    out[numpy_index(shape, begin, end, strides, attrs)] = dy
    return out


def _strided_slice_grad_infer(inputs, attrs):
    return [(inputs[4].dtype, shape_from_tensor(inputs[0]))]


# The adjoint of StridedSlice: dy scattered into zeros of the input's shape.
STRIDED_SLICE_GRAD = declare_op("StridedSliceGrad", _strided_slice_grad_kernel,
                                _strided_slice_grad_infer, grad_inputs=(1, 2, 3))


def _index_vector(values: Sequence[Any], dtype: dtypes.DType):
    """A list of ints and scalar int tensors as one 1-D tensor."""
    if values and only_ints(values):   # Python ints only (x[t] with an int t)
        return int_vector(values, dtype)
    if not any(isinstance(v, Tensor) for v in values):
        ints = [int(v) for v in values if isinstance(v, (int, np.integer))]
        if any(not -2**63 <= v < 2**63 for v in ints):
            raise ValueError("Can't convert Python sequence with out-of-range integer to "
                             "Tensor.")
        if dtype == dtypes.int32 and any(not -2**31 <= v < 2**31 for v in ints):
            dtype = dtypes.int64   # TF converts such a list to an int64 tensor
        array = np.array(values, dtype=dtype.as_numpy_dtype).reshape(-1)
        if _state.graph is None:   # a fresh int array: the tensor directly (x[t] in a loop)
            return EagerTensor(array)
        return constant(array)
    return stack([(v if v.dtype == dtype else cast(v, dtype)) if isinstance(v, Tensor)
                  else constant(v, dtype) for v in values])


def _index_dtype(values: Sequence[Any]) -> dtypes.DType:
    for v in values:
        if isinstance(v, Tensor) and v.dtype == dtypes.int64:
            return dtypes.int64
    return dtypes.int32


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None, name: Optional[str] = None):
    """input_[begin:end:strides] per dimension, with TensorFlow's masks."""
    input_ = convert_to_tensor(input_)
    parts = [b if isinstance(b, Tensor) else None for b in (begin, end, strides)]
    if strides is None:
        n = len(begin) if not isinstance(begin, Tensor) else begin.shape[0]
        strides = [1] * n
    dtype = _index_dtype([t for t in (begin, end, strides) if isinstance(t, Tensor)])
    begin, end, strides = (p if p is not None else _index_vector(list(v), dtype)
                           for p, v in zip(parts, (begin, end, strides), strict=True))
    attrs = dict(zip(MASKS, (int(begin_mask), int(end_mask), int(ellipsis_mask),
                             int(new_axis_mask), int(shrink_axis_mask)), strict=True))
    return apply_op(STRIDED_SLICE, (input_, begin, end, strides), attrs, name)


def strided_slice_grad(shape: Any, begin: Any, end: Any, strides: Any, dy: Any,
                       name: Optional[str] = None, **masks: int):
    """dy placed where StridedSlice(begin, end, strides, masks) took it from, zeros elsewhere."""
    attrs = {m: int(masks.get(m, 0)) for m in MASKS}
    return apply_op(STRIDED_SLICE_GRAD, (shape, begin, end, strides, dy), attrs, name)


# -- Slice --------------------------------------------------------------------
def _slice_bounds(dims: Sequence[Optional[int]], starts, sizes) -> list:
    """Static output dims of Slice, checking what is known (ValueError)."""
    out = []
    for i, dim in enumerate(dims):
        start, size = starts[i], sizes[i]
        if start is not None and start < 0:
            raise ValueError(f"Expected begin[{i}] >= 0, but got {start}")
        if size is not None and size < -1:
            raise ValueError(f"Expected size[{i}] >= -1, but got {size}")
        if size == -1:
            size = None if dim is None or start is None else dim - start
        if None not in (dim, start, size) and start + size > dim:
            raise ValueError(f"Expected size[{i}] in [0, {dim - start}], but got {size} "
                             f"(begin {start}, dimension {dim})")
        out.append(size)
    return out


def _slice_kernel(x, begin, size):
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size "
                         f"{x.ndim}, but got shapes {np.shape(begin)} and {np.shape(size)}")
    starts = [int(b) for b in begin]
    sizes = _slice_bounds(x.shape, starts, [int(s) for s in size])
    return x[tuple(builtins.slice(b, b + s) for b, s in zip(starts, sizes, strict=True))]


def _slice_infer(inputs, attrs):
    x, begin, size = inputs
    n = begin.shape[0] if begin.shape.rank == 1 else None
    rank = x.shape.rank if x.shape.rank is not None else n
    if rank is None:
        return [(x.dtype, unknown_shape())]
    m = size.shape[0] if size.shape.rank == 1 else None
    if (n is not None and n != rank) or (m is not None and m != rank):
        raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size {rank}, "
                         f"but got lengths {n} and {m}")
    dims = x.shape.dims if x.shape.rank is not None else (None,) * rank
    return [(x.dtype, TensorShape(tuple(_slice_bounds(dims, partial_value(begin, rank),
                                                      partial_value(size, rank)))))]


SLICE = declare_op("Slice", _slice_kernel, _slice_infer, grad_inputs=(1,))


def slice(input_: Any, begin: Any, size: Any, name: Optional[str] = None):  # noqa: A001
    """The block of `input_` starting at `begin` of extent `size` (-1: to the end)."""
    input_ = convert_to_tensor(input_)
    values = [v for v in (begin, size) if isinstance(v, Tensor)]
    dtype = _index_dtype(values)
    begin = begin if isinstance(begin, Tensor) else _index_vector(list(begin), dtype)
    size = size if isinstance(size, Tensor) else _index_vector(list(size), dtype)
    return apply_op(SLICE, (input_, begin, size), name=name)


# -- Tensor.__getitem__ -----------------------------------------------------------
def _is_int_index(value: Any) -> bool:
    if isinstance(value, Tensor):
        if not value.dtype.is_integer or value.shape.rank != 0:
            raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), dg.newaxis "
                            f"(`None`) and scalar int32/int64 tensors are valid indices, "
                            f"got {value!r}")
        return True
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _bound(value: Any) -> Any:
    """A slice bound: None, a Python int or a scalar int tensor."""
    if value is None or _is_int_index(value):
        return value
    raise TypeError(f"Slice indices must be integers, None or scalar int tensors, "
                    f"got {value!r}")


def _is_bool_mask(key: Any) -> bool:
    """A bool, a bool array or a bool tensor: TF indexes with it as a boolean mask."""
    if isinstance(key, (bool, np.bool_)):
        return True
    if isinstance(key, np.ndarray):
        return key.dtype == np.bool_
    return isinstance(key, Tensor) and key.dtype == dtypes.bool_


def getitem(tensor: Any, key: Any):
    """`tensor[key]` with ints, slices, `...`, None and scalar int tensors (TF semantics)."""
    if not isinstance(key, tuple):
        if type(key) is not int and _is_bool_mask(key):
            return boolean_mask(tensor, key)   # as TF (a scalar mask raises ValueError)
        key = (key,)
    if _state.graph is None and _plain_index(key):   # x[t], x[t, ..., None]: translated once
        found = _translated.by_index.get(key)
        if found is None:
            found = _translate(key)
            if len(_translated.by_index) < MAX_TRANSLATED_INDICES:
                _translated.by_index[key] = found
    else:
        found = _translate(key)
    begin, end, strides, masks = found
    if begin is None:
        return strided_slice(tensor, [0], [0], [1], ellipsis_mask=1, name="strided_slice")
    return apply_op(STRIDED_SLICE, (convert_to_tensor(tensor), begin, end, strides), masks,
                    "strided_slice")


def _plain_index(key: tuple) -> bool:
    """Only Python ints (not bools), None and `...`: hashable, and nothing but values."""
    for k in key:
        if type(k) is not int and k is not None and k is not Ellipsis:
            return False
    return True


def _translate(key: tuple) -> tuple:
    """(begin, end, strides, masks) of StridedSlice for a `__getitem__` index; begin is
    None for an empty index (the whole tensor)."""
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    tensor_indices = False   # a scalar int tensor among them: its dtype may be int64
    for i, k in enumerate(key):
        bit = 1 << i
        if type(k) is int:   # first: x[t] in a loop
            begin.append(k)
            end.append(k + 1)
            strides.append(1)
            shrink_axis_mask |= bit
        elif isinstance(k, builtins.slice):
            start, stop, step = _bound(k.start), _bound(k.stop), _bound(k.step)
            begin.append(0 if start is None else start)
            end.append(0 if stop is None else stop)
            strides.append(1 if step is None else step)
            begin_mask |= bit if start is None else 0
            end_mask |= bit if stop is None else 0
            tensor_indices = tensor_indices or isinstance(start, Tensor) or \
                isinstance(stop, Tensor) or isinstance(step, Tensor)
        elif k is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif k is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        elif _is_int_index(k):
            begin.append(k)
            end.append(k + 1)
            strides.append(1)
            shrink_axis_mask |= bit
            tensor_indices = tensor_indices or isinstance(k, Tensor)
        else:
            raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), dg.newaxis "
                            f"(`None`) and scalar int32/int64 tensors are valid indices, "
                            f"got {k!r}")
    masks = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    if not begin:
        return None, None, None, masks
    dtype = _index_dtype(begin + end + strides) if tensor_indices else dtypes.int32
    return (_index_vector(begin, dtype), _index_vector(end, dtype),
            _index_vector(strides, dtype), masks)


register_operator("getitem", getitem)

__all__ = ["slice", "strided_slice"]
