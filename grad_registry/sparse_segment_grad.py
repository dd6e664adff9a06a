"""Gradients of the sparse segment reductions (ops/math/sparse_segment_ops.py): each segment's
gradient (divided by its count for mean, by sqrt(count) for sqrt_n) gathered to the entries
of the segment and added back to the data rows they read: TF's dense gradient
(SparseSegment*Grad), composed of gather and unsorted_segment_sum."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.array.indexed_slices_ops import gather, unsorted_segment_sum
from ..ops.math import math_ops
from ..ops.math import sparse_segment_ops as ss
from .registry import RegisterGradient


def _grad(norm):
    def gradient(op, grad):
        data, indices, segment_ids = op.inputs[:3]
        if norm is not None:
            n = array_ops.shape_tensor(grad)[0]
            ones = array_ops.ones_like(segment_ids, dtype=grad.dtype)
            counts = math_ops.maximum(unsorted_segment_sum(ones, segment_ids, n), 1)
            scale = math_ops.sqrt(counts) if norm == "sqrtn" else counts
            rank = grad.shape.rank
            if rank is None:
                raise ValueError(f"{op.type}'s gradient needs the gradient's rank")
            scale = array_ops.reshape(scale, [-1] + [1] * (rank - 1))
            grad = grad / scale
        dim0 = array_ops.shape_tensor(data)[0]
        dx = unsorted_segment_sum(gather(grad, segment_ids), indices, dim0)
        return (dx,) + (None,) * (len(op.inputs) - 1)
    return gradient


for _norm, (_plain, _with_n) in ((None, (ss.SPARSE_SEGMENT_SUM, ss.SPARSE_SEGMENT_SUM_N)),
                                 ("mean", (ss.SPARSE_SEGMENT_MEAN, ss.SPARSE_SEGMENT_MEAN_N)),
                                 ("sqrtn", (ss.SPARSE_SEGMENT_SQRT_N,
                                            ss.SPARSE_SEGMENT_SQRT_N_N))):
    RegisterGradient(_plain.type)(_grad(_norm))
    RegisterGradient(_with_n.type)(_grad(_norm))
