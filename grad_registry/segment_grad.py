"""Gradients of unsorted_segment_max/min/prod (ops/math/segment_ops.py), as TF's."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math import math_ops
from ..ops.array.indexed_slices_ops import gather, unsorted_segment_sum
from ..ops.math.segment_ops import (UNSORTED_SEGMENT_MAX, UNSORTED_SEGMENT_MIN,
                                    UNSORTED_SEGMENT_PROD, unsorted_segment_prod)
from .registry import RegisterGradient


def _gather_kept(params, ids, data):
    """params[ids] per data element, 0 where the id is negative (dropped); shaped like data."""
    keep = ids >= 0
    picked = gather(params, array_ops.where(keep, ids, array_ops.zeros_like(ids)))
    for _ in range(data.shape.rank - ids.shape.rank):
        keep = array_ops.expand_dims(keep, -1)
    keep = array_ops.broadcast_to(keep, array_ops.shape(picked))
    return array_ops.where(keep, picked, array_ops.zeros_like(picked)), keep


def _segment_extremum_grad(op, grad):
    """grad split evenly among the elements equal to their segment's extremum."""
    data, ids, num_segments = op.inputs
    extremum, keep = _gather_kept(op.outputs[0], ids, data)
    selected = math_ops.logical_and(math_ops.equal(data, extremum), keep)
    count = unsorted_segment_sum(math_ops.cast(selected, grad.dtype), ids, num_segments)
    share, _ = _gather_kept(grad / count, ids, data)
    return array_ops.where(selected, share, array_ops.zeros_like(share)), None, None


RegisterGradient(UNSORTED_SEGMENT_MAX.type)(_segment_extremum_grad)
RegisterGradient(UNSORTED_SEGMENT_MIN.type)(_segment_extremum_grad)


@RegisterGradient(UNSORTED_SEGMENT_PROD.type)
def _unsorted_segment_prod_grad(op, grad):
    """grad * (product of the segment's other elements): the product over x where x != 0,
    the product of the non-zeros for a segment's single zero, 0 with two or more zeros."""
    data, ids, num_segments = op.inputs
    is_zero = math_ops.equal(data, 0)
    zeros = unsorted_segment_sum(math_ops.cast(is_zero, "int32"), ids, num_segments)
    grad = array_ops.where(zeros > 1, array_ops.zeros_like(grad), grad)
    non_zero = array_ops.where(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = unsorted_segment_prod(non_zero, ids, num_segments)
    product, _ = _gather_kept(op.outputs[0], ids, data)
    others, _ = _gather_kept(non_zero_prod, ids, data)
    partial = array_ops.where(is_zero, others, product / non_zero)
    upstream, _ = _gather_kept(grad, ids, data)
    return upstream * partial, None, None
