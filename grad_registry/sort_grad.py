"""Gradient of sort (ops/array/sort_ops.py). Unique has none, as in TensorFlow: differentiating
through it raises LookupError."""
from __future__ import annotations

from ..ops.array import array_ops, join_ops
from ..ops.array.creation_ops import range as range_op
from ..ops.array.indexed_slices_ops import unsorted_segment_sum
from ..ops.array.sort_ops import SORT
from .registry import RegisterGradient


@RegisterGradient(SORT.type, accepts_none=(1,))
def _sort_grad(op, grad, _):
    """dx[..., order[..., j]] = grad[..., j]: the sorted gradient scattered back through
    the permutation (a segment sum over flat positions)."""
    x = op.inputs[0]
    order = op.outputs[1]
    axis = op.get_attr("axis")
    rank = x.shape.rank
    perm = None
    if axis != rank - 1:  # move the sorted axis last
        perm = [a for a in range(rank) if a != axis] + [axis]
        grad = array_ops.transpose(grad, perm)
        order = array_ops.transpose(order, perm)
    n = grad.shape[-1] if grad.shape[-1] is not None else array_ops.shape(grad)[-1]
    rows = array_ops.reshape(order, join_ops.stack([-1, n]) if not isinstance(n, int)
                             else [-1, n])
    offsets = range_op(array_ops.shape(rows)[0]) * n
    flat = array_ops.reshape(rows + array_ops.expand_dims(offsets, 1), [-1])
    dx = unsorted_segment_sum(array_ops.reshape(grad, [-1]), flat, array_ops.size(grad))
    dx = array_ops.reshape(dx, array_ops.shape_tensor(grad))
    if perm is not None:
        inverse = [0] * rank
        for i, p in enumerate(perm):
            inverse[p] = i
        dx = array_ops.transpose(dx, inverse)
    return dx
