"""Grayscale morphological dilation (`dg.nn.dilation2d`, TF's Dilation2D and its two backprop
ops) and erosion (`dg.nn.erosion2d`, composed as TF's): out = max over the window of
input + filter, per channel; SAME padding never wins the max. The backprop ops route the
gradient to each window's first maximum (in the input, or in the filter); they have no
gradient, as in TF."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array.manip_ops import reverse
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..math import math_ops
from . import window_nd
from .conv_ops import check_padding


def _check(x, w, attrs, op_type: str) -> None:
    if x.ndim != 4 or w.ndim != 3:
        raise ValueError(f"{op_type}: input must be 4-D and filter 3-D, got shapes "
                         f"{list(x.shape)} and {list(w.shape)}")
    if x.shape[3] != w.shape[2]:
        raise ValueError(f"{op_type}: input and filter must have the same depth: "
                         f"{x.shape[3]} vs {w.shape[2]}")
    for name in ("strides", "rates"):
        values = attrs[name]
        if len(values) != 4 or values[0] != 1 or values[3] != 1 or min(values) < 1:
            raise ValueError(f"{op_type}: {name} must be [1, a, b, 1] with positive a, b, got "
                             f"{list(values)}")


def _scores(x, w, attrs):
    """[N, OH, OW, KH*KW, C] window values plus the filter (padding: -inf)."""
    view = window_nd.patches(x, w.shape[:2], attrs["strides"][1:3], attrs["rates"][1:3],
                             attrs["padding"], -np.inf)
    n, oh, ow, kh, kw, c = view.shape
    return (view + w).reshape(n, oh, ow, kh * kw, c)


def _dilation(x, w, **attrs):
    _check(x, w, attrs, "Dilation2D")
    return _scores(x, w, attrs).max(axis=3).astype(x.dtype)


def _check_grad(x, w, dy, attrs, op_type):
    _check(x, w, attrs, op_type)
    expected = _dilation(x, w, **attrs).shape
    if dy.shape != expected:
        raise ValueError(f"{op_type}: out_backprop has shape {list(dy.shape)}, expected "
                         f"{list(expected)}")


def _backprop_input(x, w, dy, **attrs):
    _check_grad(x, w, dy, attrs, "Dilation2DBackpropInput")
    best = _scores(x, w, attrs).argmax(axis=3)
    kw = w.shape[1]

    def tap(offset):
        return np.where(best == offset[0] * kw + offset[1], dy, 0)
    return window_nd.scatter(tap, x.shape, w.shape[:2], attrs["strides"][1:3],
                             attrs["rates"][1:3], attrs["padding"], dy.dtype)


def _backprop_filter(x, w, dy, **attrs):
    _check_grad(x, w, dy, attrs, "Dilation2DBackpropFilter")
    best = _scores(x, w, attrs).argmax(axis=3)          # [N, OH, OW, C]
    kh, kw, c = w.shape
    out = np.zeros((kh * kw, c), dy.dtype)
    channel = np.broadcast_to(np.arange(c), best.shape)
    np.add.at(out, (best.reshape(-1), channel.reshape(-1)), dy.reshape(-1))
    return out.reshape(w.shape)


def _infer(inputs, attrs):
    x, w = inputs[0], inputs[1]
    if x.dtype != w.dtype:
        raise TypeError(f"Dilation2D: input {x.dtype.name} and filter {w.dtype.name} differ")
    if x.shape.rank is None or w.shape.rank is None:
        return [(x.dtype, TensorShape((None,) * 4))]
    dims, ks = x.shape.as_list(), w.shape.as_list()
    out = window_nd.out_shape(dims[1:3], ks[:2], attrs["strides"][1:3], attrs["rates"][1:3],
                              attrs["padding"])
    return [(x.dtype, TensorShape([dims[0]] + out + [dims[3]]))]


DILATION2D = declare_op("Dilation2D", _dilation, _infer, input_kinds="fiu",
                        same_dtype=slice(None))
DILATION2D_BACKPROP_INPUT = declare_op("Dilation2DBackpropInput", _backprop_input,
                                       lambda inputs, attrs: [(inputs[0].dtype,
                                                               inputs[0].shape)],
                                       input_kinds="fiu")
DILATION2D_BACKPROP_FILTER = declare_op("Dilation2DBackpropFilter", _backprop_filter,
                                        lambda inputs, attrs: [(inputs[1].dtype,
                                                                inputs[1].shape)],
                                        input_kinds="fiu")


def _attrs(strides: Any, padding: Any, dilations: Any) -> dict:
    return {"strides": [int(s) for s in strides], "rates": [int(d) for d in dilations],
            "padding": check_padding(padding)}


def dilation2d(input: Any, filters: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NHWC", dilations: Any = None, name: Optional[str] = None):
    """max over each window of input + filters, per channel (filters [KH, KW, C])."""
    if data_format != "NHWC":
        raise ValueError(f"dilation2d supports only NHWC, got {data_format!r}")
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    return apply_op(DILATION2D, (x, w), _attrs(strides, padding, dilations or [1, 1, 1, 1]),
                    name)


def erosion2d(value: Any, filters: Any, strides: Any, padding: Any, data_format: str,
              dilations: Any, name: Optional[str] = None):
    """min over each window of value - filters (TF: -dilation2d(-value, reversed filters))."""
    w = reverse(convert_to_tensor(filters), [0, 1])
    return math_ops.negative(dilation2d(math_ops.negative(value), w, strides, padding,
                                        data_format, dilations), name=name)


def dilation2d_backprop(op_type: str, x: Any, w: Any, dy: Any, attrs: dict):
    """Dilation2DBackpropInput / Filter on explicit attrs (the gradient's entry point)."""
    op_def = DILATION2D_BACKPROP_INPUT if op_type == "input" else DILATION2D_BACKPROP_FILTER
    return apply_op(op_def, (x, w, dy), attrs)


NN_NAMES = {"dilation2d": dilation2d, "erosion2d": erosion2d}
