"""Gradients of pooling (ops/nn/pooling_ops.py): each gradient op is linear in its last input."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.nn import pooling_ops
from ..ops.nn.pooling_ops import (AVG_POOL, AVG_POOL_GRAD, MAX_POOL, MAX_POOL_GRAD,
                                  MAX_POOL_GRAD_GRAD)
from .registry import RegisterGradient


def _attrs(op) -> dict:
    return {"ksize": op.get_attr("ksize"), "strides": op.get_attr("strides"),
            "padding": op.get_attr("padding")}


def _zeros(x):
    return array_ops.zeros(array_ops.shape_tensor(x), x.dtype)


@RegisterGradient(MAX_POOL.type)
def _max_pool_grad(op, grad):
    """grad routed to the first maximum of each window."""
    return pooling_ops.max_pool_grad(op.inputs[0], op.outputs[0], grad, **_attrs(op))


@RegisterGradient(MAX_POOL_GRAD.type)
def _max_pool_grad_grad(op, grad):
    """(0, 0, grad read at each window's maximum): the argmax is locally constant."""
    x, y, _ = op.inputs
    dgrad = None if 2 in op.skip_input_indices else \
        pooling_ops.max_pool_grad_grad(x, y, grad, **_attrs(op))
    return _zeros(x), _zeros(y), dgrad


@RegisterGradient(MAX_POOL_GRAD_GRAD.type)
def _max_pool_grad_grad_grad(op, grad):
    """(0, 0, grad routed to each window's maximum)."""
    x, y, _ = op.inputs
    dgrad = None if 2 in op.skip_input_indices else \
        pooling_ops.max_pool_grad(x, y, grad, **_attrs(op))
    return _zeros(x), _zeros(y), dgrad


@RegisterGradient(AVG_POOL.type)
def _avg_pool_grad(op, grad):
    """Each window's grad / count spread evenly over the window."""
    return pooling_ops.avg_pool_grad(array_ops.shape_tensor(op.inputs[0]), grad, **_attrs(op))


@RegisterGradient(AVG_POOL_GRAD.type)
def _avg_pool_grad_grad(op, grad):
    """(None, avg_pool(grad)): the op is linear in its gradient input."""
    attrs = _attrs(op)
    return None, pooling_ops.avg_pool2d(grad, attrs["ksize"], attrs["strides"], attrs["padding"])
