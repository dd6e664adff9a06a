"""dg.nn activations and layers: relu family, gelu, l2_loss, bias_add, dropout, moments.

Softmax and the cross-entropies are in softmax_ops.py, conv2d in conv_ops.py,
pooling in pooling_ops.py; gradients are in grad_registry/nn_grad.py.
"""
from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ...framework.op_def import declare_op, shared_attrs
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ..array import array_ops
from ..math import math_ops, reduction_ops, special_math_ops
from ..random import random_ops
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from .gelu_ops import CUBE_SCALE, ERF_SCALE, GELU, TANH_SCALE
from .moments_ops import MOMENTS
from ..tensor_util import constant_value

_state = context.state
from ..op_helpers import apply_unary
from ..shape_rules import check_same_dtype, elementwise_unary

_float_rule = elementwise_unary()
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


# -- activations ----------------------------------------------------------------
def _relu(x):
    return np.maximum(x, 0)


def _relu6(x):
    return np.clip(x, 0, 6)


def _elu(x):
    # expm1 of the clipped input: the unused branch must not overflow.
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _selu(x):
    negative = SELU_ALPHA * np.expm1(np.minimum(x, 0))
    return (SELU_SCALE * np.where(x > 0, x, negative)).astype(x.dtype, copy=False)


def _leaky_relu(x, *, alpha):
    return np.where(x > 0, x, x * np.asarray(alpha, x.dtype))


RELU = declare_op("Relu", _relu, _float_rule, input_kinds="fiu", grad_inputs=(),
                  grad_outputs=(0,))
RELU6 = declare_op("Relu6", _relu6, _float_rule, input_kinds="fiu", grad_inputs=(0,))
ELU = declare_op("Elu", _elu, _float_rule, input_kinds="f", grad_inputs=(), grad_outputs=(0,))
SELU = declare_op("Selu", _selu, _float_rule, input_kinds="f", grad_inputs=(),
                  grad_outputs=(0,))
LEAKY_RELU = declare_op("LeakyRelu", _leaky_relu, _float_rule, input_kinds="f",
                        grad_inputs=(0,))


def relu(features: Any, name: Optional[str] = None):
    """max(features, 0)."""
    return apply_unary(RELU, features, name)


def relu6(features: Any, name: Optional[str] = None):
    """min(max(features, 0), 6)."""
    return apply_unary(RELU6, features, name)


def elu(features: Any, name: Optional[str] = None):
    """features if > 0 else exp(features) - 1."""
    return apply_unary(ELU, features, name)


def selu(features: Any, name: Optional[str] = None):
    """scale * (features if > 0 else alpha * (exp(features) - 1))."""
    return apply_unary(SELU, features, name)


def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None):
    """features if > 0 else alpha * features (integer inputs become float32, as in TF)."""
    features = convert_to_tensor(features)
    if features.dtype.is_integer:
        features = math_ops.cast(features, dtypes.float32)
    return apply_unary(LEAKY_RELU, features, name, {"alpha": float(alpha)})


def gelu(features: Any, approximate: bool = False, name: Optional[str] = None):
    """x * Phi(x): exact with erf, or TF's tanh approximation. In a graph, TF's composite
    of math ops; eagerly (float32/float64 arrays) the one op `Gelu` computing the same
    values in place (ops/nn/gelu_ops.py)."""
    if isinstance(features, str):  # TF checks the dtype in Python: a ValueError
        raise ValueError(f"gelu: features must be a floating tensor, got {features!r}")
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"gelu: features must be a floating tensor, got {x.dtype.name}")
    approximate = bool(approximate)
    if _state.graph is None and type(x) is EagerTensor and x.array.ndim and \
            x.array.dtype.kind == "f" and x.array.dtype.itemsize >= 4:
        return apply_op(GELU, (x,), shared_attrs(("approximate",), approximate), name)[0]
    if approximate:
        cube = math_ops.pow(x, constant(3, x.dtype))
        inner = TANH_SCALE * (x + CUBE_SCALE * cube)
        return math_ops.multiply(0.5 * x, 1.0 + math_ops.tanh(inner), name=name)
    return math_ops.multiply(0.5 * x, 1.0 + special_math_ops.erf(x * ERF_SCALE), name=name)


# -- l2_loss and bias_add ----------------------------------------------------------
def _l2_loss(x):
    return np.asarray(np.sum(np.square(x)) / 2, dtype=x.dtype)


L2_LOSS = declare_op("L2Loss", _l2_loss, lambda inputs, attrs: [(inputs[0].dtype, TensorShape(()))],
                     input_kinds="f", grad_inputs=(0,))


def l2_loss(t: Any, name: Optional[str] = None):
    """sum(t ** 2) / 2."""
    return apply_unary(L2_LOSS, t, name)


def _channel_axis(data_format: str, rank: int) -> int:
    return 1 if data_format.startswith("NC") else rank - 1


def _bias_add(value, bias, *, data_format):
    if bias.ndim != 1 or value.ndim < 2:
        raise ValueError(f"bias must be 1-D and value at least 2-D, got shapes "
                         f"{list(bias.shape)} and {list(value.shape)}")
    axis = _channel_axis(data_format, value.ndim)
    if value.shape[axis] != bias.shape[0]:
        raise ValueError(f"Must provide as many biases as the channel dimension of the input "
                         f"tensor: {list(bias.shape)} vs. {list(value.shape)}")
    if value.dtype != bias.dtype:
        raise TypeError(f"bias dtype {bias.dtype} does not match value dtype {value.dtype}")
    return value + bias.reshape((-1,) + (1,) * (value.ndim - 1 - axis))


def _bias_add_infer(inputs, attrs):
    value, bias = inputs
    check_same_dtype(inputs)
    if bias.shape.rank not in (None, 1):
        raise ValueError(f"bias must be 1-D, got shape {bias.shape}")
    rank = value.shape.rank
    if rank is None:
        return [(value.dtype, value.shape)]
    if rank < 2:
        raise ValueError(f"value must be at least 2-D, got shape {value.shape}")
    axis = _channel_axis(attrs["data_format"], rank)
    channels = value.shape[axis]
    size = bias.shape[0] if bias.shape.rank == 1 else None
    if channels is not None and size is not None and channels != size:
        raise ValueError(f"Dimensions must be equal, but are {channels} and {size} "
                         f"(value shape {value.shape}, bias shape {bias.shape})")
    dims = list(value.shape.dims)
    dims[axis] = channels if channels is not None else size
    return [(value.dtype, TensorShape(tuple(dims)))]


BIAS_ADD = declare_op("BiasAdd", _bias_add, _bias_add_infer, input_kinds="fciu", grad_inputs=())


def bias_add(value: Any, bias: Any, data_format: Optional[str] = None,
             name: Optional[str] = None):
    """value + bias along the channel axis (last for NHWC/N...C, 1 for NCHW/NC...)."""
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW", "N...C", "NC..."):
        raise ValueError(f"data_format must be NHWC or NCHW, got {data_format!r}")
    value = convert_to_tensor(value)
    # TF converts a non-tensor bias to value's dtype (a string: TypeError) and, building a
    # graph, checks the bias's rank before its dtype.
    bias = bias if isinstance(bias, Tensor) else convert_to_tensor(bias, dtype=value.dtype)
    if _state.graph is not None and bias.shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {bias.shape.rank} for BiasAdd's "
                         "bias")
    return apply_op(BIAS_ADD, (value, bias), {"data_format": data_format}, name)


# -- dropout ------------------------------------------------------------------------
def _noise_shape(x: Any, noise_shape: Any):
    """The noise shape as a list or tensor; None entries take x's dimension (TF)."""
    if noise_shape is None:
        return x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
    if isinstance(noise_shape, Tensor):
        return noise_shape
    dims = as_shape(noise_shape).as_list()
    if None in dims:
        x_dims = x.shape.dims
        if x_dims is None or len(x_dims) != len(dims):
            raise ValueError(f"noise_shape {noise_shape} has unknown dimensions that cannot be "
                             f"taken from x of shape {x.shape}")
        dims = [x_dims[i] if d is None else d for i, d in enumerate(dims)]
        if None in dims:
            return array_ops.where(constant([d is None for d in dims]), array_ops.shape(x),
                                   constant([0 if d is None else d for d in dims]))
    return dims


def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: Optional[int] = None,
            name: Optional[str] = None):
    """Zeroes each element with probability `rate`, scales the rest by 1/(1-rate).

    The mask is `uniform(noise_shape, seed) >= rate`, so one seed gives one
    mask in both modes (random_ops' seed rules).
    """
    is_number = isinstance(rate, numbers.Real) and not isinstance(rate, bool)
    if is_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={x.dtype.name}")
    if is_number:
        if rate == 0:
            return x
        kept = math_ops.multiply(x, constant(1 / (1 - rate), x.dtype))
    else:
        rate = convert_to_tensor(rate, dtype_hint=x.dtype)
        if rate.shape.rank not in (None, 0):
            raise ValueError(f"rate must be a scalar, got shape {rate.shape}")
        rate = math_ops.cast(rate, x.dtype)
        kept = math_ops.truediv(x, 1 - rate)
    noise = random_ops.uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
    keep_mask = math_ops.cast(math_ops.greater_equal(noise, rate), x.dtype)
    return math_ops.multiply(kept, keep_mask, name=name)


# -- moments ---------------------------------------------------------------------------
def moments(x: Any, axes: Sequence[int], shift: Any = None, keepdims: bool = False,
            name: Optional[str] = None):
    """(mean, variance) of `x` over `axes` (float16 is computed in float32, as in TF).
    In a graph, TF's composite of reductions; eagerly (float32/float64 arrays, axes
    Python ints) the one op `Moments` computing the same values (ops/nn/moments_ops.py).

    Unlike TF the mean is not wrapped in stop_gradient inside the variance: the
    first derivative is the same, and second derivatives stay exact.
    """
    x = convert_to_tensor(x)
    fused = _fused_moment_axes(x, axes)
    if fused is not None:
        mean, variance = apply_op(MOMENTS, (x,), shared_attrs(("axes", "keep_dims"), fused,
                                                              bool(keepdims)), name)
        return mean, variance
    y = math_ops.cast(x, dtypes.float32) if x.dtype is dtypes.float16 else x
    mean = reduction_ops.reduce_mean(y, axes, keepdims=True)  # TF's checks of `axes`
    ints = _moment_axes(axes)
    variance = reduction_ops.reduce_mean(math_ops.square(y - mean), ints, keepdims=True)
    if not keepdims:
        mean = array_ops.squeeze(mean, ints)
        variance = array_ops.squeeze(variance, ints)
    if x.dtype is dtypes.float16:
        mean, variance = math_ops.cast(mean, x.dtype), math_ops.cast(variance, x.dtype)
    return mean, variance


def _fused_moment_axes(x: Any, axes: Any) -> Optional[tuple]:
    """The axes (non-negative, sorted) for the eager `Moments` op, or None where the
    composite runs: in a graph, for other dtypes, a scalar, or axes that are not
    distinct in-range Python ints (the composite raises TF's errors for those)."""
    if _state.graph is not None or type(x) is not EagerTensor or not isinstance(axes, (list, tuple)):
        return None
    array = x.array
    rank = array.ndim
    if not rank or (array.dtype != np.float32 and array.dtype != np.float64) or not axes:
        return None
    for axis in axes:
        if type(axis) is not int or not -rank <= axis < rank:
            return None
    normal = sorted({axis % rank for axis in axes})
    return tuple(normal) if len(normal) == len(axes) else None


def _moment_axes(axes: Any) -> Optional[list]:
    """The axes reduce_mean accepted, as ints for squeeze (None: all, as TF's squeeze)."""
    if axes is None:
        return None
    if isinstance(axes, Tensor):
        axes = constant_value(axes)
        if axes is None:
            raise ValueError("moments: axes must be statically known")
    return [int(a) for a in np.ravel(axes)]


sigmoid = math_ops.sigmoid
tanh = math_ops.tanh
softplus = special_math_ops.softplus

__all__ = ["relu", "relu6", "elu", "selu", "leaky_relu", "gelu", "sigmoid", "tanh", "softplus",
           "l2_loss", "bias_add", "dropout", "moments"]
