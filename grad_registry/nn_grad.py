"""Gradients of the activations, l2_loss and bias_add (ops/nn/nn_ops.py), public ops only."""
from __future__ import annotations

from ..ops.array import array_ops, join_ops
from ..ops import constant_op
from ..ops.math import math_ops, reduction_ops
from ..ops.nn.nn_ops import (BIAS_ADD, ELU, L2_LOSS, LEAKY_RELU, RELU, RELU6, SELU, SELU_ALPHA,
                             SELU_SCALE)
from .broadcast import unbroadcast
from .registry import RegisterGradient


def _masked(condition, grad):
    """grad where condition holds, else 0 (a select, so inf * 0 never makes NaN); the 0
    is a broadcast scalar: no zeros array the size of grad is made and filled."""
    return array_ops.where(condition, grad, constant_op.constant(0, grad.dtype))


@RegisterGradient(RELU.type)
def _relu_grad(op, grad):
    """grad where y > 0, else 0 (y = relu(x))."""
    return _masked(math_ops.greater(op.outputs[0], 0), grad)


@RegisterGradient(RELU6.type)
def _relu6_grad(op, grad):
    """grad where 0 < x < 6, else 0."""
    x = op.inputs[0]
    return _masked(math_ops.logical_and(math_ops.greater(x, 0), math_ops.less(x, 6)), grad)


@RegisterGradient(ELU.type)
def _elu_grad(op, grad):
    """grad where y > 0, else grad * (y + 1) (y = elu(x))."""
    y = op.outputs[0]
    return array_ops.where(math_ops.greater(y, 0), grad, grad * (y + 1))


@RegisterGradient(SELU.type)
def _selu_grad(op, grad):
    """grad * scale where y > 0, else grad * (y + scale * alpha) (y = selu(x))."""
    y = op.outputs[0]
    return array_ops.where(math_ops.greater(y, 0), grad * SELU_SCALE,
                           grad * (y + SELU_SCALE * SELU_ALPHA))


@RegisterGradient(LEAKY_RELU.type)
def _leaky_relu_grad(op, grad):
    """grad where x > 0, else alpha * grad."""
    alpha = op.get_attr("alpha")
    return array_ops.where(math_ops.greater(op.inputs[0], 0), grad, grad * alpha)


@RegisterGradient(L2_LOSS.type)
def _l2_loss_grad(op, grad):
    """x * grad."""
    return op.inputs[0] * grad


@RegisterGradient(BIAS_ADD.type)
def _bias_add_grad(op, grad):
    """(grad, grad summed over every axis but the channel axis)."""
    bias = op.inputs[1]
    if 1 in op.skip_input_indices:
        return grad, None
    if not op.get_attr("data_format").startswith("NC"):
        return grad, unbroadcast(grad, bias)
    # NC...: sum the batch axis, then every axis after the channels (any rank).
    per_channel = array_ops.reshape(reduction_ops.reduce_sum(grad, 0), join_ops.concat(
        [array_ops.shape_tensor(bias), constant_op.constant([-1])], 0))
    return grad, reduction_ops.reduce_sum(per_channel, 1)
