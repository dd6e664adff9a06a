"""Gradients of roll and ensure_shape (ops/array/array_more_ops.py), as TF's."""
from __future__ import annotations

from ..ops.array.array_more_ops import ENSURE_SHAPE, ROLL, roll
from .registry import RegisterGradient


@RegisterGradient(ROLL.type)
def _roll_grad(op, grad):
    """grad rolled back by -shift along the same axes."""
    _, shift, axis = op.inputs
    return roll(grad, -shift, axis), None, None


@RegisterGradient(ENSURE_SHAPE.type)
def _ensure_shape_grad(op, grad):
    """grad: the op passes its input through."""
    return grad
