"""Gradients of MaxPool3D, AvgPool3D, their gradient ops and MaxPoolWithArgmax
(ops/nn/pool_nd_ops.py), TF's. MaxPoolGradWithArgmax has no gradient, as in TF."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.nn import pool_nd_ops as pn
from ..ops.dispatch import apply_op
from .registry import RegisterGradient


def _attrs(op) -> dict:
    return {"ksize": op.get_attr("ksize"), "strides": op.get_attr("strides"),
            "padding": op.get_attr("padding")}


@RegisterGradient(pn.MAX_POOL3D.type)
def _max_pool3d_grad(op, grad):
    """MaxPool3DGrad(x, y, grad): grad routed to each window's first maximum."""
    return apply_op(pn.MAX_POOL3D_GRAD, (op.inputs[0], op.outputs[0], grad), _attrs(op))


@RegisterGradient(pn.MAX_POOL3D_GRAD.type)
def _max_pool3d_grad_grad(op, grad):
    """(0, 0, MaxPool3DGradGrad(x, y, grad)): the argmax is locally constant."""
    x, y = op.inputs[0], op.inputs[1]
    return (array_ops.zeros_like(x), array_ops.zeros_like(y),
            apply_op(pn.MAX_POOL3D_GRAD_GRAD, (x, y, grad), _attrs(op)))


@RegisterGradient(pn.MAX_POOL3D_GRAD_GRAD.type)
def _max_pool3d_grad_grad_grad(op, grad):
    """(0, 0, MaxPool3DGrad(x, y, grad))."""
    x, y = op.inputs[0], op.inputs[1]
    return (array_ops.zeros_like(x), array_ops.zeros_like(y),
            apply_op(pn.MAX_POOL3D_GRAD, (x, y, grad), _attrs(op)))


@RegisterGradient(pn.AVG_POOL3D.type)
def _avg_pool3d_grad(op, grad):
    """AvgPool3DGrad(shape(x), grad): each window's grad / count spread over it."""
    return apply_op(pn.AVG_POOL3D_GRAD, (array_ops.shape_tensor(op.inputs[0]), grad),
                    _attrs(op))


@RegisterGradient(pn.AVG_POOL3D_GRAD.type)
def _avg_pool3d_grad_grad(op, grad):
    """(None, avg_pool3d(grad)): linear in its gradient input (TF: stop_gradient(shape))."""
    return None, apply_op(pn.AVG_POOL3D, (grad,), _attrs(op))


@RegisterGradient(pn.MAX_POOL_WITH_ARGMAX.type)
def _max_pool_with_argmax_grad(op, grad, unused_argmax_grad):
    """MaxPoolGradWithArgmax(x, grad, argmax)."""
    attrs = dict(_attrs(op), include_batch_in_index=op.get_attr("include_batch_in_index"))
    return apply_op(pn.MAX_POOL_GRAD_WITH_ARGMAX, (op.inputs[0], grad, op.outputs[1]), attrs)
