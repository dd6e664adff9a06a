"""Gradients of concat and stack (ops/join_ops.py)."""
from __future__ import annotations

from ..ops import array_ops
from ..ops.join_ops import CONCAT, PACK
from .registry import RegisterGradient


@RegisterGradient(CONCAT.type)
def _concat_grad(op, grad):
    """grad sliced back into the pieces that were joined."""
    axis = op.get_attr("axis")
    sizes = []
    for t in op.inputs:
        d = t.shape[axis] if t.shape.rank is not None else None
        sizes.append(d if d is not None else array_ops.shape(t)[axis])
    return array_ops.split(grad, sizes, axis=axis)


@RegisterGradient(PACK.type)
def _pack_grad(op, grad):
    """grad unstacked along the new axis."""
    return array_ops.unstack(grad, num=len(op.inputs), axis=op.get_attr("axis"))
