"""Gradients of the ops in ops/math/rounding_ops.py, as TF's."""
from __future__ import annotations

import math

from ..ops.math import math_ops, trig_ops
from ..ops.math.complex_ops import conj_if_complex as conj
from ..ops.math.rounding_ops import (ACOSH, ASINH, ATANH, CEIL, ERFC, FLOOR, IS_INF, RINT, ROUND,
                                     TRUNCATE_DIV)
from .registry import NotDifferentiable, RegisterGradient

# TF registers gradient functions returning None for these (piecewise constant), and
# nothing for TruncateMod (differentiating through it is a LookupError, as in TF).
for _op in (FLOOR, CEIL, ROUND, RINT, TRUNCATE_DIV, IS_INF):
    NotDifferentiable(_op.type)

_MINUS_TWO_OVER_SQRT_PI = -2 / math.sqrt(math.pi)


@RegisterGradient(ACOSH.type)
def _acosh_grad(op, grad):
    """grad / conj(sinh(y)), y = acosh(x)."""
    return grad / trig_ops.sinh(conj(op.outputs[0]))


@RegisterGradient(ASINH.type)
def _asinh_grad(op, grad):
    """grad / conj(cosh(y)), y = asinh(x)."""
    return grad / trig_ops.cosh(conj(op.outputs[0]))


@RegisterGradient(ATANH.type)
def _atanh_grad(op, grad):
    """grad / (1 - conj(x)**2)."""
    x = conj(op.inputs[0])
    return grad / (1 - x * x)


@RegisterGradient(ERFC.type)
def _erfc_grad(op, grad):
    """-grad * 2/sqrt(pi) * exp(-x**2)."""
    x = op.inputs[0]
    return grad * (_MINUS_TWO_OVER_SQRT_PI * math_ops.exp(-(x * x)))
