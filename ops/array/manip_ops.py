"""Manipulation: tile, pad (constant, reflect, symmetric), reverse, one_hot.

Gradients: manip_grad.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, unknown_shape
from ..arg_errors import int_array_arg, int_vector_arg
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..tensor_util import constant_value


def _int_vector(value: Any, dtype: Any = dtypes.int32):
    """A list/array of ints as an int tensor (integer tensors pass through), with
    TF's classes for anything else (arg_errors.int_array_arg)."""
    array = int_array_arg(value, "the integer argument")
    if isinstance(array, Tensor):
        return array
    return constant(array.astype(dtypes.as_dtype(dtype).as_numpy_dtype))


def _check_int(t, what: str) -> None:
    if not t.dtype.is_integer:
        raise TypeError(f"{what} must be int32 or int64, got {t.dtype.name}")


# -- tile ---------------------------------------------------------------------
def _tile_kernel(x, multiples):
    if np.ndim(multiples) != 1:
        raise ValueError(f"Expected multiples to be 1-D, but got shape {list(np.shape(multiples))}")
    if len(multiples) != x.ndim:
        raise ValueError(f"Expected multiples argument to be a vector of length {x.ndim} "
                         f"but got length {len(multiples)}")
    if np.any(np.asarray(multiples) < 0):
        raise ValueError(f"Expected multiples to be non-negative, got {list(multiples)}")
    return np.tile(x, tuple(int(m) for m in multiples))


def _tile_infer(inputs, attrs):
    x, multiples = inputs
    _check_int(multiples, "multiples")
    if multiples.shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {multiples.shape.rank} for multiples")
    n = multiples.shape[0] if multiples.shape.rank == 1 else x.shape.rank
    if n is None:
        return [(x.dtype, unknown_shape())]
    if x.shape.rank is not None and x.shape.rank != n:
        raise ValueError(f"Shape must be rank {x.shape.rank} for multiples, got length {n}")
    value = constant_value(multiples)
    dims = x.shape.dims if x.shape.rank is not None else (None,) * n
    if value is None:
        return [(x.dtype, TensorShape((None,) * n))]
    value = [int(m) for m in np.reshape(value, -1)]
    if min(value, default=0) < 0:
        raise ValueError(f"Expected multiples to be non-negative, got {value}")
    return [(x.dtype, TensorShape(tuple(None if d is None else d * m
                                        for d, m in zip(dims, value, strict=True))))]


TILE = declare_op("Tile", _tile_kernel, _tile_infer, grad_inputs=(1,))


def tile(input: Any, multiples: Any, name: Optional[str] = None):  # noqa: A002 (TF's name)
    """`input` repeated `multiples[i]` times along each axis i."""
    return apply_op(TILE, (convert_to_tensor(input), _int_vector(multiples)), name=name)


# -- pad ----------------------------------------------------------------------
def _check_paddings(paddings, shape, mode: Optional[str]) -> None:
    """TF's limits: paddings of shape [rank, 2], non-negative, and for mirror modes at
    most dim - 1 (REFLECT) or dim (SYMMETRIC)."""
    if paddings.shape != (len(shape), 2):
        raise ValueError(f"The first dimension of paddings must be the rank of inputs "
                         f"{len(shape)} and the second 2, got paddings of shape "
                         f"{paddings.shape}")
    if np.any(paddings < 0):
        raise ValueError(f"Paddings must be non-negative: {paddings.tolist()}")
    if mode is not None:
        limit = 0 if mode == "REFLECT" else 1
        for (before, after), dim in zip(paddings, shape, strict=True):
            if max(before, after) > dim - 1 + limit:
                raise ValueError(f"paddings must be no greater than the dimension size "
                                 f"{dim}{' minus 1' if mode == 'REFLECT' else ''} in "
                                 f"{mode} mode, got {before}, {after}")


def _pad_kernel(x, paddings, constant_values):
    paddings = np.asarray(paddings).astype(np.int64)
    _check_paddings(paddings, x.shape, None)
    return np.pad(x, paddings, mode="constant", constant_values=constant_values)


def _padded_shape(x, paddings, mode: Optional[str]) -> TensorShape:
    _check_int(paddings, "paddings")
    rank = x.shape.rank
    if rank is None and paddings.shape.rank == 2:
        rank = paddings.shape[0]
    if rank is None:
        return unknown_shape()
    if paddings.shape.rank is not None and not paddings.shape.is_compatible_with([rank, 2]):
        raise ValueError(f"paddings must have shape [{rank}, 2], got {paddings.shape}")
    value = constant_value(paddings)
    dims = x.shape.dims if x.shape.rank is not None else (None,) * rank
    if value is None:
        return TensorShape((None,) * rank)
    value = np.asarray(value).reshape(rank, 2)
    if x.shape.is_fully_defined():
        _check_paddings(value, dims, mode)
    elif np.any(value < 0):
        raise ValueError(f"Paddings must be non-negative: {value.tolist()}")
    return TensorShape(tuple(None if d is None else d + int(p.sum())
                             for d, p in zip(dims, value, strict=True)))


def _pad_infer(inputs, attrs):
    x, paddings, value = inputs
    if value.dtype != x.dtype:
        raise TypeError(f"constant_values has dtype {value.dtype.name}, expected "
                        f"{x.dtype.name} like the input")
    return [(x.dtype, _padded_shape(x, paddings, None))]


PAD = declare_op("PadV2", _pad_kernel, _pad_infer, grad_inputs=(1,), same_dtype=slice(0, 3, 2))


def _mirror_pad_kernel(x, paddings, *, mode):
    paddings = np.asarray(paddings).astype(np.int64)
    _check_paddings(paddings, x.shape, mode)
    return np.pad(x, paddings, mode=mode.lower())


def _mirror_pad_infer(inputs, attrs):
    x, paddings = inputs
    return [(x.dtype, _padded_shape(x, paddings, attrs["mode"]))]


MIRROR_PAD = declare_op("MirrorPad", _mirror_pad_kernel, _mirror_pad_infer, grad_inputs=(1,))


def _mirror_pad_grad_kernel(grad, paddings, *, mode):
    """Each padded position's gradient added to the input element it copies."""
    paddings = np.asarray(paddings).astype(np.int64)
    out = grad
    for axis, (before, after) in enumerate(paddings):
        n = out.shape[axis] - before - after
        source = np.pad(np.arange(n), (before, after), mode=mode.lower())
        moved = np.moveaxis(out, axis, 0)
        summed = np.zeros((n,) + moved.shape[1:], dtype=grad.dtype)
        np.add.at(summed, source, moved)
        out = np.moveaxis(summed, 0, axis)
    return out if out.flags.c_contiguous else out.copy()  # (ascontiguousarray makes 0-d 1-d)


def _mirror_pad_grad_infer(inputs, attrs):
    grad, paddings = inputs
    _check_int(paddings, "paddings")
    rank = grad.shape.rank
    value = constant_value(paddings)
    if rank is None:
        return [(grad.dtype, unknown_shape())]
    if value is None:
        return [(grad.dtype, TensorShape((None,) * rank))]
    value = np.asarray(value).reshape(rank, 2)
    return [(grad.dtype, TensorShape(tuple(None if d is None else d - int(p.sum())
                                           for d, p in zip(grad.shape.dims, value, strict=True))))]


# The adjoint of MirrorPad (TF's MirrorPadGrad): folds the mirrored borders back in.
MIRROR_PAD_GRAD = declare_op("MirrorPadGrad", _mirror_pad_grad_kernel, _mirror_pad_grad_infer,
                             grad_inputs=(1,))

PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: Optional[str] = None):
    """`tensor` padded by paddings[i] = [before, after] along axis i; CONSTANT fills with
    `constant_values`, REFLECT mirrors without the edge, SYMMETRIC with it."""
    mode = str(mode).upper()
    if mode not in PAD_MODES:
        raise ValueError(f"Value of argument `mode` expected to be one of \"CONSTANT\", "
                         f"\"REFLECT\", or \"SYMMETRIC\". Received `mode` = {mode}")
    tensor = convert_to_tensor(tensor)
    paddings = _int_vector(paddings)
    if mode == "CONSTANT":
        value = convert_to_tensor(constant_values, dtype_hint=tensor.dtype)
        return apply_op(PAD, (tensor, paddings, value), name=name)
    return apply_op(MIRROR_PAD, (tensor, paddings), {"mode": mode}, name)


def mirror_pad_grad(grad: Any, paddings: Any, mode: str, name: Optional[str] = None):
    """The gradient of a mirror pad: `grad` with its borders folded back (internal)."""
    return apply_op(MIRROR_PAD_GRAD, (grad, paddings), {"mode": mode}, name)


# -- reverse ------------------------------------------------------------------
def _reverse_infer(inputs, attrs):
    x = inputs[0]
    rank = x.shape.rank
    if rank is not None:
        for a in attrs["axis"]:
            if not -rank <= a < rank:
                raise ValueError(f"'axis'[{a}] = {a} is out of valid range [{-rank}, {rank})")
    return [(x.dtype, x.shape)]


REVERSE = declare_op("ReverseV2", lambda x, *, axis: np.flip(x, axis),
                     _reverse_infer, grad_inputs=())


def reverse(tensor: Any, axis: Any, name: Optional[str] = None):
    """`tensor` with the order of elements along each axis in `axis` reversed."""
    tensor = convert_to_tensor(tensor)
    axes = (int(axis),) if isinstance(axis, (int, np.integer)) and \
        not isinstance(axis, (bool, np.bool_)) else int_vector_arg(axis, "axis")
    if len(set(axes)) != len(axes) or (tensor.shape.rank is not None and
                                       len({a % tensor.shape.rank for a in axes}) != len(axes)):
        raise ValueError(f"axis {list(axes)} specified more than once")
    return apply_op(REVERSE, (tensor,), {"axis": axes}, name)


# -- one_hot ------------------------------------------------------------------
def _one_hot_kernel(indices, depth, on_value, off_value, *, axis):
    depth = int(depth)
    if depth < 0:
        raise ValueError(f"depth must be non-negative, got: {depth}")
    hot = np.expand_dims(indices, -1) == np.arange(depth, dtype=indices.dtype)
    out = np.where(hot, on_value, off_value).astype(np.asarray(on_value).dtype)
    return np.moveaxis(out, -1, axis) if axis != -1 else out


def _one_hot_infer(inputs, attrs):
    indices, depth, on_value, off_value = inputs
    if not indices.dtype.is_integer:
        raise TypeError(f"one_hot indices must be an integer tensor, got {indices.dtype.name}")
    if on_value.dtype != off_value.dtype:
        raise TypeError(f"on_value ({on_value.dtype.name}) and off_value "
                        f"({off_value.dtype.name}) must have the same dtype")
    if indices.shape.rank is None:
        return [(on_value.dtype, unknown_shape())]
    value = constant_value(depth)
    dims = list(indices.shape.dims)
    axis = attrs["axis"]
    if not -1 <= axis <= len(dims):
        raise ValueError(f"Expected axis to be -1 or between [0, {len(dims)}), got {axis}")
    dims.insert(len(dims) if axis == -1 else axis, None if value is None else int(value))
    return [(on_value.dtype, TensorShape(tuple(dims)))]


ONE_HOT = declare_op("OneHot", _one_hot_kernel, _one_hot_infer, input_kinds="iu", grad_inputs=())


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: Optional[int] = None, dtype: Any = None, name: Optional[str] = None):
    """`on_value` where the new axis (of size `depth`) equals `indices`, else `off_value`;
    out-of-range indices give a row of `off_value`."""
    indices = convert_to_tensor(indices)
    given = [v for v in (on_value, off_value) if isinstance(v, Tensor)]
    if dtype is None:
        dtype = given[0].dtype if given else (
            convert_to_tensor(on_value if on_value is not None else off_value).dtype
            if (on_value is not None or off_value is not None) else dtypes.float32)
    dtype = dtypes.as_dtype(dtype)
    np_dtype = dtype.as_numpy_dtype
    on_value = convert_to_tensor(np.ones((), np_dtype) if on_value is None else on_value, dtype)
    off_value = convert_to_tensor(np.zeros((), np_dtype) if off_value is None else off_value,
                                  dtype)
    depth = convert_to_tensor(depth, dtype=dtypes.int32) if not isinstance(depth, Tensor) \
        else depth
    return apply_op(ONE_HOT, (indices, depth, on_value, off_value),
                    {"axis": -1 if axis is None else int(axis)}, name)


__all__ = ["tile", "pad", "reverse", "one_hot"]
