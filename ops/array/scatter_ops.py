"""N-d indexing: gather_nd, scatter_nd, tensor_scatter_nd_{update,add,sub}, boolean_mask.

`indices` has shape [..., K]: its last axis addresses the first K axes of the
(params or output) tensor, and each index selects the slice over the rest.
Gradients: scatter_grad.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape, unknown_shape
from .array_ops import reshape, shape, squeeze, where
from ..arg_errors import mode_error
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from .indexed_slices_ops import gather
from .join_ops import concat
from ..math.reduction_ops import reduce_prod
from ..tensor_util import shape_from_tensor

_state = context.state


def _index_tuple(indices: np.ndarray, shape, what: str) -> tuple:
    """indices [..., K] as a NumPy advanced index, checked against shape[:K]."""
    if indices.ndim == 0:
        raise ValueError(f"{what}: Indices shape must have rank at least one. Found:[]")
    k = indices.shape[-1]
    if k > len(shape):
        raise ValueError(f"index innermost dimension length must be <= rank ({len(shape)}); "
                         f"got {k}")
    for j in range(k):
        column = indices[..., j]
        bad = (column < 0) | (column >= shape[j])
        if np.any(bad):
            position = np.argwhere(bad)[0].tolist()
            raise ValueError(f"{what}: indices{position} = "
                             f"{indices[tuple(position)].tolist()} does not index into "
                             f"shape {list(shape)}")
    if k == 0:
        # Each index of depth 0 addresses the whole tensor: index a new leading
        # axis of length 1 (callers pass `array[None]`, see `_target`).
        return (np.zeros(indices.shape[:-1], np.intp),)
    return tuple(np.moveaxis(indices, -1, 0))


def _target(array: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """`array`, or a view with a new leading axis of length 1 for indices of depth 0."""
    return array[None] if indices.shape[-1] == 0 else array


def _check_indices_dtype(indices) -> None:
    if not indices.dtype.is_integer:
        raise TypeError(f"indices must be int32 or int64, got {indices.dtype.name}")


def _indexed_shape(indices: TensorShape, target: TensorShape) -> TensorShape:
    """Shape of the slices addressed by `indices` in a tensor of shape `target`:
    indices.shape[:-1] + target.shape[K:]."""
    index_dims, target_dims = indices.dims, target.dims
    if index_dims is not None and not index_dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for the indices")
    if index_dims is None or target_dims is None or index_dims[-1] is None:
        return unknown_shape()
    k = index_dims[-1]
    if k > target.rank:
        raise ValueError(f"index innermost dimension length must be <= rank ({target.rank}); "
                         f"got {k}")
    return TensorShape(index_dims[:-1] + target_dims[k:])


# -- gather_nd ------------------------------------------------------------------
def _gather_nd_kernel(params, indices):
    indices = np.asarray(indices)
    return np.asarray(_target(params, indices)[_index_tuple(indices, params.shape, "GatherNd")])


def _gather_nd_infer(inputs, attrs):
    params, indices = inputs
    _check_indices_dtype(indices)
    if indices.shape.rank == 0:
        raise ValueError("indices must be at least a vector")
    return [(params.dtype, _indexed_shape(indices.shape, params.shape))]


GATHER_ND = declare_op("GatherNd", _gather_nd_kernel, _gather_nd_infer, grad_inputs=(1,))


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: Optional[str] = None):
    """out[i...] = params[indices[i..., 0], ..., indices[i..., K-1]] (a slice if K < rank).

    With `batch_dims` = b the first b axes of params and indices are batch axes:
    each batch's indices address that batch's params (indices of known shape)."""
    params, indices = convert_to_tensor(params), convert_to_tensor(indices)
    if batch_dims:
        _check_batch_dims(params, indices, int(batch_dims))
        indices = _with_batch_coordinates(indices, int(batch_dims))
    return apply_op(GATHER_ND, (params, indices), name=name)


def _check_batch_dims(params: Any, indices: Any, batch_dims: int) -> None:
    """The batch axes of params and indices agree (TF: InvalidArgumentError eagerly,
    ValueError while building a graph)."""
    p, i = params.shape, indices.shape
    if p.rank is None or i.rank is None or min(p.rank, i.rank) < batch_dims:
        return
    if not p[:batch_dims].is_compatible_with(i[:batch_dims]):
        message = (f"gather_nd: the {batch_dims} batch dimensions of params {p} and "
                   f"indices {i} differ")
        raise mode_error(message, ValueError)


def _with_batch_coordinates(indices: Any, batch_dims: int) -> Any:
    """indices [B..., N..., K] prefixed with each entry's batch coordinates [B..., N..., b+K]."""
    shape = indices.shape
    if not shape.is_fully_defined():
        raise ValueError(f"gather_nd with batch_dims={batch_dims} needs indices of known "
                         f"shape, got {shape}")
    dims = shape.as_list()
    if not 0 <= batch_dims < len(dims):
        raise ValueError(f"gather_nd: batch_dims must be in [0, {len(dims)}) for indices of "
                         f"shape {shape}, got {batch_dims}")
    grid = np.stack(np.meshgrid(*[np.arange(d) for d in dims[:batch_dims]], indexing="ij"), -1)
    grid = grid.reshape(dims[:batch_dims] + [1] * (len(dims) - 1 - batch_dims) + [batch_dims])
    grid = np.broadcast_to(grid, dims[:-1] + [batch_dims]).astype(indices.dtype.as_numpy_dtype)
    return concat([convert_to_tensor(grid), indices], -1)


# -- scatter_nd -----------------------------------------------------------------
def _check_ranks(indices: Any, updates: np.ndarray, what: str) -> None:
    """TF's kernel checks, indices first: neither may be a scalar."""
    if np.ndim(indices) == 0:
        raise ValueError(f"{what}: Indices shape must have rank at least one. Found:[]")
    if updates.ndim == 0:
        raise ValueError(f"{what}: Updates shape must have rank at least one. Found:[]")


def _scatter_nd_kernel(indices, updates, shape):
    _check_ranks(indices, updates, "ScatterNd")
    out = np.zeros(tuple(int(d) for d in shape), dtype=updates.dtype)
    indices = np.asarray(indices)
    np.add.at(_target(out, indices), _index_tuple(indices, out.shape, "ScatterNd"), updates)
    return out


def _check_updates(indices, updates, target) -> None:
    expected = _indexed_shape(indices.shape, target)
    if not expected.is_compatible_with(updates.shape):
        raise ValueError(f"updates has shape {updates.shape}, expected {expected} for indices "
                         f"of shape {indices.shape} into shape {target}")


def _scatter_nd_infer(inputs, attrs):
    indices, updates, shape_arg = inputs
    _check_indices_dtype(indices)
    target = shape_from_tensor(shape_arg)
    if updates.shape.rank == 0:   # TF's shape function (TensorScatter* builds, then fails)
        raise ValueError("ScatterNd: Shape must be at least rank 1 but is rank 0 for the "
                         "updates")
    _check_updates(indices, updates, target)
    return [(updates.dtype, target)]


SCATTER_ND = declare_op("ScatterNd", _scatter_nd_kernel, _scatter_nd_infer, grad_inputs=(0,))


def scatter_nd(indices: Any, updates: Any, shape: Any, name: Optional[str] = None):
    """Zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    indices = convert_to_tensor(indices)
    shape = convert_to_tensor(shape, dtype_hint=indices.dtype)
    return apply_op(SCATTER_ND, (indices, convert_to_tensor(updates), shape), name=name)


# -- tensor_scatter_nd_* --------------------------------------------------------
def _tensor_scatter(mode: str):
    def kernel(tensor, indices, updates):
        _check_ranks(indices, updates, f"TensorScatter{mode}")
        out = tensor.copy()
        indices = np.asarray(indices)
        index = _index_tuple(indices, tensor.shape, f"TensorScatter{mode}")
        target = _target(out, indices)
        if mode == "Update":
            target[index] = updates
        elif mode == "Add":
            np.add.at(target, index, updates)
        else:
            np.subtract.at(target, index, updates)
        return out
    return kernel


def _tensor_scatter_infer(inputs, attrs):
    tensor, indices, updates = inputs
    _check_indices_dtype(indices)
    if updates.dtype != tensor.dtype:
        raise TypeError(f"updates has dtype {updates.dtype.name}, expected "
                        f"{tensor.dtype.name} like the tensor")
    _check_updates(indices, updates, tensor.shape)
    return [(tensor.dtype, tensor.shape)]


TENSOR_SCATTER_UPDATE = declare_op("TensorScatterUpdate", _tensor_scatter("Update"),
                                   _tensor_scatter_infer, grad_inputs=(1,),
                                   same_dtype=slice(0, 3, 2))
TENSOR_SCATTER_ADD = declare_op("TensorScatterAdd", _tensor_scatter("Add"),
                                _tensor_scatter_infer, grad_inputs=(1,),
                                same_dtype=slice(0, 3, 2))
TENSOR_SCATTER_SUB = declare_op("TensorScatterSub", _tensor_scatter("Sub"),
                                _tensor_scatter_infer, grad_inputs=(1,),
                                same_dtype=slice(0, 3, 2))


def _apply_tensor_scatter(op_def, tensor: Any, indices: Any, updates: Any, name: Optional[str]):
    tensor = convert_to_tensor(tensor)
    updates = convert_to_tensor(updates, dtype_hint=tensor.dtype)
    return apply_op(op_def, (tensor, convert_to_tensor(indices), updates), name=name)


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any,
                             name: Optional[str] = None):
    """`tensor` with the slices at `indices` replaced by `updates`."""
    return _apply_tensor_scatter(TENSOR_SCATTER_UPDATE, tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None):
    """`tensor` with `updates` added at `indices` (repeated indices add up)."""
    return _apply_tensor_scatter(TENSOR_SCATTER_ADD, tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None):
    """`tensor` with `updates` subtracted at `indices` (repeated indices add up)."""
    return _apply_tensor_scatter(TENSOR_SCATTER_SUB, tensor, indices, updates, name)


# -- boolean_mask (composite: Where, Reshape, GatherV2) -------------------------
def boolean_mask(tensor: Any, mask: Any, axis: Optional[int] = None,
                 name: str = "boolean_mask"):
    """The entries of `tensor` where `mask` (covering axes axis..axis+mask.ndim) is True,
    flattened over the masked axes, as in TensorFlow."""
    tensor = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    mask_rank = mask.shape.rank
    if mask_rank is None:
        raise ValueError("Number of mask dimensions must be specified, even if some "
                         "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                         "is not.")
    if mask_rank == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else int(axis)
    rank = tensor.shape.rank
    if rank is not None:
        if axis < 0:
            axis += rank
        masked = tensor.shape[axis:axis + mask_rank]
        if masked.rank != mask_rank or not masked.is_compatible_with(mask.shape):
            raise ValueError(f"Shapes {tensor.shape[axis:axis + mask_rank]} and {mask.shape} "
                             f"are incompatible")
    elif axis < 0:
        raise ValueError("boolean_mask needs a tensor of known rank for a negative axis")
    if mask.dtype == dtypes.string:  # TF takes any numeric mask as `mask != 0` (its where)
        raise mode_error(f"boolean_mask: mask must be a bool or numeric tensor, got "
                         f"{mask.dtype.name}", TypeError)
    if tensor.shape.is_fully_defined():
        static = tensor.shape.as_list()
        target = static[:axis] + [-1] + static[axis + mask_rank:]
    else:
        dims = shape(tensor)
        leading = reduce_prod(dims[axis:axis + mask_rank], axis=[0], keepdims=True)
        target = concat([dims[:axis], leading, dims[axis + mask_rank:]], axis=0)
    flat = reshape(tensor, target)
    indices = squeeze(where(reshape(mask, [-1])), axis=[1])
    return gather(flat, indices, axis=axis, name=name)


__all__ = ["gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "boolean_mask"]
