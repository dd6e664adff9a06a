"""dg.nn.conv2d and its two backprop ops (NHWC). Gradients: grad_registry/conv_grad.py.

Kernels are im2col by stride tricks: a read-only view of every window of the
padded input, contracted with the filter by one tensordot. The backprop ops
are ops of their own (as in TF) so that conv2d is differentiable to any order:
each one's gradient is again a conv2d or a backprop op. The window helpers
here (`window_geometry`, `window_patches`, `window_attr`) also serve pooling.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops, manip_ops, slicing_ops
from ..arg_errors import mode_error
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..array.indexed_slices_ops import gather
from ..shape_rules import check_same_dtype
from ..tensor_util import shape_from_tensor

_as_strided = np.lib.stride_tricks.as_strided


# -- window helpers shared with pooling ------------------------------------------------
def window_geometry(size: Optional[int], k: Optional[int], stride: int, dilation: int,
                    padding: str) -> Tuple[Optional[int], int, int]:
    """(output size, padding before, padding after) along one spatial axis (TF's rule)."""
    if size is None or k is None:
        return None, 0, 0
    effective = (k - 1) * dilation + 1
    if padding == "VALID":
        out = (size - effective + stride) // stride
        if out < 0:
            raise ValueError(f"Computed output size would be negative: {out} [input_size: "
                             f"{size}, effective_filter_size: {effective}, stride: {stride}]")
        return out, 0, 0
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2, total - total // 2


def window_patches(x: np.ndarray, kh: int, kw: int, strides: Sequence[int], padding: str,
                   dilations: Sequence[int] = (1, 1, 1, 1), pad_value: Any = 0):
    """A read-only view [N, OH, OW, KH, KW, C] of every window of padded NHWC `x`,
    and the padding (top, left)."""
    n, h, w, c = x.shape
    oh, top, bottom = window_geometry(h, kh, strides[1], dilations[1], padding)
    ow, left, right = window_geometry(w, kw, strides[2], dilations[2], padding)
    if top or bottom or left or right:
        x = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=pad_value)
    sn, sh, sw, sc = x.strides
    view = _as_strided(x, (n, oh, ow, kh, kw, c),  # type: ignore[arg-type]  # h, w known: oh, ow are ints
                       (sn, sh * strides[1], sw * strides[2], sh * dilations[1],
                        sw * dilations[2], sc), writeable=False)
    return view, (top, left)


def scatter_windows(tap, input_shape: Sequence[int], kh: int, kw: int, strides: Sequence[int],
                    padding: str, dilations: Sequence[int], dtype: Any) -> np.ndarray:
    """The adjoint of `window_patches`: sums tap(i, j) ([N, OH, OW, C], the part of
    every window at filter offset i, j) back onto an NHWC array of `input_shape`."""
    n, h, w, c = input_shape
    oh, top, bottom = window_geometry(h, kh, strides[1], dilations[1], padding)
    ow, left, right = window_geometry(w, kw, strides[2], dilations[2], padding)
    padded = np.zeros((n, h + top + bottom, w + left + right, c), dtype)
    if oh and ow:
        for i in range(kh):
            for j in range(kw):
                r, s = i * dilations[1], j * dilations[2]
                padded[:, r:r + (oh - 1) * strides[1] + 1:strides[1],
                       s:s + (ow - 1) * strides[2] + 1:strides[2], :] += tap(i, j)
    return np.ascontiguousarray(padded[:, top:top + h, left:left + w, :])


def window_attr(value: Any, name: str, data_format: str = "NHWC") -> Tuple[int, int, int, int]:
    """An int or a list of 1, 2 or 4 ints as an NHWC 4-tuple (TF's conv/pool argument rule)."""
    values = [int(value)] if np.ndim(value) == 0 else [int(v) for v in value]
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        return (1, values[0], values[1], 1)
    if len(values) != 4:
        raise ValueError(f"{name} should be of length 1, 2 or 4, got {len(values)}")
    if data_format == "NCHW":
        values = [values[0], values[2], values[3], values[1]]
    return (values[0], values[1], values[2], values[3])


def check_window_attrs(attrs: dict, *names: str) -> None:
    """Windows, strides and dilations must be 1 on the batch and depth axes (TF's
    kernels check this when they run; graph construction checks it statically)."""
    for name in names:
        values = attrs[name]
        if values[0] != 1 or values[3] != 1:
            raise ValueError(f"{name} in the batch and depth dimensions is not supported "
                             f"(must be 1), got {list(values)}")
        if min(values) < 1:
            raise ValueError(f"{name} must be positive, got {list(values)}")


def check_padding(padding: Any) -> str:
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return padding.upper()


def check_data_format(data_format: Optional[str]) -> str:
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    return data_format


def check_rank4(shape: Any, what: str) -> None:
    rank = shape.rank if isinstance(shape, TensorShape) else len(shape)
    if rank is not None and rank != 4:
        raise ValueError(f"{what} must be 4-dimensional, got shape {shape}")


# -- kernels -------------------------------------------------------------------------------
def _sizes(sizes: np.ndarray, what: str) -> Tuple[int, ...]:
    if np.shape(sizes) != (4,):
        raise ValueError(f"{what} must be a vector of 4 sizes, got shape {np.shape(sizes)}")
    return tuple(int(d) for d in sizes)


def _check_depths(input_depth: int, filter_shape: Sequence[int]) -> None:
    if input_depth != filter_shape[2]:
        raise ValueError(f"input depth ({input_depth}) must equal the filter's input depth "
                         f"({filter_shape[2]}) (filter shape {list(filter_shape)})")


def _conv2d(x, w, *, strides, padding, dilations):
    check_window_attrs({"strides": strides, "dilations": dilations}, "strides", "dilations")
    check_rank4(x.shape, "input")
    check_rank4(w.shape, "filter")
    _check_depths(x.shape[3], w.shape)
    if x.dtype != w.dtype:
        raise TypeError(f"input dtype {x.dtype} does not match filter dtype {w.dtype}")
    patches, _ = window_patches(x, w.shape[0], w.shape[1], strides, padding, dilations)
    return np.tensordot(patches, w, axes=([3, 4, 5], [0, 1, 2])).astype(x.dtype, copy=False)


def _expected_out(input_shape, filter_shape, out_channels, strides, padding, dilations):
    oh = window_geometry(input_shape[1], filter_shape[0], strides[1], dilations[1], padding)[0]
    ow = window_geometry(input_shape[2], filter_shape[1], strides[2], dilations[2], padding)[0]
    return (input_shape[0], oh, ow, out_channels)


def _check_out_backprop(dy, expected) -> None:
    if dy.shape != tuple(expected):
        raise ValueError(f"out_backprop has shape {list(dy.shape)}, but the convolution's "
                         f"output shape is {list(expected)}")


def _conv2d_backprop_input(input_sizes, w, dy, *, strides, padding, dilations):
    check_window_attrs({"strides": strides, "dilations": dilations}, "strides", "dilations")
    shape = _sizes(input_sizes, "input_sizes")
    check_rank4(w.shape, "filter")
    _check_depths(shape[3], w.shape)
    _check_out_backprop(dy, _expected_out(shape, w.shape, w.shape[3], strides, padding, dilations))
    if w.dtype.kind != "f" or dy.dtype != w.dtype:
        raise TypeError(f"filter and out_backprop must be of one floating dtype, got "
                        f"{w.dtype} and {dy.dtype}")
    return scatter_windows(lambda i, j: dy @ w[i, j].T, shape, w.shape[0], w.shape[1], strides,
                           padding, dilations, w.dtype)


def _conv2d_backprop_filter(x, filter_sizes, dy, *, strides, padding, dilations):
    check_window_attrs({"strides": strides, "dilations": dilations}, "strides", "dilations")
    shape = _sizes(filter_sizes, "filter_sizes")
    check_rank4(x.shape, "input")
    _check_depths(x.shape[3], shape)
    _check_out_backprop(dy, _expected_out(x.shape, shape, shape[3], strides, padding, dilations))
    patches, _ = window_patches(x, shape[0], shape[1], strides, padding, dilations)
    return np.tensordot(patches, dy, axes=([0, 1, 2], [0, 1, 2])).astype(x.dtype, copy=False)


# -- shape rules -------------------------------------------------------------------------
def _out_shape(x_shape: TensorShape, filter_shape: TensorShape, attrs) -> TensorShape:
    check_window_attrs(attrs, "strides", "dilations")
    if x_shape.rank is None:
        return TensorShape((None, None, None, filter_shape[3] if filter_shape.rank else None))
    kh = kw = out_channels = None
    if filter_shape.rank is not None:
        kh, kw, _, out_channels = filter_shape.as_list()
    strides, dilations, padding = attrs["strides"], attrs["dilations"], attrs["padding"]
    oh = window_geometry(x_shape[1], kh, strides[1], dilations[1], padding)[0]
    ow = window_geometry(x_shape[2], kw, strides[2], dilations[2], padding)[0]
    return TensorShape((x_shape[0], oh, ow, out_channels))


def _check_static_depths(x_shape: TensorShape, filter_shape: TensorShape) -> None:
    check_rank4(x_shape, "input")
    check_rank4(filter_shape, "filter")
    if x_shape.rank and filter_shape.rank and None not in (x_shape[3], filter_shape[2]):
        _check_depths(x_shape[3], filter_shape.as_list())


def _conv2d_infer(inputs, attrs):
    x, w = inputs
    dtype = check_same_dtype(inputs)
    _check_static_depths(x.shape, w.shape)
    return [(dtype, _out_shape(x.shape, w.shape, attrs))]


def _sizes_shape(sizes_tensor) -> TensorShape:
    if not sizes_tensor.dtype.is_integer:
        raise TypeError(f"sizes must be an integer tensor, got {sizes_tensor.dtype.name}")
    shape = shape_from_tensor(sizes_tensor)
    return TensorShape((None,) * 4) if shape.rank is None else shape


def _backprop_input_infer(inputs, attrs):
    sizes, w, dy = inputs
    dtype = check_same_dtype(inputs[1:])
    if not dtype.is_floating:
        raise TypeError(f"filter must be a floating tensor, got {dtype.name}")
    shape = _sizes_shape(sizes)
    _check_static_depths(shape, w.shape)
    check_rank4(dy.shape, "out_backprop")
    if not dy.shape.is_compatible_with(_out_shape(shape, w.shape, attrs)):
        raise ValueError(f"out_backprop shape {dy.shape} does not match the convolution "
                         f"output shape {_out_shape(shape, w.shape, attrs)}")
    return [(dtype, shape)]


def _backprop_filter_infer(inputs, attrs):
    x, sizes, dy = inputs
    dtype = check_same_dtype((x, dy))
    shape = _sizes_shape(sizes)
    _check_static_depths(x.shape, shape)
    check_rank4(dy.shape, "out_backprop")
    if not dy.shape.is_compatible_with(_out_shape(x.shape, shape, attrs)):
        raise ValueError(f"out_backprop shape {dy.shape} does not match the convolution "
                         f"output shape {_out_shape(x.shape, shape, attrs)}")
    return [(dtype, shape)]


CONV2D = declare_op("Conv2D", _conv2d, _conv2d_infer, input_kinds="f",
                    grad_inputs={0: (1,), 1: (0,)},
                    same_dtype=slice(None))
CONV2D_BACKPROP_INPUT = declare_op("Conv2DBackpropInput", _conv2d_backprop_input,
                                   _backprop_input_infer, grad_inputs={1: (2,), 2: (1,)})
CONV2D_BACKPROP_FILTER = declare_op("Conv2DBackpropFilter", _conv2d_backprop_filter,
                                    _backprop_filter_infer, input_kinds="f",
                                    grad_inputs={0: (2,), 2: (0,)})


# -- public functions -----------------------------------------------------------------------
def _explicit_padding(padding: Any, data_format: Any, kernel_checked: bool = False
                      ) -> Optional[list]:
    """TF's explicit padding (4 [before, after] pairs in data_format's order, 0 for the
    batch and depth dims) as NHWC pairs; None for 'SAME'/'VALID'. duograd pads the input
    and runs a VALID convolution: the same values and gradients as TF's EXPLICIT kernel.
    A negative or batch/depth padding is a ValueError (docs/differences.md); where TF's
    kernel checks it (`kernel_checked`: the backprop ops) eagerly an InvalidArgumentError."""
    bad_value = (lambda message: mode_error(message, ValueError)) if kernel_checked \
        else ValueError
    if isinstance(padding, str) or not isinstance(padding, (list, tuple, np.ndarray)):
        return None
    if len(padding) != 4:
        raise ValueError(f"When padding is a list, it must be of size 4. Received: "
                         f"padding={padding!r} of size {len(padding)}")
    pairs = np.asarray(padding)
    if pairs.shape != (4, 2) or pairs.dtype.kind not in "iu":
        raise ValueError(f"When padding is explicit, it must be a list of 4 [before, after] "
                         f"integer pairs, got {padding!r}")
    if np.any(pairs < 0):
        raise bad_value(f"All elements of explicit_paddings must be nonnegative, got "
                         f"{pairs.tolist()}")
    nchw = check_data_format(data_format) == "NCHW"
    batch, depth = (0, 1) if nchw else (0, 3)
    if np.any(pairs[[batch, depth]]):
        raise bad_value(f"Nonzero explicit padding in the batch or depth dimensions is not "
                         f"supported, got {pairs.tolist()}")
    return [[int(a), int(b)] for a, b in (pairs[[0, 2, 3, 1]] if nchw else pairs)]


def _conv_attrs(strides: Any, padding: Any, data_format: Any, dilations: Any) -> dict:
    data_format = check_data_format(data_format)
    return {"strides": window_attr(strides, "strides", data_format),
            "padding": check_padding(padding),
            "dilations": window_attr(1 if dilations is None else dilations, "dilations",
                                     data_format)}


def _to_nhwc(x: Any, data_format: str):
    return array_ops.transpose(x, [0, 2, 3, 1]) if data_format == "NCHW" else x


def _from_nhwc(y: Any, data_format: str):
    return array_ops.transpose(y, [0, 3, 1, 2]) if data_format == "NCHW" else y


def _nchw_sizes(sizes: Any):
    return gather(convert_to_tensor(sizes), [0, 2, 3, 1]) if not \
        isinstance(sizes, (list, tuple)) else [sizes[0], sizes[2], sizes[3], sizes[1]]


def conv2d(input: Any, filters: Any, strides: Any, padding: Any,  # noqa: A002 (TF's name)
           data_format: str = "NHWC", dilations: Any = None, name: Optional[str] = None):
    """2-D convolution of `input` [N, H, W, C] with `filters` [KH, KW, C, O] (TF's)."""
    explicit = _explicit_padding(padding, data_format)
    attrs = _conv_attrs(strides, "VALID" if explicit else padding, data_format, dilations)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    data_format = check_data_format(data_format)
    x = _to_nhwc(x, data_format)
    if explicit:
        x = manip_ops.pad(x, explicit)
    y = apply_op(CONV2D, (x, w), attrs, name)
    return _from_nhwc(y, data_format)


def conv2d_backprop_input(input_sizes: Any, filter: Any,  # noqa: A002 (TF's name)
                          out_backprop: Any, strides: Any, padding: Any,
                          data_format: str = "NHWC", dilations: Any = None,
                          name: Optional[str] = None):
    """The gradient of conv2d with respect to its input, of shape `input_sizes`. With
    explicit padding it is the VALID gradient for the padded input, cropped."""
    explicit = _explicit_padding(padding, data_format, kernel_checked=True)
    attrs = _conv_attrs(strides, "VALID" if explicit else padding, data_format, dilations)
    data_format = check_data_format(data_format)
    if data_format == "NCHW":
        input_sizes = _nchw_sizes(input_sizes)
    sizes = convert_to_tensor(input_sizes, dtype_hint=None)
    w = convert_to_tensor(filter)
    dy = _to_nhwc(convert_to_tensor(out_backprop, dtype_hint=w.dtype), data_format)
    if not explicit:
        dx = apply_op(CONV2D_BACKPROP_INPUT, (sizes, w, dy), attrs, name)
        return _from_nhwc(dx, data_format)
    widths = [before + after for before, after in explicit]
    padded = apply_op(CONV2D_BACKPROP_INPUT,
                      (sizes + constant(widths, sizes.dtype), w, dy), attrs, name)
    begin = [before for before, _ in explicit]
    return _from_nhwc(slicing_ops.slice(padded, begin, sizes), data_format)


def conv2d_backprop_filter(input: Any, filter_sizes: Any,  # noqa: A002 (TF's name)
                           out_backprop: Any, strides: Any, padding: Any,
                           data_format: str = "NHWC", dilations: Any = None,
                           name: Optional[str] = None):
    """The gradient of conv2d with respect to its filter, of shape `filter_sizes`."""
    explicit = _explicit_padding(padding, data_format)
    attrs = _conv_attrs(strides, "VALID" if explicit else padding, data_format, dilations)
    data_format = check_data_format(data_format)
    x = _to_nhwc(convert_to_tensor(input), data_format)
    if explicit:
        x = manip_ops.pad(x, explicit)
    dy = _to_nhwc(convert_to_tensor(out_backprop, dtype_hint=x.dtype), data_format)
    sizes = convert_to_tensor(filter_sizes)
    return apply_op(CONV2D_BACKPROP_FILTER, (x, sizes, dy), attrs, name)


def conv2d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                     padding: Any = "SAME", data_format: str = "NHWC", dilations: Any = None,
                     name: Optional[str] = None):
    """The transpose of conv2d (filters [KH, KW, out_channels, in_channels]), as in TF."""
    return conv2d_backprop_input(output_shape, filters, input, strides, padding, data_format,
                                 dilations, name)


__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "conv2d_transpose"]
