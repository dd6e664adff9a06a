"""Gradients of LRN (ops/nn/lrn_ops.py) and Dilation2D (ops/nn/dilation_ops.py), TF's: each
is its backprop op, which (as in TF) has no gradient of its own."""
from __future__ import annotations

from ..ops.nn.dilation_ops import DILATION2D, dilation2d_backprop
from ..ops.nn.lrn_ops import LRN, lrn_grad
from .registry import RegisterGradient


@RegisterGradient(LRN.type)
def _lrn_grad(op, grad):
    """LRNGrad(grad, x, y) with the op's radius, bias, alpha and beta."""
    return lrn_grad(grad, op.inputs[0], op.outputs[0], op.get_attr("depth_radius"),
                    op.get_attr("bias"), op.get_attr("alpha"), op.get_attr("beta"))


@RegisterGradient(DILATION2D.type)
def _dilation2d_grad(op, grad):
    """(Dilation2DBackpropInput, Dilation2DBackpropFilter) of (x, w, grad)."""
    attrs = {"strides": op.get_attr("strides"), "rates": op.get_attr("rates"),
             "padding": op.get_attr("padding")}
    x, w = op.inputs
    return (dilation2d_backprop("input", x, w, grad, attrs),
            dilation2d_backprop("filter", x, w, grad, attrs))
