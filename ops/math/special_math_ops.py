"""Special elementwise math: expm1, reciprocal, softplus, erf, xlogy, divide_no_nan, ...

Declarations and public wrappers; gradients are in grad_registry/special_math_grad.py.
Softplus, Xlogy, Xdivy and DivNoNan are primitives because their stable or
zero-safe values cannot be composed from other ops without NaNs leaking into
gradients; log_sigmoid, clip_by_value and reduce_logsumexp are compositions.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ..array import array_ops
from . import math_ops, reduction_ops
from ..constant_op import convert_to_tensor
from ..op_helpers import apply_binary, apply_unary
from ..shape_rules import broadcast_binary, elementwise_unary, with_dtype

_float_rule = elementwise_unary()


def _unary(op_type: str, kernel, kinds: str = "fc", grad_inputs=(0,), grad_outputs=()):
    return declare_op(op_type, kernel, _float_rule, input_kinds=kinds,
                      grad_inputs=grad_inputs, grad_outputs=grad_outputs)


def _binary(op_type: str, kernel, kinds: str = "fc"):
    return declare_op(op_type, kernel, broadcast_binary, input_kinds=kinds)


def quiet_kernel(func):
    """A kernel that returns NaN/inf like TF instead of emitting NumPy warnings."""
    def kernel(*args):
        with np.errstate(all="ignore"):
            return func(*args)
    kernel.__name__ = getattr(func, "__name__", "kernel")
    return kernel


# -- unary --------------------------------------------------------------------
_erf_object = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    # NumPy has no erf; libm's (math.erf) is exact to the last bit, vectorised here.
    return np.asarray(_erf_object(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _softplus(x):
    # log(1 + e^x) without overflow for large |x|: logaddexp(0, x).
    return np.logaddexp(np.zeros((), x.dtype), x)


EXPM1 = _unary("Expm1", quiet_kernel(np.expm1))
RECIPROCAL = _unary("Reciprocal", quiet_kernel(np.reciprocal), grad_inputs=(), grad_outputs=(0,))
SOFTPLUS = _unary("Softplus", quiet_kernel(_softplus), "f")
ERF = _unary("Erf", _erf, "f")
IS_NAN = declare_op("IsNan", np.isnan, with_dtype(dtypes.bool_), input_kinds="f",
                    grad_inputs=())
IS_FINITE = declare_op("IsFinite", np.isfinite, with_dtype(dtypes.bool_), input_kinds="f",
                       grad_inputs=())


def expm1(x: Any, name: Optional[str] = None):
    """exp(x) - 1, accurate for small x."""
    return apply_unary(EXPM1, x, name)


def reciprocal(x: Any, name: Optional[str] = None):
    """1 / x."""
    return apply_unary(RECIPROCAL, x, name)


def softplus(features: Any, name: Optional[str] = None):
    """log(1 + exp(x)), stable for large |x| (also dg.nn.softplus)."""
    return apply_unary(SOFTPLUS, features, name)


def erf(x: Any, name: Optional[str] = None):
    """The Gauss error function."""
    return apply_unary(ERF, x, name)


def is_nan(x: Any, name: Optional[str] = None):
    return apply_unary(IS_NAN, x, name)


def is_finite(x: Any, name: Optional[str] = None):
    return apply_unary(IS_FINITE, x, name)


def log_sigmoid(x: Any, name: Optional[str] = None):
    """log(sigmoid(x)) = -softplus(-x): finite for x = -1000 (composed, stable)."""
    return math_ops.negative(softplus(math_ops.negative(x)), name=name)


# -- binary -------------------------------------------------------------------
def _squared_difference(x, y):
    d = x - y
    return (d * np.conj(d)) if d.dtype.kind == "c" else d * d


def _div_no_nan(x, y):
    with np.errstate(all="ignore"):
        out = np.true_divide(x, y)
    return np.where(y == 0, np.zeros((), out.dtype), out)


def _xlogy(x, y):
    with np.errstate(all="ignore"):
        out = x * np.log(y)
    return np.where(x == 0, np.zeros((), out.dtype), out)


def _xdivy(x, y):
    with np.errstate(all="ignore"):
        out = np.true_divide(x, y)
    return np.where(x == 0, np.zeros((), out.dtype), out)


SQUARED_DIFFERENCE = _binary("SquaredDifference", _squared_difference, "fciu")
DIV_NO_NAN = _binary("DivNoNan", _div_no_nan)
XLOGY = _binary("Xlogy", _xlogy)
XDIVY = _binary("Xdivy", _xdivy)


def squared_difference(x: Any, y: Any, name: Optional[str] = None):
    """(x - y) * conj(x - y), with broadcasting."""
    return apply_binary(SQUARED_DIFFERENCE, x, y, name)


def divide_no_nan(x: Any, y: Any, name: Optional[str] = None):
    """x / y, and 0 wherever y == 0 (even for x == 0 or inf)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    if x.dtype != y.dtype:  # TF's own check, before the op
        raise TypeError(f"divide_no_nan: x and y must have the same dtype, got "
                        f"{x.dtype.name} and {y.dtype.name}")
    return apply_binary(DIV_NO_NAN, x, y, name)


def div_no_nan(x: Any, y: Any, name: Optional[str] = None):
    """Alias of divide_no_nan (TF 1 name)."""
    return apply_binary(DIV_NO_NAN, x, y, name)


def xlogy(x: Any, y: Any, name: Optional[str] = None):
    """x * log(y), and 0 wherever x == 0 (even for y == 0)."""
    return apply_binary(XLOGY, x, y, name)


def xdivy(x: Any, y: Any, name: Optional[str] = None):
    """x / y, and 0 wherever x == 0 (even for y == 0)."""
    return apply_binary(XDIVY, x, y, name)


# -- compositions ---------------------------------------------------------------
def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: Optional[str] = None):
    """min(max(t, clip_value_min), clip_value_max); the bounds may not grow t's shape."""
    t = convert_to_tensor(t)
    clipped = math_ops.minimum(t, clip_value_max)
    _check_not_grown(t, clipped)
    clipped = math_ops.maximum(clipped, clip_value_min, name=name)
    _check_not_grown(t, clipped)
    return clipped


def _check_not_grown(t, clipped):
    if not clipped.shape.is_compatible_with(t.shape):
        raise ValueError(f"clip_by_value: the clipping bounds change the shape of t: "
                         f"{t.shape} -> {clipped.shape}")


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                     name: Optional[str] = None):
    """log(sum(exp(x))) over `axis`, computed around the (stopped) max so it never overflows."""
    raw_max = reduction_ops.reduce_max(input_tensor, axis, keepdims=True)
    shift = array_ops.stop_gradient(array_ops.where(is_finite(raw_max), raw_max,
                                                    array_ops.zeros_like(raw_max)))
    result = math_ops.log(reduction_ops.reduce_sum(
        math_ops.exp(math_ops.subtract(input_tensor, shift)), axis, keepdims=keepdims))
    if not keepdims:
        shift = array_ops.reshape(shift, array_ops.shape_tensor(result))
    return math_ops.add(result, shift, name=name)


__all__ = ["expm1", "reciprocal", "softplus", "erf", "is_nan", "is_finite", "log_sigmoid",
           "squared_difference", "divide_no_nan", "div_no_nan", "xlogy", "xdivy",
           "clip_by_value", "reduce_logsumexp"]
