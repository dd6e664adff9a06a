"""Gradients of the trigonometric and hyperbolic ops (ops/math/trig_ops.py)."""
from __future__ import annotations

from ..ops.math import math_ops, special_math_ops, trig_ops
from ..ops.math.complex_ops import conj_if_complex as conj
from ..ops.math.trig_ops import ACOS, ASIN, ATAN, ATAN2, COSH, SINH, TAN
from .broadcast import unbroadcast
from .registry import RegisterGradient


@RegisterGradient(TAN.type)
def _tan_grad(op, grad):
    """grad * conj(sec(x)**2)."""
    secant = special_math_ops.reciprocal(math_ops.cos(conj(op.inputs[0])))
    return grad * (secant * secant)


@RegisterGradient(ASIN.type)
def _asin_grad(op, grad):
    """grad * conj(1 / sqrt(1 - x**2))."""
    x = conj(op.inputs[0])
    return grad * math_ops.rsqrt(1 - x * x)


@RegisterGradient(ACOS.type)
def _acos_grad(op, grad):
    """-grad * conj(1 / sqrt(1 - x**2))."""
    x = conj(op.inputs[0])
    return -grad * math_ops.rsqrt(1 - x * x)


@RegisterGradient(ATAN.type)
def _atan_grad(op, grad):
    """grad * conj(1 / (1 + x**2))."""
    x = conj(op.inputs[0])
    return grad / (1 + x * x)


@RegisterGradient(SINH.type)
def _sinh_grad(op, grad):
    """grad * conj(cosh(x))."""
    return grad * trig_ops.cosh(conj(op.inputs[0]))


@RegisterGradient(COSH.type)
def _cosh_grad(op, grad):
    """grad * conj(sinh(x))."""
    return grad * trig_ops.sinh(conj(op.inputs[0]))


@RegisterGradient(ATAN2.type)
def _atan2_grad(op, grad):
    """For atan2(y, x): (grad * x, -grad * y) / (x**2 + y**2)."""
    y, x = op.inputs
    scaled = grad / (x * x + y * y)
    return unbroadcast(scaled * x, y), unbroadcast(-scaled * y, x)
