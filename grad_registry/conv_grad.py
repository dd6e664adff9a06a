"""Gradients of conv2d and its backprop ops (ops/nn/conv_ops.py): each is again a conv op."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.nn import conv_ops
from ..ops.nn.conv_ops import CONV2D, CONV2D_BACKPROP_FILTER, CONV2D_BACKPROP_INPUT
from .registry import RegisterGradient


def _attrs(op) -> dict:
    return {"strides": op.get_attr("strides"), "padding": op.get_attr("padding"),
            "dilations": op.get_attr("dilations")}


@RegisterGradient(CONV2D.type)
def _conv2d_grad(op, grad):
    """(backprop_input(shape(x), w, grad), backprop_filter(x, shape(w), grad))."""
    x, w = op.inputs
    skip = op.skip_input_indices
    attrs = _attrs(op)
    dx = None if 0 in skip else conv_ops.conv2d_backprop_input(
        array_ops.shape_tensor(x), w, grad, **attrs)
    dw = None if 1 in skip else conv_ops.conv2d_backprop_filter(
        x, array_ops.shape_tensor(w), grad, **attrs)
    return dx, dw


@RegisterGradient(CONV2D_BACKPROP_INPUT.type)
def _conv2d_backprop_input_grad(op, grad):
    """(None, backprop_filter(grad, shape(w), dy), conv2d(grad, w)): the op is linear in w, dy."""
    _, w, dy = op.inputs
    skip = op.skip_input_indices
    attrs = _attrs(op)
    dw = None if 1 in skip else conv_ops.conv2d_backprop_filter(
        grad, array_ops.shape_tensor(w), dy, **attrs)
    ddy = None if 2 in skip else conv_ops.conv2d(grad, w, **attrs)
    return None, dw, ddy


@RegisterGradient(CONV2D_BACKPROP_FILTER.type)
def _conv2d_backprop_filter_grad(op, grad):
    """(backprop_input(shape(x), grad, dy), None, conv2d(x, grad)): linear in x, dy."""
    x, _, dy = op.inputs
    skip = op.skip_input_indices
    attrs = _attrs(op)
    dx = None if 0 in skip else conv_ops.conv2d_backprop_input(
        array_ops.shape_tensor(x), grad, dy, **attrs)
    ddy = None if 2 in skip else conv_ops.conv2d(x, grad, **attrs)
    return dx, None, ddy
