"""3-D pooling (`dg.nn.max_pool3d`, `dg.nn.avg_pool3d`, TF's MaxPool3D / AvgPool3D and their
gradient ops) and max pooling with argmax (`dg.nn.max_pool_with_argmax`, TF's
MaxPoolWithArgmax and MaxPoolGradWithArgmax), on the windows of ops/nn/window_nd.py.

As in TF, a max pool's gradient goes to the first maximum of each window (row-major
window order), an average pool's counts only the elements inside the input (SAME padding
is not averaged in). Gradients: grad_registry/pool_nd_grad.py."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...framework import dtypes
from ...framework.errors import NotFoundError
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..tensor_util import shape_from_tensor
from . import window_nd
from .conv_nd_ops import conv_attrs


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _spatial(attrs: dict, name: str) -> List[int]:
    return list(attrs[name][1:-1])


def _check(x, attrs, op_type: str) -> None:
    for name in ("ksize", "strides"):
        values = attrs[name]
        if len(values) != x.ndim:
            raise ValueError(f"{op_type}: {name} must have {x.ndim} entries, got {list(values)}")
        if values[0] != 1 or values[-1] != 1:
            raise ValueError(f"{op_type}: pooling is not supported across the batch or depth "
                             f"dimensions ({name} {list(values)})")
        if min(values) < 1:
            raise ValueError(f"{op_type}: {name} must be positive, got {list(values)}")


def _windows(x, attrs, pad_value=0):
    n = x.ndim - 2
    return window_nd.patches(x, _spatial(attrs, "ksize"), _spatial(attrs, "strides"), [1] * n,
                             attrs["padding"], pad_value)


def _flat_windows(view, n):
    """[N, O..., K..., C] -> [N, O..., prod(K), C]."""
    shape = view.shape
    return view.reshape(shape[:1 + n] + (-1, shape[-1]))


def _argmax(x, attrs):
    """Each window's first maximum: its flat offset in the window, [N, O..., C]."""
    n = x.ndim - 2
    return _flat_windows(_windows(x, attrs, _lowest(x.dtype)), n).argmax(axis=1 + n)


def _expected(x_shape, attrs) -> tuple:
    n = len(x_shape) - 2
    return (x_shape[0],) + tuple(window_nd.out_shape(x_shape[1:1 + n], _spatial(attrs, "ksize"),
                                                     _spatial(attrs, "strides"), [1] * n,
                                                     attrs["padding"])) + (x_shape[-1],)


def _check_pooled(y, x_shape, attrs, what: str, op_type: str) -> None:
    expected = _expected(x_shape, attrs)
    if tuple(y.shape) != expected:
        raise ValueError(f"{op_type}: {what} has shape {list(y.shape)}, expected "
                         f"{list(expected)}")


def _route(grad, argmax, x_shape, attrs, dtype):
    """grad [N, O..., C] added at each window's offset `argmax` of an array of x_shape."""
    n = len(x_shape) - 2
    ksize = _spatial(attrs, "ksize")

    def tap(offset):
        flat = int(np.ravel_multi_index(offset, ksize))
        return np.where(argmax == flat, grad, 0).astype(dtype)
    return window_nd.scatter(tap, x_shape, ksize, _spatial(attrs, "strides"), [1] * n,
                             attrs["padding"], dtype)


_POOL3D_DTYPES = (np.float16, np.float32)  # TF's CPU kernels: half, bfloat16, float


def _check_dtype(x, op_type: str) -> None:
    """TF's CPU 3-D pools take half and float only: MaxPool3D's op definition rejects other
    dtypes (InvalidArgumentError), AvgPool3D has no kernel for them (NotFoundError)."""
    if x.dtype in _POOL3D_DTYPES:
        return
    message = (f"Value for attr 'T' of {dtypes.from_numpy(x.dtype).name} is not in the list of "
               f"allowed values: half, bfloat16, float [Op:{op_type}]")
    if op_type.startswith("AvgPool3D"):
        raise NotFoundError(None, None, f"Could not find device for node {op_type} with "
                                        f"T={dtypes.from_numpy(x.dtype).name}: CPU kernels "
                                        f"take half and float")
    raise ValueError(message)


def _max_pool(x, **attrs):
    _check_dtype(x, "MaxPool3D")
    _check(x, attrs, "MaxPool3D")
    n = x.ndim - 2
    return _windows(x, attrs, _lowest(x.dtype)).max(axis=tuple(range(1 + n, 1 + 2 * n)))


def _max_pool_grad(x, y, grad, **attrs):
    _check(x, attrs, "MaxPool3DGrad")
    _check_pooled(y, x.shape, attrs, "orig_output", "MaxPool3DGrad")
    _check_pooled(grad, x.shape, attrs, "grad", "MaxPool3DGrad")
    return _route(grad, _argmax(x, attrs), x.shape, attrs, grad.dtype)


def _max_pool_grad_grad(x, y, grad, **attrs):
    """grad (shaped like x) read at each window's maximum."""
    _check(x, attrs, "MaxPool3DGradGrad")
    if grad.shape != x.shape:
        raise ValueError(f"MaxPool3DGradGrad: grad has shape {list(grad.shape)}, expected "
                         f"{list(x.shape)}")
    n = x.ndim - 2
    flat = _flat_windows(_windows(grad, attrs), n)
    index = np.expand_dims(_argmax(x, attrs), 1 + n)
    return np.take_along_axis(flat, index, axis=1 + n).squeeze(1 + n).astype(grad.dtype)


def _counts(x_shape, attrs, dtype):
    ones = np.ones((1,) + tuple(x_shape[1:-1]) + (1,), dtype)
    n = len(x_shape) - 2
    return _windows(ones, attrs).sum(axis=tuple(range(1 + n, 1 + 2 * n)))


def _avg_pool(x, **attrs):
    _check_dtype(x, "AvgPool3D")
    _check(x, attrs, "AvgPool3D")
    n = x.ndim - 2
    total = _windows(x, attrs).sum(axis=tuple(range(1 + n, 1 + 2 * n)))
    return (total / _counts(x.shape, attrs, x.dtype)).astype(x.dtype)


def _avg_pool_grad(orig_input_shape, grad, **attrs):
    shape = tuple(int(d) for d in orig_input_shape)
    if len(shape) != grad.ndim:
        raise ValueError(f"AvgPool3DGrad: orig_input_shape {list(shape)} does not match a "
                         f"gradient of rank {grad.ndim}")
    _check(np.empty((0,) * len(shape)), attrs, "AvgPool3DGrad")
    _check_pooled(grad, shape, attrs, "grad", "AvgPool3DGrad")
    spread = grad / _counts(shape, attrs, grad.dtype)
    n = len(shape) - 2
    return window_nd.scatter(lambda offset: spread, shape, _spatial(attrs, "ksize"),
                             _spatial(attrs, "strides"), [1] * n, attrs["padding"], grad.dtype)


def _pooled_shape(shape: TensorShape, attrs, rank: int) -> TensorShape:
    if shape.rank is None:
        return TensorShape((None,) * rank)
    if shape.rank != rank:
        raise ValueError(f"input must be {rank}-dimensional, got shape {shape}")
    dims = shape.as_list()
    n = rank - 2
    return TensorShape([dims[0]] + window_nd.out_shape(dims[1:1 + n], _spatial(attrs, "ksize"),
                                                       _spatial(attrs, "strides"), [1] * n,
                                                       attrs["padding"]) + [dims[-1]])


def _max_pool3d_infer(inputs, attrs):
    x = inputs[0]
    if x.dtype.as_numpy_dtype not in _POOL3D_DTYPES:  # TF: the op definition rejects it
        raise TypeError(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
                        f"values: half, bfloat16, float (MaxPool3D)")
    return _pool_infer(inputs, attrs)


def _pool_infer(inputs, attrs):
    x = inputs[0]
    return [(x.dtype, _pooled_shape(x.shape, attrs, len(attrs["ksize"])))]


def _same_as_first(inputs, attrs):
    return [(inputs[2].dtype, inputs[0].shape)]


def _grad_grad_infer(inputs, attrs):
    return [(inputs[2].dtype, _pooled_shape(inputs[0].shape, attrs, len(attrs["ksize"])))]


def _avg_grad_infer(inputs, attrs):
    shape = shape_from_tensor(inputs[0])
    rank = len(attrs["ksize"])
    return [(inputs[1].dtype, TensorShape((None,) * rank) if shape.rank is None else shape)]


MAX_POOL3D = declare_op("MaxPool3D", _max_pool, _max_pool3d_infer, input_kinds="f",
                        grad_inputs=(0,), grad_outputs=(0,))
MAX_POOL3D_GRAD = declare_op("MaxPool3DGrad", _max_pool_grad, _same_as_first, input_kinds="f",
                             grad_inputs=(0, 1))
MAX_POOL3D_GRAD_GRAD = declare_op("MaxPool3DGradGrad", _max_pool_grad_grad, _grad_grad_infer,
                                  input_kinds="f", grad_inputs=(0, 1))
AVG_POOL3D = declare_op("AvgPool3D", _avg_pool, _pool_infer, input_kinds="f", grad_inputs=())
AVG_POOL3D_GRAD = declare_op("AvgPool3DGrad", _avg_pool_grad, _avg_grad_infer,
                             grad_inputs=(0,))


# -- max_pool_with_argmax ----------------------------------------------------------------------
def _input_positions(x_shape, attrs, argmax, include_batch: bool):
    """TF's flat index of each window's maximum: ((b * H + y) * W + x) * C + c (b only with
    include_batch_in_index)."""
    n, h, w, c = x_shape
    geo = window_nd.geometry((h, w), _spatial(attrs, "ksize"), _spatial(attrs, "strides"),
                             [1, 1], attrs["padding"])
    (oh, top, _), (ow, left, _) = geo
    kh, kw = _spatial(attrs, "ksize")
    sh, sw = _spatial(attrs, "strides")
    ky, kx = np.divmod(argmax, kw)
    y = np.arange(oh).reshape(1, oh, 1, 1) * sh + ky - top
    xs = np.arange(ow).reshape(1, 1, ow, 1) * sw + kx - left
    channel = np.arange(c).reshape(1, 1, 1, c)
    flat = (y * w + xs) * c + channel
    if include_batch:
        flat = flat + np.arange(n).reshape(n, 1, 1, 1) * (h * w * c)
    return flat


def _max_pool_with_argmax(x, *, ksize, strides, padding, Targmax, include_batch_in_index):
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    if x.ndim != 4:
        raise ValueError(f"MaxPoolWithArgmax: input must be 4-dimensional, got shape "
                         f"{list(x.shape)}")
    _check(x, attrs, "MaxPoolWithArgmax")
    view = _windows(x, attrs, _lowest(x.dtype))
    argmax = _flat_windows(view, 2).argmax(axis=3)
    pooled = view.max(axis=(3, 4))
    index = _input_positions(x.shape, attrs, argmax, include_batch_in_index)
    return pooled, index.astype(np.dtype(Targmax))


def _with_argmax_infer(inputs, attrs):
    x = inputs[0]
    shape = _pooled_shape(x.shape, attrs, 4)
    return [(x.dtype, shape), (dtypes.as_dtype(attrs["Targmax"]), shape)]


def _max_pool_grad_with_argmax(x, grad, argmax, *, ksize, strides, padding,
                               include_batch_in_index):
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    _check_pooled(grad, x.shape, attrs, "grad", "MaxPoolGradWithArgmax")
    if argmax.shape != grad.shape:
        raise ValueError(f"MaxPoolGradWithArgmax: argmax has shape {list(argmax.shape)}, "
                         f"expected {list(grad.shape)}")
    out = np.zeros(x.size, grad.dtype)
    flat = argmax.astype(np.int64)
    if not include_batch_in_index:
        per_item = int(np.prod(x.shape[1:]))
        flat = flat + (np.arange(x.shape[0]) * per_item).reshape(-1, 1, 1, 1)
    if flat.size and (flat.min() < 0 or flat.max() >= x.size):
        raise ValueError("MaxPoolGradWithArgmax: an argmax index is out of range")
    np.add.at(out, flat.reshape(-1), grad.reshape(-1))
    return out.reshape(x.shape)


MAX_POOL_WITH_ARGMAX = declare_op("MaxPoolWithArgmax", _max_pool_with_argmax,
                                  _with_argmax_infer, num_outputs=2, input_kinds="fiu",
                                  grad_inputs=(0,), grad_outputs=(1,))
MAX_POOL_GRAD_WITH_ARGMAX = declare_op(
    "MaxPoolGradWithArgmax", _max_pool_grad_with_argmax,
    lambda inputs, attrs: [(inputs[1].dtype, inputs[0].shape)], input_kinds="f")


# -- public functions ------------------------------------------------------------------------
def _pool3d_attrs(ksize: Any, strides: Any, padding: Any, first: bool) -> dict:
    attrs = conv_attrs(strides, padding, 1, 5, first)
    return {"ksize": conv_attrs(ksize, padding, 1, 5, first)["strides"],
            "strides": attrs["strides"], "padding": attrs["padding"]}


def _channels_first_3d(data_format: Optional[str]) -> bool:
    data_format = data_format or "NDHWC"
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError(f"data_format must be 'NDHWC' or 'NCDHW', got {data_format!r}")
    return data_format == "NCDHW"


def _pool3d(op_def, input, ksize, strides, padding, data_format, name):  # noqa: A002
    first = _channels_first_3d(data_format)
    x = convert_to_tensor(input)
    if first:
        x = array_ops.transpose(x, [0, 2, 3, 4, 1])
    y = apply_op(op_def, (x,), _pool3d_attrs(ksize, strides, padding, first), name)
    return array_ops.transpose(y, [0, 4, 1, 2, 3]) if first else y


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 (TF's name)
               data_format: str = "NDHWC", name: Optional[str] = None):
    """The maximum of each ksize window of input [N, D, H, W, C]."""
    return _pool3d(MAX_POOL3D, input, ksize, strides, padding, data_format, name)


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002 (TF's name)
               data_format: str = "NDHWC", name: Optional[str] = None):
    """The mean of each ksize window of input [N, D, H, W, C] (padding not counted)."""
    return _pool3d(AVG_POOL3D, input, ksize, strides, padding, data_format, name)


def max_pool3d_grad(orig_input: Any, orig_output: Any, grad: Any, ksize: Any, strides: Any,
                    padding: Any, name: Optional[str] = None):
    """TF's raw MaxPool3DGrad (channels last)."""
    return apply_op(MAX_POOL3D_GRAD, (orig_input, orig_output, grad),
                    _pool3d_attrs(ksize, strides, padding, False), name)


def max_pool3d_grad_grad(orig_input: Any, orig_output: Any, grad: Any, ksize: Any,
                         strides: Any, padding: Any, name: Optional[str] = None):
    """TF's raw MaxPool3DGradGrad (channels last)."""
    return apply_op(MAX_POOL3D_GRAD_GRAD, (orig_input, orig_output, grad),
                    _pool3d_attrs(ksize, strides, padding, False), name)


def avg_pool3d_grad(orig_input_shape: Any, grad: Any, ksize: Any, strides: Any, padding: Any,
                    name: Optional[str] = None):
    """TF's raw AvgPool3DGrad (channels last)."""
    return apply_op(AVG_POOL3D_GRAD, (convert_to_tensor(orig_input_shape), grad),
                    _pool3d_attrs(ksize, strides, padding, False), name)


def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
                         data_format: str = "NHWC", output_dtype: Any = dtypes.int64,
                         include_batch_in_index: bool = False, name: Optional[str] = None):
    """(max pool, flat index of each maximum in the input: ((b*H + y)*W + x)*C + c, b only
    with include_batch_in_index)."""
    if data_format != "NHWC":
        raise ValueError(f"max_pool_with_argmax supports only NHWC, got {data_format!r}")
    attrs = conv_attrs(strides, padding, 1, 4, False)
    full = {"ksize": conv_attrs(ksize, padding, 1, 4, False)["strides"],
            "strides": attrs["strides"], "padding": attrs["padding"],
            "Targmax": dtypes.as_dtype(output_dtype).as_numpy_dtype,
            "include_batch_in_index": bool(include_batch_in_index)}
    out, argmax = apply_op(MAX_POOL_WITH_ARGMAX, (convert_to_tensor(input),), full, name)
    return out, argmax


def max_pool_grad_with_argmax(input: Any, grad: Any, argmax: Any, ksize: Any,  # noqa: A002
                              strides: Any, padding: Any, include_batch_in_index: bool = False,
                              name: Optional[str] = None):
    """TF's raw MaxPoolGradWithArgmax: grad added at the input positions in argmax."""
    attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding,
             "include_batch_in_index": bool(include_batch_in_index)}
    return apply_op(MAX_POOL_GRAD_WITH_ARGMAX, (input, grad, argmax), attrs, name)


NN_NAMES = {"max_pool3d": max_pool3d, "avg_pool3d": avg_pool3d,
            "max_pool_with_argmax": max_pool_with_argmax}
