"""Gradients of Conv3D / DepthwiseConv2dNative and their backprop ops
(ops/nn/conv_nd_ops.py), TF's: each is again an op of the same family."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.nn import conv_nd_ops as cn
from .registry import RegisterGradient


def _attrs(op) -> dict:
    return {"strides": op.get_attr("strides"), "padding": op.get_attr("padding"),
            "dilations": op.get_attr("dilations")}


def _forward_grad(op, grad):
    """(backprop_input(shape(x), w, grad), backprop_filter(x, shape(w), grad))."""
    x, w = op.inputs
    skip = op.skip_input_indices
    attrs = _attrs(op)
    dx = None if 0 in skip else cn.backprop_sizes(op, attrs, array_ops.shape_tensor(x), w,
                                                  grad, inputs=True)
    dw = None if 1 in skip else cn.backprop_sizes(op, attrs, array_ops.shape_tensor(w), x,
                                                  grad, inputs=False)
    return dx, dw


def _backprop_input_grad(op, grad):
    """(None, backprop_filter(grad, shape(w), dy), forward(grad, w)): linear in w and dy."""
    _, w, dy = op.inputs
    skip = op.skip_input_indices
    attrs = _attrs(op)
    dw = None if 1 in skip else cn.backprop_sizes(op, attrs, array_ops.shape_tensor(w), grad,
                                                  dy, inputs=False)
    ddy = None if 2 in skip else cn.forward_with(op, attrs, grad, w)
    return None, dw, ddy


def _backprop_filter_grad(op, grad):
    """(backprop_input(shape(x), grad, dy), None, forward(x, grad)): linear in x and dy."""
    x, _, dy = op.inputs
    skip = op.skip_input_indices
    attrs = _attrs(op)
    dx = None if 0 in skip else cn.backprop_sizes(op, attrs, array_ops.shape_tensor(x), grad,
                                                  dy, inputs=True)
    ddy = None if 2 in skip else cn.forward_with(op, attrs, x, grad)
    return dx, None, ddy


for _forward, _input, _filter in ((cn.CONV3D, cn.CONV3D_BACKPROP_INPUT, cn.CONV3D_BACKPROP_FILTER),
                                  (cn.DEPTHWISE, cn.DEPTHWISE_BACKPROP_INPUT,
                                   cn.DEPTHWISE_BACKPROP_FILTER)):
    RegisterGradient(_forward.type)(_forward_grad)
    RegisterGradient(_input.type)(_backprop_input_grad)
    RegisterGradient(_filter.type)(_backprop_filter_grad)
