"""Gradients of range, linspace and shape_n (ops/array/creation_ops.py)."""
from __future__ import annotations

from ..ops.math import math_ops, reduction_ops
from ..ops.array.creation_ops import LINSPACE, RANGE, SHAPE_N, range as range_op
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(RANGE.type)
NotDifferentiable(SHAPE_N.type)


@RegisterGradient(LINSPACE.type)
def _linspace_grad(op, grad):
    """out[i] = start + (stop - start) * w[i], w[i] = i / max(num - 1, 1): so
    dstop = sum(grad * w), dstart = sum(grad) - dstop."""
    num = op.inputs[2]
    steps = math_ops.maximum(num - 1, 1)
    weights = math_ops.cast(range_op(num), grad.dtype) / math_ops.cast(steps, grad.dtype)
    d_stop = reduction_ops.reduce_sum(grad * weights)
    return reduction_ops.reduce_sum(grad) - d_stop, d_stop, None
