"""Joining and splitting: concat, stack, split, unstack. Gradients: join_grad.py."""
from __future__ import annotations

import functools
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.errors import OperatorNotAllowedInGraphError
from ...framework.op_def import declare_op, shared_attrs
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..arg_errors import by_mode, mode_error
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..shape_rules import check_same_dtype, normalize_axis
from ..tensor_util import constant_value

_state = context.state


def _concat_kernel(*xs, axis):
    return np.concatenate(xs, axis=axis)


def _bind_concat(op):
    """A plan's ConcatV2: the axis bound in a closure, not a keyword per call."""
    if set(op.attrs) != {"axis"}:
        return None
    axis = op.attrs["axis"]

    def concat_in_plan(*xs):
        return np.concatenate(xs, axis=axis)
    return concat_in_plan


_concat_kernel.plan_bind = _bind_concat  # type: ignore[attr-defined]


def _concat_infer(inputs, attrs):
    dtype = check_same_dtype(inputs)
    axis = attrs["axis"]
    ranks = {t.shape.rank for t in inputs} - {None}
    if not ranks:
        return [(dtype, TensorShape(None))]
    if len(ranks) > 1:
        raise ValueError(f"ConcatOp: inputs must have the same rank, got {sorted(ranks)}")
    rank = ranks.pop()
    axis = normalize_axis(axis, rank)
    dims = [None] * rank
    total = 0
    for t in inputs:
        if t.shape.rank is None:
            total = None
            continue
        for i, d in enumerate(t.shape.dims):
            if i == axis:
                total = None if total is None or d is None else total + d
            elif d is not None:
                if dims[i] is not None and dims[i] != d:
                    raise ValueError(f"ConcatOp: dimension {i} of the inputs differ: "
                                     f"{[t.shape for t in inputs]}")
                dims[i] = d
    dims[axis] = total
    return [(dtype, TensorShape(tuple(dims)))]


CONCAT = declare_op("ConcatV2", _concat_kernel, _concat_infer, grad_inputs=(),
                    same_dtype=slice(None))


def concat(values: Sequence[Any], axis: int, name: Optional[str] = "concat"):
    """Joins tensors along an existing axis. A single tensor (not in a list) or a
    list of one is returned as it is, whatever `axis` (TF's degenerate case)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if not values:
        message = "List argument 'values' to 'ConcatV2' Op with length 0 shorter than minimum " \
            "length 2."
        raise mode_error(message, ValueError)
    if len(values) == 1:
        _concat_axis(axis)
        return convert_to_tensor(values[0])
    tensors = [convert_to_tensor(v) for v in values]
    rank = tensors[0].ndim
    axis = _op_axis(axis, rank)
    if rank is not None and axis < 0:
        axis += rank
    return apply_op(CONCAT, tensors, shared_attrs(("axis",), axis), name)


def _op_axis(axis: Any, rank: Optional[int]) -> int:
    """ConcatV2's axis input (two values or more): a string or a non-integer tensor is
    the op's dtype error, a non-scalar tensor or an axis out of range its shape error
    (eagerly InvalidArgumentError; building a graph TypeError and ValueError)."""
    if type(axis) is int and rank is not None and -rank <= axis < max(rank, 1):
        return axis   # an in-range Python int, as nearly every call passes
    if isinstance(axis, str) or isinstance(axis, Tensor) and not axis.dtype.is_integer:
        raise mode_error(f"ConcatV2: axis must be int32, got {axis!r}", TypeError)
    if isinstance(axis, Tensor) and axis.shape.rank not in (0, None):
        raise mode_error(f"ConcatV2: axis must be a scalar, got shape {axis.shape}",
                          ValueError)
    if isinstance(axis, int) and not -2**63 <= axis < 2**63 and _state.graph is None:
        raise ValueError(f"ConcatV2: Can't convert Python int {axis} to an int32 tensor.")
    value = _concat_axis(axis)
    if rank is not None and not -rank <= value < max(rank, 1):
        raise mode_error(f"ConcatV2: axis {value} is out of range for inputs of rank {rank}",
                          ValueError)
    return value


def _concat_axis(axis: Any) -> int:
    """concat's axis as an int; TF converts it to an int32 scalar even for one value:
    None, a non-scalar or an unconvertible object ValueError (building a graph an
    object is a TypeError), a string or a float TypeError."""
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, (bool, np.bool_)):
        return int(axis)
    if isinstance(axis, Tensor):
        if axis.shape.rank not in (0, None):
            raise ValueError(f"concat: axis must be a scalar, got shape {axis.shape}")
        if not axis.dtype.is_integer:
            raise TypeError(f"concat: axis must be int32, got {axis.dtype.name}")
        value = constant_value(axis)
        if value is None:
            raise ValueError("concat: axis must be statically known")
        return int(value)
    if axis is None:
        raise ValueError("concat: axis must be an int, got None")
    try:
        array = np.asarray(axis)
    except ValueError:
        raise by_mode(ValueError, TypeError)(
            f"concat: axis must be an int, got {axis!r}") from None
    if array.dtype.kind == "O":
        raise by_mode(ValueError, TypeError)(
            f"concat: axis must be an int, got {axis!r}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"concat: axis must be an int, got {axis!r}")
    if array.ndim:
        raise ValueError(f"concat: axis must be a scalar, got {axis!r}")
    return int(array)


def _pack_kernel(*xs, axis):
    first = xs[0]
    if axis == 0 and all(isinstance(x, (np.ndarray, np.generic)) and x.shape == first.shape
                         and x.dtype == first.dtype for x in xs):
        # np.stack's generality costs ~10 us; a loop body packs small values every step
        out = np.empty((len(xs),) + first.shape, first.dtype)
        for i, x in enumerate(xs):
            out[i] = x
        return out
    return np.stack(xs, axis=axis)


def _bind_pack(op):
    """A plan's Pack of one value along axis 0 (x[t]'s begin and end in a loop body):
    the value with a new leading axis."""
    if op.attrs != {"axis": 0} or len(op.inputs) != 1:
        return None

    def pack_one(x):
        return np.asarray(x)[None]
    return pack_one


_pack_kernel.plan_bind = _bind_pack  # type: ignore[attr-defined]


def _pack_infer(inputs, attrs):
    dtype = check_same_dtype(inputs)
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not shape.is_compatible_with(t.shape):
            raise ValueError(f"Shapes of all inputs must match: {shape} != {t.shape}")
        shape = shape.merge_with(t.shape)
    if shape.rank is None:
        return [(dtype, TensorShape(None))]
    axis = attrs["axis"]
    dims = list(shape.dims)
    if not -(len(dims) + 1) <= axis <= len(dims):
        raise ValueError(f"axis {axis} out of range for stacking rank-{len(dims)} tensors")
    dims.insert(axis % (len(dims) + 1), len(inputs))
    return [(dtype, TensorShape(tuple(dims)))]


PACK = declare_op("Pack", _pack_kernel, _pack_infer, grad_inputs=(), same_dtype=slice(None))


def stack(values: Sequence[Any], axis: int = 0, name: Optional[str] = "stack"):
    """Joins same-shape tensors along a new axis. An empty list stacks (along axis
    0) to an empty float32 vector, as TF's conversion of [] does."""
    if isinstance(axis, Tensor):
        if _state.graph is not None:
            raise OperatorNotAllowedInGraphError(f"stack: axis must be a Python int, got "
                                                 f"{axis!r}")
        if axis.shape.rank != 0 or not axis.dtype.is_integer:
            raise ValueError(f"stack: axis must be a scalar int, got {axis!r}")
    if isinstance(axis, str):
        raise TypeError(f"stack: axis must be an int, got {axis!r}")
    if values is None:
        raise TypeError("stack: values must be a list of tensors, got None")
    if not isinstance(values, (list, tuple)):
        if isinstance(axis, (int, np.integer)) and axis == 0:  # TF converts it as one tensor
            return convert_to_tensor(values, name=name)
        values = list(values)
    if not values:
        if axis != 0:
            raise ValueError(f"stack: an empty list of values has no axis {axis}")
        return convert_to_tensor(np.zeros((0,), np.float32), name=name)
    tensors = [convert_to_tensor(v) for v in values]
    dtype_hint = tensors[0].dtype
    tensors = [t if t.dtype == dtype_hint else convert_to_tensor(v, dtype_hint=dtype_hint)
               for t, v in zip(tensors, values, strict=True)]
    rank = tensors[0].shape.rank
    axis = int(axis)
    if rank is not None and not -(rank + 1) <= axis < rank + 1:
        raise ValueError(f"stack: axis {axis} is out of range [{-(rank + 1)}, {rank + 1}) for "
                         f"values of rank {rank}")
    if rank is not None and axis < 0:
        axis += rank + 1
    return apply_op(PACK, tensors, {"axis": axis}, name)


__all__ = ["concat", "stack"]


# -- splitting ----------------------------------------------------------------
def _split_kernel(x, *, num_split, axis):
    if x.shape[axis] % num_split:
        raise ValueError(f"Number of ways to split should evenly divide the split dimension, "
                         f"but got split_dim {axis} (size = {x.shape[axis]}) and "
                         f"num_split {num_split}")
    size = x.shape[axis] // num_split
    return [x[index] for index in _piece_indices(x.ndim, axis, (size,) * num_split)]


@functools.lru_cache(maxsize=256)
def _piece_indices(ndim: int, axis: int, sizes: Tuple[int, ...]) -> Tuple[tuple, ...]:
    """The basic index of each piece of a split into `sizes` along `axis`: views, as
    np.split's, without its per-piece swapaxes. Memoised: an LSTM splits its gates
    the same way every step."""
    out, start = [], 0
    for size in sizes:
        index: list = [slice(None)] * ndim
        index[axis] = slice(start, start + size)
        out.append(tuple(index))
        start += size
    return tuple(out)


def _split_infer(inputs, attrs):
    x = inputs[0]
    num, axis = attrs["num_split"], attrs["axis"]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))] * num
    axis = normalize_axis(axis, x.shape.rank)
    dims = list(x.shape.dims)
    dim = dims[axis]
    if dim is not None and dim % num:
        raise ValueError(f"Dimension {axis} of size {dim} cannot be split evenly into {num}")
    dims[axis] = None if dim is None else dim // num
    return [(x.dtype, TensorShape(tuple(dims)))] * num


SPLIT = declare_op("Split", _split_kernel, _split_infer, num_outputs=-1, grad_inputs=())


def _split_sizes(dim: int, sizes) -> list:
    """Size splits with at most one -1 resolved against `dim`; ValueError if they do not fit."""
    sizes = sizes.tolist() if type(sizes) is np.ndarray and sizes.dtype.kind in "iu" \
        else [int(s) for s in sizes]
    if sizes.count(-1) > 1:
        raise ValueError(f"size_splits may contain at most one -1, got {sizes}")
    if -1 in sizes:
        rest = dim - sum(s for s in sizes if s != -1)
        if rest < 0:
            raise ValueError(f"size_splits {sizes} exceed the split dimension of size {dim}")
        sizes[sizes.index(-1)] = rest
    if sum(sizes) != dim or min(sizes, default=0) < 0:
        raise ValueError(f"Determined shape must either match input shape along split_dim "
                         f"exactly if fully specified, or be less than the size of the input "
                         f"along split_dim if not fully specified. Got: {sizes} for a "
                         f"dimension of size {dim}")
    return sizes


def _split_v_kernel(x, size_splits, *, axis):
    sizes = _split_sizes(x.shape[axis], size_splits)
    return [x[index] for index in _piece_indices(x.ndim, axis, tuple(sizes))]


def _split_v_infer(inputs, attrs):
    x, size_splits = inputs
    num = size_splits.shape[0] if size_splits.shape.rank == 1 else None
    if num is None:
        raise ValueError("Cannot infer the number of outputs of SplitV: size_splits has "
                         f"shape {size_splits.shape}")
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))] * num
    rank = x.shape.rank
    axis = normalize_axis(attrs["axis"], rank)
    value = constant_value(size_splits)
    sizes = [None] * num
    if value is not None:
        dim = x.shape[axis]
        sizes = list(_split_sizes(dim, value)) if dim is not None else \
            [None if s == -1 else int(s) for s in value]
    elif size_splits.op.type == "Pack":
        sizes = [_scalar_or_none(t) for t in size_splits.op.inputs]
    outputs = []
    for s in sizes:
        dims = list(x.shape.dims)
        dims[axis] = s
        outputs.append((x.dtype, TensorShape(tuple(dims))))
    return outputs


SPLIT_V = declare_op("SplitV", _split_v_kernel, _split_v_infer, num_outputs=-1, grad_inputs=())


def _scalar_or_none(tensor: Any) -> Optional[int]:
    value = constant_value(tensor)
    return None if value is None or int(value) < 0 else int(value)


def _check_splits(splits: Any) -> None:
    """TF's classes for a num_or_size_splits that is neither an int nor int sizes:
    None ValueError; another non-sequence ValueError (TypeError building a graph);
    a non-integer tensor TypeError building a graph."""
    if splits is None:
        raise ValueError("num_or_size_splits must be an int or a list of sizes, got None")
    if isinstance(splits, Tensor):
        if not splits.dtype.is_integer and _state.graph is not None:
            raise TypeError(f"num_or_size_splits must be int32 or int64, got "
                            f"{splits.dtype.name}")
    elif not isinstance(splits, (int, np.integer, list, tuple, np.ndarray)):
        raise by_mode(ValueError, TypeError)(
            f"num_or_size_splits must be an int or a list of sizes, got {splits!r}")


def split(value: Any, num_or_size_splits: Any, axis: int = 0, num: Optional[int] = None,
          name: str = "split"):
    """Splits `value` along `axis` into `num_or_size_splits` equal pieces, or pieces of
    the listed sizes (ints or scalar int tensors; one may be -1)."""
    value = convert_to_tensor(value)
    axis = int(axis)
    rank = value.ndim
    if rank is not None and axis < 0:
        axis += rank
    _check_splits(num_or_size_splits)
    if isinstance(num_or_size_splits, (int, np.integer)) \
            and not isinstance(num_or_size_splits, bool):
        if num_or_size_splits <= 0:
            message = f"num_or_size_splits must be positive, got {num_or_size_splits}"
            raise mode_error(message, ValueError)
        return apply_op(SPLIT, (value,), shared_attrs(("num_split", "axis"),
                                                      int(num_or_size_splits), axis), name)
    if isinstance(num_or_size_splits, Tensor):
        sizes = num_or_size_splits
        if sizes.shape.rank == 0:
            raise ValueError("A scalar tensor num_or_size_splits is not supported; pass an int")
    elif any(isinstance(s, Tensor) for s in num_or_size_splits):
        sizes = stack([s if isinstance(s, Tensor) else constant(int(s), dtypes.int32)
                       for s in num_or_size_splits])
    else:
        sizes = constant(np.array(list(num_or_size_splits), dtype=np.int32).reshape(-1))
    if num is not None and (sizes.shape.rank != 1 or sizes.shape[0] != num):
        raise ValueError(f"num={num} does not match size_splits of shape {sizes.shape}")
    return apply_op(SPLIT_V, (value, sizes), {"axis": axis}, name)


def _unpack_kernel(x, *, num, axis):
    if x.shape[axis] != num:
        raise ValueError(f"Input shape axis {axis} must equal {num}, got shape {x.shape}")
    return [np.take(x, i, axis=axis) for i in range(num)]


def _unpack_infer(inputs, attrs):
    x = inputs[0]
    num, axis = attrs["num"], attrs["axis"]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))] * num
    dims = list(x.shape.dims)
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension {axis} of {x.shape} must be {num} to unstack into {num}")
    del dims[axis]
    return [(x.dtype, TensorShape(tuple(dims)))] * num


UNPACK = declare_op("Unpack", _unpack_kernel, _unpack_infer, num_outputs=-1, grad_inputs=())


def unstack(value: Any, num: Optional[int] = None, axis: int = 0, name: str = "unstack"):
    """The slices of `value` along `axis`, as a list of `num` tensors of one rank less."""
    value = convert_to_tensor(value)
    rank = value.shape.rank
    axis = normalize_axis(int(axis), rank)
    if num is None:
        num = value.shape[axis] if rank is not None else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
    elif axis < 0:
        raise ValueError("A negative axis needs a tensor of known rank")
    return apply_op(UNPACK, (value,), {"num": int(num), "axis": axis}, name)


__all__ += ["split", "unstack"]
