"""Gradients of gather and unsorted_segment_sum (ops/array/indexed_slices_ops.py)."""
from __future__ import annotations

from ..framework.indexed_slices import IndexedSlices
from ..ops.array import array_ops, join_ops
from ..ops.array.indexed_slices_ops import (GATHER, UNSORTED_SEGMENT_SUM, gather,
                                            unsorted_segment_sum)
from .registry import RegisterGradient


@RegisterGradient(GATHER.type)
def _gather_grad(op, grad):
    """axis 0: IndexedSlices(grad rows, indices); other axes: a dense segment sum."""
    params, indices = op.inputs
    axis = op.get_attr("axis")
    params_shape = array_ops.shape_tensor(params)
    if axis == 0:
        rows = array_ops.reshape(indices, [-1])
        if params.shape.is_fully_defined():
            values_shape = [-1] + params.shape.as_list()[1:]
        else:
            values_shape = join_ops.concat([[-1], params_shape[1:]], axis=0)
        return IndexedSlices(array_ops.reshape(grad, values_shape), rows, params_shape), None
    rank = params.shape.rank
    idx_rank = indices.shape.rank
    # Move the gathered axes to the front, segment-sum them, move the result back.
    perm = (list(range(axis, axis + idx_rank)) + list(range(axis))
            + list(range(axis + idx_rank, rank + idx_rank - 1)))
    moved = array_ops.transpose(grad, perm)
    size = params.shape[axis] if params.shape[axis] is not None else params_shape[axis]
    summed = unsorted_segment_sum(moved, indices, size)
    back = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank))
    return array_ops.transpose(summed, back), None


@RegisterGradient(UNSORTED_SEGMENT_SUM.type)
def _unsorted_segment_sum_grad(op, grad):
    """Each data element gets its segment's gradient (zero for dropped, negative ids)."""
    data, ids, _ = op.inputs
    keep = ids >= 0
    picked = gather(grad, array_ops.where(keep, ids, array_ops.zeros_like(ids)))
    for _ in range(data.shape.rank - ids.shape.rank):
        keep = array_ops.expand_dims(keep, -1)
    return array_ops.where(keep, picked, array_ops.zeros_like(picked)), None, None
