"""Inverse hyperbolic functions, erfc, rounding, truncating division and is_inf.

One declaration per op; gradients in grad_registry/rounding_grad.py (rounding and
truncating division have none, as in TF; TruncateMod has no gradient in TF at all).
"""
from __future__ import annotations

from typing import Any, Optional

import math

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ..array import array_ops
from . import special_math_ops
from ..constant_op import convert_to_tensor
from ..op_helpers import apply_binary, apply_unary
from ..shape_rules import broadcast_binary, elementwise_unary, with_dtype
from .special_math_ops import quiet_kernel

_float_rule = elementwise_unary()


def _unary(op_type: str, kernel, kinds: str = "fc", grad_inputs=(0,), grad_outputs=()):
    return declare_op(op_type, quiet_kernel(kernel), _float_rule, input_kinds=kinds,
                      grad_inputs=grad_inputs, grad_outputs=grad_outputs)


_erfc_object = np.frompyfunc(math.erfc, 1, 1)


def _erfc(x):
    # libm's erfc keeps its relative accuracy in the tail, where 1 - erf(x) would not.
    return np.asarray(_erfc_object(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _truncate_div(x, y):
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise ZeroDivisionError("Integer division by zero")
        return (np.trunc(x / y)).astype(x.dtype)
    return np.trunc(x / y)


ACOSH = _unary("Acosh", np.arccosh, grad_inputs=(), grad_outputs=(0,))
ASINH = _unary("Asinh", np.arcsinh, grad_inputs=(), grad_outputs=(0,))
ATANH = _unary("Atanh", np.arctanh)
ERFC = _unary("Erfc", _erfc, "f")
FLOOR = _unary("Floor", np.floor, "f", grad_inputs=())
CEIL = _unary("Ceil", np.ceil, "f", grad_inputs=())
ROUND = _unary("Round", np.round, "fiu", grad_inputs=())    # half to even, as TF
RINT = _unary("Rint", np.rint, "f", grad_inputs=())
IS_INF = declare_op("IsInf", np.isinf, with_dtype(dtypes.bool_), input_kinds="f",
                    grad_inputs=())
TRUNCATE_DIV = declare_op("TruncateDiv", quiet_kernel(_truncate_div), broadcast_binary,
                          input_kinds="fiu", grad_inputs=())
TRUNCATE_MOD = declare_op("TruncateMod", quiet_kernel(np.fmod), broadcast_binary,
                          input_kinds="fiu", grad_inputs=())


def acosh(x: Any, name: Optional[str] = None):
    return apply_unary(ACOSH, x, name)


def asinh(x: Any, name: Optional[str] = None):
    return apply_unary(ASINH, x, name)


def atanh(x: Any, name: Optional[str] = None):
    return apply_unary(ATANH, x, name)


def erfc(x: Any, name: Optional[str] = None):
    """1 - erf(x)."""
    return apply_unary(ERFC, x, name)


def floor(x: Any, name: Optional[str] = None):
    return apply_unary(FLOOR, x, name)


def ceil(x: Any, name: Optional[str] = None):
    return apply_unary(CEIL, x, name)


def round(x: Any, name: Optional[str] = None):  # noqa: A001 (TF's name)
    """Rounds half to even, as TF (and NumPy)."""
    return apply_unary(ROUND, x, name)


def rint(x: Any, name: Optional[str] = None):
    return apply_unary(RINT, x, name)


def is_inf(x: Any, name: Optional[str] = None):
    return apply_unary(IS_INF, x, name)


def truncatediv(x: Any, y: Any, name: Optional[str] = None):
    """x / y rounded toward zero."""
    return apply_binary(TRUNCATE_DIV, x, y, name)


def truncatemod(x: Any, y: Any, name: Optional[str] = None):
    """The remainder of truncatediv: x - truncatediv(x, y) * y (C's fmod)."""
    return apply_binary(TRUNCATE_MOD, x, y, name)


def reciprocal_no_nan(x: Any, name: Optional[str] = None):
    """1 / x, and 0 where x == 0."""
    x = convert_to_tensor(x)
    return special_math_ops.divide_no_nan(array_ops.ones_like(x), x, name=name)


# Top-level names as in TF (tf.floor, tf.round, ...); erfc, ceil, rint, is_inf and
# reciprocal_no_nan are dg.math only (ops/math/math_only.py).
__all__ = ["acosh", "asinh", "atanh", "floor", "round", "truncatediv", "truncatemod"]
