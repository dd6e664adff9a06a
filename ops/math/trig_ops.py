"""Trigonometric and hyperbolic ops beyond sin/cos/tanh. Gradients: grad_registry/trig_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ..op_helpers import apply_binary, apply_unary
from .special_math_ops import quiet_kernel
from ..shape_rules import broadcast_binary, elementwise_unary

_float_rule = elementwise_unary()


def _unary(op_type: str, kernel):
    return declare_op(op_type, quiet_kernel(kernel), _float_rule, input_kinds="fc",
                      grad_inputs=(0,))


TAN = _unary("Tan", np.tan)
ASIN = _unary("Asin", np.arcsin)
ACOS = _unary("Acos", np.arccos)
ATAN = _unary("Atan", np.arctan)
SINH = _unary("Sinh", np.sinh)
COSH = _unary("Cosh", np.cosh)
ATAN2 = declare_op("Atan2", quiet_kernel(np.arctan2), broadcast_binary, input_kinds="f")


def tan(x: Any, name: Optional[str] = None):
    return apply_unary(TAN, x, name)


def asin(x: Any, name: Optional[str] = None):
    return apply_unary(ASIN, x, name)


def acos(x: Any, name: Optional[str] = None):
    return apply_unary(ACOS, x, name)


def atan(x: Any, name: Optional[str] = None):
    return apply_unary(ATAN, x, name)


def sinh(x: Any, name: Optional[str] = None):
    return apply_unary(SINH, x, name)


def cosh(x: Any, name: Optional[str] = None):
    return apply_unary(COSH, x, name)


def atan2(y: Any, x: Any, name: Optional[str] = None):
    """The angle of the point (x, y): arctan(y / x) in the right quadrant."""
    return apply_binary(ATAN2, y, x, name)


__all__ = ["tan", "asin", "acos", "atan", "sinh", "cosh", "atan2"]
