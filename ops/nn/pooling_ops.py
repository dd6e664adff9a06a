"""dg.nn.max_pool2d / avg_pool2d (NHWC) and their gradient ops. Gradients: pooling_grad.py.

As in TF the gradients are ops of their own (MaxPoolGrad, MaxPoolGradGrad,
AvgPoolGrad), each linear in its last input, so pooling is differentiable to
any order. Max pooling routes the gradient to the first maximum of each
window (row-major), SAME padding never wins a max, and average pooling divides
by the number of in-bounds elements of each window (TF's rules).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from .conv_ops import (check_data_format, check_padding, check_rank4, check_window_attrs,
                       scatter_windows, window_attr, window_geometry, window_patches)
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..shape_rules import check_same_dtype
from ..tensor_util import shape_from_tensor


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _check_input(x, ksize, strides) -> None:
    check_window_attrs({"ksize": ksize, "strides": strides}, "ksize", "strides")
    check_rank4(x.shape, "input")


def _tiled_windows(x, ksize, strides, padding):
    """[N, OH, KH, OW, KW, C] windows of `x` when they tile it without overlap or
    padding (ksize == strides, the common 2x2/2 pooling): a reshape of `x`, else None."""
    kh, kw = ksize[1], ksize[2]
    if (kh, kw) != (strides[1], strides[2]):
        return None
    n, h, w, c = x.shape
    if padding == "SAME" and (h % kh or w % kw):
        return None  # SAME pads the last window: the general path
    oh, ow = h // kh, w // kw
    if oh == 0 or ow == 0:
        return None
    return x[:, :oh * kh, :ow * kw, :].reshape(n, oh, kh, ow, kw, c)


def _max_pool(x, *, ksize, strides, padding):
    _check_input(x, ksize, strides)
    tiles = _tiled_windows(x, ksize, strides, padding)
    if tiles is not None:
        return _tile_max(tiles)
    patches, _ = window_patches(x, ksize[1], ksize[2], strides, padding, pad_value=_lowest(x.dtype))
    return patches.max(axis=(3, 4))


def _tile_max(tiles):
    """The max of each tile, one np.maximum per tap (max's NaN rule: NaN wins)."""
    out = tiles[:, :, 0, :, 0, :].copy()
    for i in range(tiles.shape[2]):
        for j in range(tiles.shape[4]):
            if i or j:
                np.maximum(out, tiles[:, :, i, :, j, :], out=out)
    return out


def _first_max_masks(tiles, y):
    """(i, j, mask) per tap, in row-major order: mask marks the windows whose first
    maximum (np.argmax's choice: the first NaN where there is one) is at tap i, j."""
    has_nan = y.dtype.kind in "fc" and bool(np.isnan(y).any())
    taken = None
    for i in range(tiles.shape[2]):
        for j in range(tiles.shape[4]):
            tap = tiles[:, :, i, :, j, :]
            hit = tap == y
            if has_nan:
                hit |= np.isnan(tap)
            if taken is None:
                taken = hit.copy()
                yield i, j, hit
            else:
                hit &= ~taken
                taken |= hit
                yield i, j, hit


def _check_pool_grad(x, y, ksize, strides, padding) -> None:
    _check_input(x, ksize, strides)
    expected = (x.shape[0],
                window_geometry(x.shape[1], ksize[1], strides[1], 1, padding)[0],
                window_geometry(x.shape[2], ksize[2], strides[2], 1, padding)[0], x.shape[3])
    if y.shape != expected:
        raise ValueError(f"pooled tensor has shape {list(y.shape)}, expected {list(expected)}")


def _window_argmax(x, ksize, strides, padding):
    """The flat tap index (row-major in the window) of each window's first maximum."""
    patches, _ = window_patches(x, ksize[1], ksize[2], strides, padding,
                                pad_value=_lowest(x.dtype))
    n, oh, ow, kh, kw, c = patches.shape
    return patches.reshape(n, oh, ow, kh * kw, c).argmax(axis=3)


def _max_pool_grad(x, y, grad, *, ksize, strides, padding):
    _check_pool_grad(x, y, ksize, strides, padding)
    _check_pool_grad(x, grad, ksize, strides, padding)
    tiles = _tiled_windows(x, ksize, strides, padding)
    if tiles is not None:  # routed tap by tap: no argmax over materialised windows
        n, oh, kh, ow, kw, c = tiles.shape
        finite = grad.dtype.kind not in "fc" or bool(np.isfinite(grad).all())
        # grad * mask is the fast form; a NaN or inf in grad must still leave 0 elsewhere.
        routed = (np.empty if finite else np.zeros)(tiles.shape, grad.dtype)
        for i, j, mask in _first_max_masks(tiles, _tile_max(tiles)):
            if finite:
                np.multiply(grad, mask, out=routed[:, :, i, :, j, :])
            else:
                np.copyto(routed[:, :, i, :, j, :], grad, where=mask)
        if routed.shape[1] * kh == x.shape[1] and routed.shape[3] * kw == x.shape[2]:
            return routed.reshape(x.shape)
        out = np.zeros(x.shape, grad.dtype)
        out[:, :oh * kh, :ow * kw, :] = routed.reshape(n, oh * kh, ow * kw, c)
        return out
    winner = _window_argmax(x, ksize, strides, padding)
    kw = ksize[2]
    zero = np.zeros((), grad.dtype)
    # One vectorised pass per filter tap: overlapping windows add up, as they must.
    return scatter_windows(lambda i, j: np.where(winner == i * kw + j, grad, zero), x.shape,
                           ksize[1], kw, strides, padding, (1, 1, 1, 1), grad.dtype)


def _max_pool_grad_grad(x, y, grad, *, ksize, strides, padding):
    _check_pool_grad(x, y, ksize, strides, padding)
    if grad.shape != x.shape:
        raise ValueError(f"grad has shape {list(grad.shape)}, expected {list(x.shape)}")
    tiles = _tiled_windows(x, ksize, strides, padding)
    if tiles is not None:
        grad_tiles = _tiled_windows(grad, ksize, strides, padding)
        out = np.zeros(tiles[:, :, 0, :, 0, :].shape, grad.dtype)
        for i, j, mask in _first_max_masks(tiles, _tile_max(tiles)):
            np.copyto(out, grad_tiles[:, :, i, :, j, :], where=mask)
        return out
    winner = _window_argmax(x, ksize, strides, padding)
    patches, _ = window_patches(grad, ksize[1], ksize[2], strides, padding)
    n, oh, ow, kh, kw, c = patches.shape
    flat = patches.reshape(n, oh, ow, kh * kw, c)
    return np.take_along_axis(flat, winner[:, :, :, None, :], axis=3)[:, :, :, 0, :]


def _window_counts(h, w, ksize, strides, padding, dtype):
    """How many in-bounds elements each window holds, shaped [1, OH, OW, 1]."""
    ones = np.ones((1, h, w, 1), dtype)
    patches, _ = window_patches(ones, ksize[1], ksize[2], strides, padding)
    return patches.sum(axis=(3, 4))


def _avg_pool(x, *, ksize, strides, padding):
    _check_input(x, ksize, strides)
    patches, _ = window_patches(x, ksize[1], ksize[2], strides, padding)
    counts = _window_counts(x.shape[1], x.shape[2], ksize, strides, padding, x.dtype)
    return (patches.sum(axis=(3, 4)) / counts).astype(x.dtype, copy=False)


def _avg_pool_grad(input_shape, grad, *, ksize, strides, padding):
    if np.shape(input_shape) != (4,):
        raise ValueError(f"orig_input_shape must be a vector of 4 sizes, got {input_shape}")
    shape = tuple(int(d) for d in input_shape)
    _check_pool_grad(np.empty(shape, np.int8), grad, ksize, strides, padding)
    scaled = grad / _window_counts(shape[1], shape[2], ksize, strides, padding, grad.dtype)
    return scatter_windows(lambda i, j: scaled, shape, ksize[1], ksize[2], strides, padding,
                           (1, 1, 1, 1), grad.dtype)


# -- shape rules ---------------------------------------------------------------------------
def _pooled_shape(shape: TensorShape, attrs) -> TensorShape:
    check_window_attrs(attrs, "ksize", "strides")
    check_rank4(shape, "input")
    if shape.rank is None:
        return TensorShape((None,) * 4)
    ksize, strides, padding = attrs["ksize"], attrs["strides"], attrs["padding"]
    oh = window_geometry(shape[1], ksize[1], strides[1], 1, padding)[0]
    ow = window_geometry(shape[2], ksize[2], strides[2], 1, padding)[0]
    return TensorShape((shape[0], oh, ow, shape[3]))


def _pool_infer(inputs, attrs):
    x = inputs[0]
    return [(x.dtype, _pooled_shape(x.shape, attrs))]


def _pool_grad_infer(inputs, attrs):
    x, y, grad = inputs
    dtype = check_same_dtype(inputs)
    if not y.shape.is_compatible_with(_pooled_shape(x.shape, attrs)):
        raise ValueError(f"orig_output shape {y.shape} does not match the pooled shape "
                         f"{_pooled_shape(x.shape, attrs)} of orig_input {x.shape}")
    return [(dtype, x.shape)]


def _pool_grad_grad_infer(inputs, attrs):
    x, y, grad = inputs
    dtype = check_same_dtype(inputs)
    if not grad.shape.is_compatible_with(x.shape):
        raise ValueError(f"grad shape {grad.shape} does not match orig_input shape {x.shape}")
    return [(dtype, y.shape.merge_with(_pooled_shape(x.shape, attrs)))]


def _avg_pool_grad_infer(inputs, attrs):
    sizes, grad = inputs
    if not sizes.dtype.is_integer:
        raise TypeError(f"orig_input_shape must be an integer tensor, got {sizes.dtype.name}")
    shape = shape_from_tensor(sizes)
    return [(grad.dtype, TensorShape((None,) * 4) if shape.rank is None else shape)]


MAX_POOL = declare_op("MaxPool", _max_pool, _pool_infer, input_kinds="fiu", grad_inputs=(0,),
                      grad_outputs=(0,))
MAX_POOL_GRAD = declare_op("MaxPoolGrad", _max_pool_grad, _pool_grad_infer, input_kinds="f",
                           grad_inputs={0: (), 1: (), 2: (0, 1)})
MAX_POOL_GRAD_GRAD = declare_op("MaxPoolGradGrad", _max_pool_grad_grad, _pool_grad_grad_infer,
                                input_kinds="f", grad_inputs={0: (), 1: (), 2: (0, 1)})
AVG_POOL = declare_op("AvgPool", _avg_pool, _pool_infer, input_kinds="f", grad_inputs=())
AVG_POOL_GRAD = declare_op("AvgPoolGrad", _avg_pool_grad, _avg_pool_grad_infer, grad_inputs=())


# -- public functions ------------------------------------------------------------------------
def _pool_attrs(ksize: Any, strides: Any, padding: Any, data_format: str) -> dict:
    return {"ksize": window_attr(ksize, "ksize", data_format),
            "strides": window_attr(strides, "strides", data_format),
            "padding": check_padding(padding)}


def _pool(op_def, input, ksize, strides, padding, data_format, name):  # noqa: A002
    data_format = check_data_format(data_format)
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    x = convert_to_tensor(input)
    if data_format == "NCHW":
        y = apply_op(op_def, (array_ops.transpose(x, [0, 2, 3, 1]),), attrs, name)
        return array_ops.transpose(y, [0, 3, 1, 2])
    return apply_op(op_def, (x,), attrs, name)


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None):
    """The maximum of each ksize window of `input` [N, H, W, C]."""
    return _pool(MAX_POOL, input, ksize, strides, padding, data_format, name)


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None):
    """The mean of each ksize window of `input` (SAME: over in-bounds elements only)."""
    return _pool(AVG_POOL, input, ksize, strides, padding, data_format, name)


def max_pool_grad(orig_input: Any, orig_output: Any, grad: Any, ksize: Any, strides: Any,
                  padding: Any, name: Optional[str] = None):
    """The gradient of max pooling: `grad` routed to each window's maximum (NHWC)."""
    attrs = _pool_attrs(ksize, strides, padding, "NHWC")
    return apply_op(MAX_POOL_GRAD, (orig_input, orig_output, grad), attrs, name)


def max_pool_grad_grad(orig_input: Any, orig_output: Any, grad: Any, ksize: Any, strides: Any,
                       padding: Any, name: Optional[str] = None):
    """The gradient of max_pool_grad: `grad` (input-shaped) read at each window's maximum."""
    attrs = _pool_attrs(ksize, strides, padding, "NHWC")
    return apply_op(MAX_POOL_GRAD_GRAD, (orig_input, orig_output, grad), attrs, name)


def avg_pool_grad(orig_input_shape: Any, grad: Any, ksize: Any, strides: Any, padding: Any,
                  name: Optional[str] = None):
    """The gradient of average pooling: each window's grad / count spread over the window."""
    attrs = _pool_attrs(ksize, strides, padding, "NHWC")
    sizes = convert_to_tensor(orig_input_shape)
    return apply_op(AVG_POOL_GRAD, (sizes, convert_to_tensor(grad)), attrs, name)


max_pool = max_pool2d
avg_pool = avg_pool2d

__all__ = ["max_pool2d", "avg_pool2d", "max_pool", "avg_pool"]
