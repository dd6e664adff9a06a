"""Segment reductions: unsorted_segment_max/min/prod (primitives, as in TF) and the
compositions segment_* (sorted ids), unsorted_segment_mean and unsorted_segment_sqrt_n.

Gradients of the primitives are in grad_registry/segment_grad.py; unsorted_segment_sum
is in ops/array/indexed_slices_ops.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from . import math_ops, reduction_ops
from ..arg_errors import mode_error
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..array.indexed_slices_ops import unsorted_segment_sum
from ..array.join_ops import concat
from ..tensor_util import constant_value


def _identity(ufunc, dtype):
    """The value of an empty segment: TF's reduction identity for `ufunc`."""
    if ufunc is np.multiply:
        return 1
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.max if ufunc is np.minimum else info.min


def _segment_kernel(ufunc):
    def kernel(data, segment_ids, num_segments):
        n = int(num_segments)
        ids = np.asarray(segment_ids)
        if ids.size and ids.max() >= n:
            raise ValueError(f"segment id {ids.max()} is out of range [0, {n})")
        if data.shape[:ids.ndim] != ids.shape:
            raise ValueError(f"data.shape {data.shape} must start with segment_ids.shape "
                             f"{ids.shape}")
        out = np.full((n,) + data.shape[ids.ndim:], _identity(ufunc, data.dtype), data.dtype)
        keep = ids >= 0  # negative ids are dropped, as in TF
        ufunc.at(out, ids[keep], data[keep])
        return out
    kernel.__name__ = f"unsorted_segment_{ufunc.__name__}"
    return kernel


def _segment_infer(inputs, attrs):
    data, ids, num = inputs
    if not ids.dtype.is_integer:
        raise TypeError(f"segment_ids must be int32 or int64, got {ids.dtype.name}")
    if data.shape.rank is None or ids.shape.rank is None:
        return [(data.dtype, TensorShape(None))]
    n = constant_value(num)
    first = None if n is None else int(n)
    return [(data.dtype, TensorShape((first,) + data.shape.dims[ids.shape.rank:]))]


UNSORTED_SEGMENT_MAX = declare_op("UnsortedSegmentMax", _segment_kernel(np.maximum),
                                  _segment_infer, input_kinds="fiu", grad_outputs=(0,))
UNSORTED_SEGMENT_MIN = declare_op("UnsortedSegmentMin", _segment_kernel(np.minimum),
                                  _segment_infer, input_kinds="fiu", grad_outputs=(0,))
UNSORTED_SEGMENT_PROD = declare_op("UnsortedSegmentProd", _segment_kernel(np.multiply),
                                   _segment_infer, input_kinds="fciu", grad_outputs=(0,))


def _apply(op_def, data, segment_ids, num_segments, name):
    data = convert_to_tensor(data)
    segment_ids = convert_to_tensor(segment_ids)
    num_segments = convert_to_tensor(num_segments, dtype_hint=segment_ids.dtype)
    return apply_op(op_def, (data, segment_ids, num_segments), name=name)


def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None):
    """out[i] = max of data[j...] with segment_ids[j...] == i (lowest value if empty)."""
    return _apply(UNSORTED_SEGMENT_MAX, data, segment_ids, num_segments, name)


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None):
    """out[i] = min of data[j...] with segment_ids[j...] == i (highest value if empty)."""
    return _apply(UNSORTED_SEGMENT_MIN, data, segment_ids, num_segments, name)


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any,
                          name: Optional[str] = None):
    """out[i] = product of data[j...] with segment_ids[j...] == i (1 if empty)."""
    return _apply(UNSORTED_SEGMENT_PROD, data, segment_ids, num_segments, name)


def _segment_counts(data, segment_ids, num_segments):
    """Elements per segment, at least 1, shaped to broadcast against the segment sums."""
    ids = convert_to_tensor(segment_ids)
    counts = unsorted_segment_sum(array_ops.ones_like(ids, dtype=data.dtype), ids, num_segments)
    for _ in range(data.shape.rank - ids.shape.rank):
        counts = array_ops.expand_dims(counts, -1)
    return math_ops.maximum(counts, array_ops.ones_like(counts))


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: Optional[str] = None):
    """Segment sums divided by the segment sizes (0 for empty segments)."""
    data = convert_to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return math_ops.truediv(total, _segment_counts(data, segment_ids, num_segments), name=name)


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: Optional[str] = None):
    """Segment sums divided by the square roots of the segment sizes."""
    data = convert_to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    counts = _segment_counts(data, segment_ids, num_segments)
    return math_ops.truediv(total, math_ops.sqrt(counts), name=name)


def _sorted_count(segment_ids):
    """Sorted ids and their number of segments: the last id + 1 (0 for no ids)."""
    ids = convert_to_tensor(segment_ids)
    if not ids.dtype.is_integer:  # TF: the kernel's error eagerly, TypeError in a graph
        raise mode_error(f"segment_ids must be int32 or int64, got {ids.dtype.name}", TypeError)
    if ids.shape.rank is not None and ids.shape.rank != 1:
        raise mode_error(f"segment_ids should be a vector, got shape {ids.shape}", ValueError)
    value = constant_value(ids)
    if value is not None:
        if np.any(np.diff(value) < 0):
            raise InvalidArgumentError(None, None, "segment ids are not increasing")
        return ids, int(value[-1]) + 1 if value.size else 0
    # Sorted, so the largest id is the last; a leading -1 makes no ids give 0 segments.
    start = array_ops.fill([1], math_ops.cast(-1, ids.dtype))
    return ids, reduction_ops.reduce_max(concat([start, ids], 0)) + 1


def _empty_to_zero(result, data, ids, n):
    """TF's sorted segment min/max give 0 (not the reduction identity) for empty segments."""
    counts = unsorted_segment_sum(array_ops.ones_like(ids, dtype=data.dtype), ids, n)
    for _ in range(data.shape.rank - 1):
        counts = array_ops.expand_dims(counts, -1)
    return array_ops.where(counts > 0, result, array_ops.zeros_like(result))


def segment_sum(data: Any, segment_ids: Any, name: Optional[str] = None):
    """Sums over runs of sorted segment ids; there are (last id + 1) segments."""
    ids, n = _sorted_count(segment_ids)
    return unsorted_segment_sum(data, ids, n, name=name)


def segment_mean(data: Any, segment_ids: Any, name: Optional[str] = None):
    """Means over runs of sorted segment ids (0 for empty segments)."""
    ids, n = _sorted_count(segment_ids)
    return unsorted_segment_mean(data, ids, n, name=name)


def segment_prod(data: Any, segment_ids: Any, name: Optional[str] = None):
    """Products over runs of sorted segment ids (1 for empty segments)."""
    ids, n = _sorted_count(segment_ids)
    return unsorted_segment_prod(data, ids, n, name=name)


def segment_max(data: Any, segment_ids: Any, name: Optional[str] = None):
    """Maxima over runs of sorted segment ids (0 for empty segments)."""
    data = convert_to_tensor(data)
    ids, n = _sorted_count(segment_ids)
    return _empty_to_zero(unsorted_segment_max(data, ids, n, name=name), data, ids, n)


def segment_min(data: Any, segment_ids: Any, name: Optional[str] = None):
    """Minima over runs of sorted segment ids (0 for empty segments)."""
    data = convert_to_tensor(data)
    ids, n = _sorted_count(segment_ids)
    return _empty_to_zero(unsorted_segment_min(data, ids, n, name=name), data, ids, n)


__all__ = ["unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
           "unsorted_segment_mean", "unsorted_segment_sqrt_n", "segment_sum", "segment_mean",
           "segment_prod", "segment_max", "segment_min"]
