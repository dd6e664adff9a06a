"""Ops on IndexedSlices: densify, concatenate, gather and unsorted_segment_sum."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...framework.errors import InvalidArgumentError
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_def import declare_op
from ...framework.tensor import register_operator
from ...framework.tensor_shape import TensorShape
from ..arg_errors import mode_error
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from .join_ops import concat
from ..tensor_util import constant_value


def _segment_sum_kernel(data, segment_ids, num_segments):
    n = int(num_segments)
    ids = np.asarray(segment_ids)
    if ids.size and (ids.max() >= n):
        raise ValueError(f"segment id {ids.max()} is out of range [0, {n})")
    out = np.zeros((n,) + data.shape[ids.ndim:], dtype=data.dtype)
    keep = ids >= 0  # negative ids are dropped, as in TF
    np.add.at(out, ids[keep], data[keep])
    return out


def _segment_sum_infer(inputs, attrs):
    data, ids, num = inputs
    n = constant_value(num)
    if data.shape.rank is None or ids.shape.rank is None:
        return [(data.dtype, TensorShape(None))]
    first = None if n is None else int(n)
    return [(data.dtype, TensorShape((first,) + data.shape.dims[ids.shape.rank:]))]


UNSORTED_SEGMENT_SUM = declare_op("UnsortedSegmentSum", _segment_sum_kernel, _segment_sum_infer,
                                  input_kinds="fciu", grad_inputs=(1,))


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None):
    """out[i] = sum of data[j...] over j with segment_ids[j...] == i (negative ids dropped)."""
    data = convert_to_tensor(data)
    segment_ids = convert_to_tensor(segment_ids)
    num_segments = convert_to_tensor(num_segments, dtype_hint=segment_ids.dtype)
    return apply_op(UNSORTED_SEGMENT_SUM, (data, segment_ids, num_segments), name=name)


def _gather_kernel(params, indices, *, axis, batch_dims=0):
    indices = np.asarray(indices)
    if params.ndim == 0:   # a fed scalar (the rank was unknown when the op was built)
        raise InvalidArgumentError(None, None, "GatherV2: params must be at least 1 "
                                   "dimensional")
    if not -params.ndim <= axis < params.ndim:
        raise InvalidArgumentError(None, None, f"GatherV2: Expected axis in the range "
                                   f"[{-params.ndim}, {params.ndim}), but got {axis}")
    size = params.shape[axis]
    if indices.ndim == 0:  # one row (a loop reading its stacks): no min/max reductions
        index = indices.item()
        if not 0 <= index < size:
            raise ValueError(f"indices = {index} is not in [0, {size})")
        if axis == 0:  # basic indexing and one copy: ~1 us less than np.take's wrapper
            return params[index].copy()
        return np.take(params, index, axis=axis)
    if indices.size and (indices.max() >= size or indices.min() < 0):
        bad = indices.max() if indices.max() >= size else indices.min()
        raise ValueError(f"indices = {bad} is not in [0, {size})")
    return np.take(params, indices, axis=axis)


def _bind_gather(op):
    """A plan's GatherV2 along axis 0: a loop body reading one row of a stack or of a
    mapped input per iteration skips the general kernel's checks and keyword call."""
    if op.attrs != {"axis": 0}:
        return None

    def gather_rows(params, indices):
        if getattr(indices, "ndim", None) == 0 and params.ndim:  # a 0-d array, NumPy int
            index = indices.item()
            if 0 <= index < params.shape[0]:
                return params[index].copy()
        return _gather_kernel(params, indices, axis=0)  # other cases, and the errors
    return gather_rows


_gather_kernel.plan_bind = _bind_gather  # type: ignore[attr-defined]


def _gather_infer(inputs, attrs):
    params, indices = inputs
    if not indices.dtype.is_integer:
        raise TypeError(f"Gather indices must be int32 or int64, got {indices.dtype.name}")
    axis = attrs["axis"]
    if params.shape.rank is None or indices.shape.rank is None:
        return [(params.dtype, TensorShape(None))]
    dims = params.shape.dims
    axis = axis % len(dims)
    return [(params.dtype, TensorShape(dims[:axis] + indices.shape.dims + dims[axis + 1:]))]


GATHER = declare_op("GatherV2", _gather_kernel, _gather_infer, grad_inputs=(1,))


def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None,
           batch_dims: int = 0, name: Optional[str] = None):
    """Rows (or slices along `axis`) of `params` at `indices`; with `batch_dims` = b the
    first b axes of both are batch axes (see batched_gather). Bad axes raise TF's
    classes: InvalidArgumentError eagerly, ValueError while building a graph."""
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    rank, index_rank = params.shape.rank, indices.shape.rank
    batch_dims = int(batch_dims)
    if index_rank is not None:
        if not -index_rank <= batch_dims <= index_rank:
            raise mode_error(f"GatherV2: Expected batch_dims in the range [-{index_rank}, "
                             f"{index_rank}], but got {batch_dims}", ValueError)
        if batch_dims < 0:
            batch_dims += index_rank
    axis = batch_dims if axis is None else int(axis)
    if rank is not None:
        if rank == 0:
            raise mode_error("GatherV2: params must be at least 1 dimensional", ValueError)
        if not -rank <= axis < rank:
            needed = axis + 1 if axis >= 0 else -axis
            raise mode_error(f"GatherV2: Shape must be at least rank {needed} but is rank "
                             f"{rank}", ValueError)
        axis %= rank
    if batch_dims:
        if axis < batch_dims:
            raise mode_error(f"GatherV2: batch_dims ({batch_dims}) must be less than or "
                             f"equal to axis ({axis})", ValueError)
        from .batched_gather import batched_gather   # late: it builds on gather_nd
        return batched_gather(params, indices, axis, batch_dims, name)
    return apply_op(GATHER, (params, indices), {"axis": axis}, name)


def densify(slices: IndexedSlices):
    """The dense tensor an IndexedSlices stands for (repeated indices added)."""
    dense_shape = slices.dense_shape
    if dense_shape is None:
        raise ValueError("Cannot densify IndexedSlices without a dense_shape")
    rows = _first_dim(dense_shape)
    return unsorted_segment_sum(slices.values, slices.indices, rows)


def _first_dim(dense_shape: Any):
    value = constant_value(dense_shape)
    if value is not None:
        return int(value[0])
    return gather(dense_shape, 0)


def concat_indexed_slices(parts: List[IndexedSlices]) -> IndexedSlices:
    """Sum of IndexedSlices without densifying: concatenate values and indices."""
    values = concat([p.values for p in parts], axis=0)
    indices = concat([p.indices for p in parts], axis=0)
    return IndexedSlices(values, indices, parts[0].dense_shape)


register_operator("densify", densify)

__all__ = ["unsorted_segment_sum", "gather"]
