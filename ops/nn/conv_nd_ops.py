"""3-D convolution (`dg.nn.conv3d`, `conv3d_transpose`, TF's Conv3D and its V2 backprop ops)
and depthwise 2-D convolution (`dg.nn.depthwise_conv2d`, `depthwise_conv2d_backprop_input`
/ `_filter`, TF's DepthwiseConv2dNative ops), on channels-last windows of
ops/nn/window_nd.py. Each backprop op is the adjoint of the forward op in one argument, so
the gradients (grad_registry/conv_nd_grad.py) are again these ops, to any order."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from ..array.indexed_slices_ops import gather
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..shape_rules import check_same_dtype
from ..tensor_util import shape_from_tensor
from . import window_nd
from .conv_ops import check_padding


def _spatial(attrs: dict, name: str) -> List[int]:
    return list(attrs[name][1:-1])


def _check_kernel_attrs(attrs: dict, rank: int, op_type: str) -> None:
    """_check_attrs, and TF's CPU limit: Conv3D kernels support no dilation."""
    _check_attrs(attrs, rank, op_type)
    if op_type.startswith("Conv3D") and any(d != 1 for d in attrs["dilations"]):
        raise ValueError(f"CPU implementation of {op_type} currently only supports dilated "
                         f"rates of 1, got dilations {list(attrs['dilations'])}")


def _check_attrs(attrs: dict, rank: int, op_type: str) -> None:
    for name in ("strides", "dilations"):
        values = attrs[name]
        if len(values) != rank:
            raise ValueError(f"{op_type}: {name} must have {rank} entries, got {list(values)}")
        if values[0] != 1 or values[-1] != 1:
            raise ValueError(f"{op_type}: {name} in the batch and depth dimensions must be 1, "
                             f"got {list(values)}")
        if min(values) < 1:
            raise ValueError(f"{op_type}: {name} must be positive, got {list(values)}")


def _sizes(sizes: np.ndarray, rank: int, what: str) -> tuple:
    if np.shape(sizes) != (rank,):
        raise ValueError(f"{what} must be rank 1 (a vector of {rank} sizes), got shape "
                         f"{list(np.shape(sizes))}")
    return tuple(int(d) for d in sizes)


def _check_dy(dy, expected, op_type: str) -> None:
    if tuple(dy.shape) != tuple(expected):
        raise ValueError(f"{op_type}: out_backprop has shape {list(dy.shape)}, but the "
                         f"convolution's output shape is {list(expected)}")


def _expected(x_shape, filter_shape, out_channels, attrs) -> list:
    n = len(x_shape) - 2
    out = window_nd.out_shape(x_shape[1:1 + n], filter_shape[:n], _spatial(attrs, "strides"),
                              _spatial(attrs, "dilations"), attrs["padding"])
    return [x_shape[0]] + out + [out_channels]


def _check_depth(in_depth, filter_shape, op_type: str) -> None:
    n = len(filter_shape) - 2
    if in_depth != filter_shape[n]:
        raise ValueError(f"{op_type}: input depth ({in_depth}) must equal the filter's input "
                         f"depth ({filter_shape[n]}) (filter shape {list(filter_shape)})")


# -- kernels --------------------------------------------------------------------------------
def _view(x, ksize, attrs):
    return window_nd.patches(x, ksize, _spatial(attrs, "strides"), _spatial(attrs, "dilations"),
                             attrs["padding"])


def _scatter(tap, shape, ksize, attrs, dtype):
    return window_nd.scatter(tap, shape, ksize, _spatial(attrs, "strides"),
                             _spatial(attrs, "dilations"), attrs["padding"], dtype)


def _conv_kernel(op_type: str, depthwise: bool):
    def kernel(x, w, **attrs):
        _check_kernel_attrs(attrs, x.ndim, op_type)
        if x.ndim != w.ndim:
            raise ValueError(f"{op_type}: input and filter must have the same rank, got "
                             f"{list(x.shape)} and {list(w.shape)}")
        _check_depth(x.shape[-1], w.shape, op_type)
        n = x.ndim - 2
        view = _view(x, w.shape[:n], attrs)
        if depthwise:
            out = np.einsum("bhwijc,ijcm->bhwcm", view, w)
            return np.ascontiguousarray(out.reshape(out.shape[:3] + (-1,))).astype(x.dtype)
        axes = list(range(1 + n, 2 + 2 * n))
        return np.tensordot(view, w, axes=(axes, list(range(n + 1)))).astype(x.dtype)
    return kernel


def _backprop_input_kernel(op_type: str, depthwise: bool):
    def kernel(input_sizes, w, dy, **attrs):
        shape = _sizes(input_sizes, w.ndim, "input_sizes")
        _check_kernel_attrs(attrs, len(shape), op_type)
        _check_depth(shape[-1], w.shape, op_type)
        n = len(shape) - 2
        out_channels = w.shape[-1] * (w.shape[-2] if depthwise else 1)
        _check_dy(dy, _expected(shape, w.shape, out_channels, attrs), op_type)
        if depthwise:
            dy_c = dy.reshape(dy.shape[:-1] + w.shape[-2:])

            def tap(offset):
                return np.einsum("bhwcm,cm->bhwc", dy_c, w[offset])
        else:
            def tap(offset):
                return dy @ w[offset].T
        return _scatter(tap, shape, w.shape[:n], attrs, w.dtype)
    return kernel


def _backprop_filter_kernel(op_type: str, depthwise: bool):
    def kernel(x, filter_sizes, dy, **attrs):
        shape = _sizes(filter_sizes, x.ndim, "filter_sizes")
        _check_kernel_attrs(attrs, x.ndim, op_type)
        _check_depth(x.shape[-1], shape, op_type)
        n = x.ndim - 2
        out_channels = shape[-1] * (shape[-2] if depthwise else 1)
        _check_dy(dy, _expected(x.shape, shape, out_channels, attrs), op_type)
        view = _view(x, shape[:n], attrs)
        if depthwise:
            dy_c = dy.reshape(dy.shape[:-1] + tuple(shape[-2:]))
            return np.einsum("bhwijc,bhwcm->ijcm", view, dy_c).astype(x.dtype)
        axes = list(range(n + 1))
        return np.tensordot(view, dy, axes=(axes, axes)).astype(x.dtype)
    return kernel


# -- shape rules ------------------------------------------------------------------------------
def _out_shape(x_shape: TensorShape, w_shape: TensorShape, attrs, depthwise: bool,
               rank: int) -> TensorShape:
    if x_shape.rank is not None and x_shape.rank != rank:
        raise ValueError(f"input must be {rank}-dimensional, got shape {x_shape}")
    if w_shape.rank is not None and w_shape.rank != rank:
        raise ValueError(f"filter must be {rank}-dimensional, got shape {w_shape}")
    n = rank - 2
    ks = w_shape.as_list()[:n] if w_shape.rank is not None else [None] * n
    out_c = None
    if w_shape.rank is not None and w_shape[-1] is not None:
        out_c = w_shape[-1] * w_shape[-2] if depthwise and w_shape[-2] is not None else \
            (None if depthwise else w_shape[-1])
    if x_shape.rank is None:
        return TensorShape([None] * (rank - 1) + [out_c])
    if w_shape.rank is not None and None not in (x_shape[-1], w_shape[n]) and \
            x_shape[-1] != w_shape[n]:
        raise ValueError(f"input depth ({x_shape[-1]}) must equal the filter's input depth "
                         f"({w_shape[n]})")
    spatial = window_nd.out_shape(x_shape.as_list()[1:1 + n], ks, _spatial(attrs, "strides"),
                                  _spatial(attrs, "dilations"), attrs["padding"])
    return TensorShape([x_shape[0]] + spatial + [out_c])


def _conv_infer(depthwise: bool, rank: int):
    def infer(inputs, attrs):
        dtype = check_same_dtype(inputs)
        _check_attrs(attrs, rank, "conv")
        return [(dtype, _out_shape(inputs[0].shape, inputs[1].shape, attrs, depthwise, rank))]
    return infer


def _sizes_shape(sizes, rank: int) -> TensorShape:
    if not sizes.dtype.is_integer:
        raise TypeError(f"sizes must be an integer tensor, got {sizes.dtype.name}")
    if sizes.shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {sizes.shape.rank} for the sizes "
                         f"input")
    shape = shape_from_tensor(sizes)
    return TensorShape((None,) * rank) if shape.rank is None else shape


def _backprop_input_infer(rank: int):
    def infer(inputs, attrs):
        dtype = check_same_dtype(inputs[1:])
        return [(dtype, _sizes_shape(inputs[0], rank))]
    return infer


def _backprop_filter_infer(rank: int):
    def infer(inputs, attrs):
        dtype = check_same_dtype((inputs[0], inputs[2]))
        return [(dtype, _sizes_shape(inputs[1], rank))]
    return infer


def _declare(prefix: str, input_type: str, filter_type: str, depthwise: bool, rank: int):
    forward = declare_op(prefix, _conv_kernel(prefix, depthwise), _conv_infer(depthwise, rank),
                         input_kinds="f", grad_inputs={0: (1,), 1: (0,)},
                         same_dtype=slice(None))
    backprop_input = declare_op(input_type, _backprop_input_kernel(input_type, depthwise),
                                _backprop_input_infer(rank), grad_inputs={1: (2,), 2: (1,)})
    backprop_filter = declare_op(filter_type, _backprop_filter_kernel(filter_type, depthwise),
                                 _backprop_filter_infer(rank), input_kinds="f",
                                 grad_inputs={0: (2,), 2: (0,)})
    return forward, backprop_input, backprop_filter


CONV3D, CONV3D_BACKPROP_INPUT, CONV3D_BACKPROP_FILTER = _declare(
    "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", False, 5)
DEPTHWISE, DEPTHWISE_BACKPROP_INPUT, DEPTHWISE_BACKPROP_FILTER = _declare(
    "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter", True, 4)
KIND = {CONV3D.type: (CONV3D, CONV3D_BACKPROP_INPUT, CONV3D_BACKPROP_FILTER),
        DEPTHWISE.type: (DEPTHWISE, DEPTHWISE_BACKPROP_INPUT, DEPTHWISE_BACKPROP_FILTER)}
for _ops in list(KIND.values()):
    for _op in _ops[1:]:
        KIND[_op.type] = _ops


# -- public functions -------------------------------------------------------------------------
def _full(value: Any, rank: int, name: str, channels_first: bool) -> List[int]:
    """An int or a list of 1, rank-2 or rank ints as a channels-last list of `rank`."""
    values = [int(value)] if np.ndim(value) == 0 else [int(v) for v in value]
    n = rank - 2
    if len(values) == 1:
        values = values * n
    if len(values) == n:
        return [1] + values + [1]
    if len(values) != rank:
        raise ValueError(f"{name} should be of length 1, {n} or {rank}, got {len(values)}")
    if channels_first:
        values = [values[0]] + values[2:] + [values[1]]
    return values


def conv_attrs(strides: Any, padding: Any, dilations: Any, rank: int,
               channels_first: bool) -> dict:
    return {"strides": _full(strides, rank, "strides", channels_first),
            "padding": check_padding(padding),
            "dilations": _full(1 if dilations is None else dilations, rank, "dilations",
                               channels_first)}


def _channels_first(data_format: Optional[str], rank: int) -> bool:
    last, first = ("NHWC", "NCHW") if rank == 4 else ("NDHWC", "NCDHW")
    data_format = data_format or last
    if data_format not in (last, first):
        raise ValueError(f"data_format must be '{last}' or '{first}', got {data_format!r}")
    return data_format == first


def _to_last(x: Any, first: bool, rank: int):
    return array_ops.transpose(x, [0] + list(range(2, rank)) + [1]) if first else x


def _to_first(y: Any, first: bool, rank: int):
    return array_ops.transpose(y, [0, rank - 1] + list(range(1, rank - 1))) if first else y


def _sizes_last(sizes: Any, first: bool, rank: int):
    if not first:
        return convert_to_tensor(sizes)
    order = [0] + list(range(2, rank)) + [1]
    if isinstance(sizes, (list, tuple)):
        return convert_to_tensor([sizes[i] for i in order])
    return gather(convert_to_tensor(sizes), order)


def _forward(op_def, input, filters, strides, padding, data_format, dilations, name,  # noqa: A002
             rank):
    first = _channels_first(data_format, rank)
    attrs = conv_attrs(strides, padding, dilations, rank, first)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    return _to_first(apply_op(op_def, (_to_last(x, first, rank), w), attrs, name), first, rank)


def _backprop_input(op_def, input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                    data_format, dilations, name, rank):
    first = _channels_first(data_format, rank)
    attrs = conv_attrs(strides, padding, dilations, rank, first)
    w = convert_to_tensor(filter)
    dy = _to_last(convert_to_tensor(out_backprop, dtype_hint=w.dtype), first, rank)
    dx = apply_op(op_def, (_sizes_last(input_sizes, first, rank), w, dy), attrs, name)
    return _to_first(dx, first, rank)


def _backprop_filter(op_def, input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                     data_format, dilations, name, rank):
    first = _channels_first(data_format, rank)
    attrs = conv_attrs(strides, padding, dilations, rank, first)
    x = _to_last(convert_to_tensor(input), first, rank)
    dy = _to_last(convert_to_tensor(out_backprop, dtype_hint=x.dtype), first, rank)
    return apply_op(op_def, (x, convert_to_tensor(filter_sizes), dy), attrs, name)


def conv3d(input: Any, filters: Any, strides: Any, padding: Any,  # noqa: A002 (TF's name)
           data_format: str = "NDHWC", dilations: Any = None, name: Optional[str] = None):
    """3-D convolution of input [N, D, H, W, C] with filters [KD, KH, KW, C, O]."""
    return _forward(CONV3D, input, filters, strides, padding, data_format, dilations, name, 5)


def conv3d_backprop_input_v2(input_sizes: Any, filter: Any, out_backprop: Any,  # noqa: A002
                             strides: Any, padding: Any, data_format: str = "NDHWC",
                             dilations: Any = None, name: Optional[str] = None):
    """The gradient of conv3d in its input, of shape `input_sizes`."""
    return _backprop_input(CONV3D_BACKPROP_INPUT, input_sizes, filter, out_backprop, strides,
                           padding, data_format, dilations, name, 5)


def conv3d_backprop_filter_v2(input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                              strides: Any, padding: Any, data_format: str = "NDHWC",
                              dilations: Any = None, name: Optional[str] = None):
    """The gradient of conv3d in its filter, of shape `filter_sizes`."""
    return _backprop_filter(CONV3D_BACKPROP_FILTER, input, filter_sizes, out_backprop, strides,
                            padding, data_format, dilations, name, 5)


def conv3d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                     padding: Any = "SAME", data_format: str = "NDHWC", dilations: Any = None,
                     name: Optional[str] = None):
    """The transpose of conv3d (filters [KD, KH, KW, out_channels, in_channels])."""
    return conv3d_backprop_input_v2(output_shape, filters, input, strides, padding,
                                    data_format, dilations, name)


def depthwise_conv2d_native(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                            data_format: str = "NHWC", dilations: Any = None,
                            name: Optional[str] = None):
    """Each input channel convolved with its own `channel_multiplier` filters:
    filter [KH, KW, C, M] gives C * M output channels (TF's DepthwiseConv2dNative)."""
    return _forward(DEPTHWISE, input, filter, strides, padding, data_format, dilations, name, 4)


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                     data_format: Optional[str] = None, dilations: Any = None,
                     name: Optional[str] = None):
    """tf.nn.depthwise_conv2d: strides of length 4; dilations (the `rate`) of length 2."""
    if np.ndim(strides) == 0 or len(strides) != 4:
        raise ValueError(f"strides must be a list of 4 ints, got {strides!r}")
    return depthwise_conv2d_native(input, filter, strides, padding, data_format or "NHWC",
                                   dilations, name)


def depthwise_conv2d_backprop_input(input_sizes: Any, filter: Any,  # noqa: A002
                                    out_backprop: Any, strides: Any, padding: Any,
                                    data_format: str = "NHWC", dilations: Any = None,
                                    name: Optional[str] = None):
    """The gradient of depthwise_conv2d in its input."""
    return _backprop_input(DEPTHWISE_BACKPROP_INPUT, input_sizes, filter, out_backprop,
                           strides, padding, data_format, dilations, name, 4)


def depthwise_conv2d_backprop_filter(input: Any, filter_sizes: Any,  # noqa: A002
                                     out_backprop: Any, strides: Any, padding: Any,
                                     data_format: str = "NHWC", dilations: Any = None,
                                     name: Optional[str] = None):
    """The gradient of depthwise_conv2d in its filter."""
    return _backprop_filter(DEPTHWISE_BACKPROP_FILTER, input, filter_sizes, out_backprop,
                            strides, padding, data_format, dilations, name, 4)


def backprop_sizes(op_def: Any, attrs: dict, sizes: Any, other: Any, dy: Any, inputs: bool,
                   name: Optional[str] = None):
    """A backprop op of `op_def`'s family on channels-last tensors and explicit attrs (the
    gradients' entry point): inputs=True, the input's gradient (sizes, filter, dy);
    inputs=False, the filter's (input, sizes, dy)."""
    ops_ = KIND[op_def.type]
    if inputs:
        return apply_op(ops_[1], (sizes, other, dy), attrs, name)
    return apply_op(ops_[2], (other, sizes, dy), attrs, name)


def forward_with(op_def: Any, attrs: dict, x: Any, w: Any):
    """The forward op of `op_def`'s family on channels-last tensors and explicit attrs."""
    return apply_op(KIND[op_def.type][0], (x, w), attrs)


NN_NAMES = {"conv3d": conv3d, "conv3d_transpose": conv3d_transpose,
            "conv3d_backprop_filter_v2": conv3d_backprop_filter_v2,
            "depthwise_conv2d": depthwise_conv2d,
            "depthwise_conv2d_backprop_input": depthwise_conv2d_backprop_input,
            "depthwise_conv2d_backprop_filter": depthwise_conv2d_backprop_filter}
V1_NN_NAMES = {"conv3d_backprop_filter_v2": conv3d_backprop_filter_v2,
               "depthwise_conv2d_native": depthwise_conv2d_native,
               "depthwise_conv2d_native_backprop_input": depthwise_conv2d_backprop_input,
               "depthwise_conv2d_native_backprop_filter": depthwise_conv2d_backprop_filter}
