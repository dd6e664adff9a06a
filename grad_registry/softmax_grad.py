"""Gradients of softmax, log_softmax and the softmax cross-entropies (ops/nn/softmax_ops.py)."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math import math_ops, reduction_ops
from ..ops.nn import softmax_ops
from ..ops.nn.softmax_ops import LOG_SOFTMAX, SOFTMAX, SOFTMAX_XENT, SPARSE_SOFTMAX_XENT
from .registry import RegisterGradient


def _softmax_vjp(grad, y, axis):
    """(grad - sum(grad * y, axis)) * y: the softmax Jacobian (symmetric) applied to grad."""
    return (grad - reduction_ops.reduce_sum(grad * y, axis, keepdims=True)) * y


@RegisterGradient(SOFTMAX.type)
def _softmax_grad(op, grad):
    """(grad - sum(grad * y, axis)) * y, y = softmax(x)."""
    return _softmax_vjp(grad, op.outputs[0], op.get_attr("axis"))


@RegisterGradient(LOG_SOFTMAX.type)
def _log_softmax_grad(op, grad):
    """grad - sum(grad, axis) * exp(y), y = log_softmax(x)."""
    axis = op.get_attr("axis")
    return grad - reduction_ops.reduce_sum(grad, axis, keepdims=True) * math_ops.exp(op.outputs[0])


@RegisterGradient(SOFTMAX_XENT.type, accepts_none=(0, 1))
def _softmax_xent_grad(op, grad_loss, grad_backprop):
    """d logits = grad_loss * backprop, d labels = -grad_loss * log_softmax(logits), where
    backprop = sum(labels) * softmax(logits) - labels is differentiated too (second order)."""
    logits, labels = op.inputs
    axis = op.get_attr("axis")
    want_labels = 1 not in op.skip_input_indices
    dlogits = dlabels = None
    if grad_loss is not None:
        grad_loss = array_ops.expand_dims(grad_loss, axis)
        dlogits = grad_loss * op.outputs[1]
        if want_labels:
            dlabels = grad_loss * -softmax_ops.log_softmax(logits, axis)
    if grad_backprop is not None:
        probs = softmax_ops.softmax(logits, axis)
        total = reduction_ops.reduce_sum(labels, axis, keepdims=True)
        term = _softmax_vjp(grad_backprop, probs, axis) * total
        dlogits = term if dlogits is None else dlogits + term
        if want_labels:
            term = reduction_ops.reduce_sum(grad_backprop * probs, axis, keepdims=True) \
                - grad_backprop
            dlabels = term if dlabels is None else dlabels + term
    return dlogits, dlabels


@RegisterGradient(SPARSE_SOFTMAX_XENT.type, accepts_none=(0, 1))
def _sparse_softmax_xent_grad(op, grad_loss, grad_backprop):
    """d logits = grad_loss * (softmax - onehot(labels)) [+ softmax-VJP of grad_backprop]."""
    logits = op.inputs[0]
    dlogits = None
    if grad_loss is not None:
        dlogits = array_ops.expand_dims(grad_loss, -1) * op.outputs[1]
    if grad_backprop is not None:
        term = _softmax_vjp(grad_backprop, softmax_ops.softmax(logits, -1), -1)
        dlogits = term if dlogits is None else dlogits + term
    return dlogits, None
