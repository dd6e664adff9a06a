"""Gradients of array ops (ops/array/array_ops.py)."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math import reduction_ops
from ..ops.array.array_ops import (BROADCAST_TO, EXPAND_DIMS, FILL, SQUEEZE, TRANSPOSE, IDENTITY,
                                   IDENTITY_N, ONES_LIKE, PLACEHOLDER, RANK, RESHAPE, SELECT, SHAPE,
                                   SIZE, STOP_GRADIENT, SUM_TO_SHAPE, WHERE_INDICES, ZEROS_LIKE)
from ..ops.constant_op import CONST
from .broadcast import unbroadcast
from .registry import NotDifferentiable, RegisterGradient

for _op in (CONST, PLACEHOLDER, SHAPE, SIZE, RANK, STOP_GRADIENT, ZEROS_LIKE, ONES_LIKE,
            WHERE_INDICES):
    NotDifferentiable(_op.type)


@RegisterGradient(FILL.type)
def _fill_grad(op, grad):
    """Every element is the scalar value: d value = sum(grad); none for the dims."""
    return None, reduction_ops.reduce_sum(grad)


@RegisterGradient(IDENTITY.type)
def _identity_grad(op, grad):
    """grad."""
    return grad


@RegisterGradient(IDENTITY_N.type, accepts_none=range(1 << 16))
def _identity_n_grad(op, *grads):
    """Each output's gradient goes to its input (None stays None)."""
    return grads


@RegisterGradient(RESHAPE.type)
def _reshape_grad(op, grad):
    """grad reshaped to the input's shape."""
    x = op.inputs[0]
    target = x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
    return array_ops.reshape(grad, target), None


@RegisterGradient(BROADCAST_TO.type)
def _broadcast_to_grad(op, grad):
    """grad summed over the broadcast axes."""
    return unbroadcast(grad, op.inputs[0]), None


@RegisterGradient(SUM_TO_SHAPE.type)
def _sum_to_shape_grad(op, grad):
    """grad broadcast back to the input's shape."""
    x = op.inputs[0]
    target = x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
    return array_ops.broadcast_to(grad, target), None


@RegisterGradient(SELECT.type)
def _select_grad(op, grad):
    """grad to x where the condition holds, to y elsewhere."""
    cond, x, y = op.inputs
    zeros = array_ops.zeros_like(grad)
    return (None, unbroadcast(array_ops.where(cond, grad, zeros), x),
            unbroadcast(array_ops.where(cond, zeros, grad), y))


@RegisterGradient(EXPAND_DIMS.type)
def _expand_dims_grad(op, grad):
    """grad reshaped back to the input's shape."""
    return _reshape_grad(op, grad)[0]


@RegisterGradient(SQUEEZE.type)
def _squeeze_grad(op, grad):
    """grad reshaped back to the input's shape."""
    return _reshape_grad(op, grad)[0]


@RegisterGradient(TRANSPOSE.type)
def _transpose_grad(op, grad):
    """grad transposed by the inverse permutation."""
    perm = op.get_attr("perm")
    if perm is None:
        return array_ops.transpose(grad)
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return array_ops.transpose(grad, inverse)
