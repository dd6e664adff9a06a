"""Gradients of the special math ops (ops/math/special_math_ops.py)."""
from __future__ import annotations

import math

from ..ops.math import math_ops, special_math_ops
from ..ops.math.complex_ops import conj_if_complex as conj
from ..ops.math.special_math_ops import (DIV_NO_NAN, ERF, EXPM1, IS_FINITE, IS_NAN, RECIPROCAL,
                                         SOFTPLUS, SQUARED_DIFFERENCE, XDIVY, XLOGY)
from .broadcast import unbroadcast
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(IS_NAN.type)
NotDifferentiable(IS_FINITE.type)

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


@RegisterGradient(EXPM1.type)
def _expm1_grad(op, grad):
    """grad * conj(exp(x))."""
    return grad * math_ops.exp(conj(op.inputs[0]))


@RegisterGradient(RECIPROCAL.type)
def _reciprocal_grad(op, grad):
    """-grad * conj(y**2), y = 1/x."""
    y = conj(op.outputs[0])
    return -grad * (y * y)


@RegisterGradient(SOFTPLUS.type)
def _softplus_grad(op, grad):
    """grad * sigmoid(x) (finite for any x)."""
    return grad * math_ops.sigmoid(op.inputs[0])


@RegisterGradient(ERF.type)
def _erf_grad(op, grad):
    """grad * 2/sqrt(pi) * exp(-x**2)."""
    x = op.inputs[0]
    return grad * (_TWO_OVER_SQRT_PI * math_ops.exp(-(x * x)))


@RegisterGradient(SQUARED_DIFFERENCE.type)
def _squared_difference_grad(op, grad):
    """(2 grad (x - y), -2 grad (x - y)); for complex inputs 2 Re(grad) (x - y), since the
    output is real-valued (its imaginary part is constant 0)."""
    x, y = op.inputs
    scaled = (grad + conj(grad)) if grad.dtype.is_complex else 2 * grad
    d = scaled * (x - y)
    skip = op.skip_input_indices
    return (None if 0 in skip else unbroadcast(d, x),
            None if 1 in skip else unbroadcast(-d, y))


@RegisterGradient(DIV_NO_NAN.type)
def _div_no_nan_grad(op, grad):
    """(div_no_nan(grad, conj(y)), grad * div_no_nan(div_no_nan(-conj(x), conj(y)), conj(y)))."""
    x, y = op.inputs
    xc, yc = conj(x), conj(y)
    skip = op.skip_input_indices
    dx = None if 0 in skip else unbroadcast(special_math_ops.divide_no_nan(grad, yc), x)
    dy = None if 1 in skip else unbroadcast(grad * special_math_ops.divide_no_nan(
        special_math_ops.divide_no_nan(-xc, yc), yc), y)
    return dx, dy


def _nonzero(x):
    """1 where x != 0, else 0, in x's dtype (a constant for differentiation)."""
    return math_ops.cast(math_ops.not_equal(x, 0), x.dtype)


@RegisterGradient(XLOGY.type)
def _xlogy_grad(op, grad):
    """(grad * xlogy(x != 0, y), grad * xdivy(x, y)), conjugated."""
    x, y = op.inputs
    xc, yc = conj(x), conj(y)
    skip = op.skip_input_indices
    dx = None if 0 in skip else unbroadcast(grad * special_math_ops.xlogy(_nonzero(xc), yc), x)
    dy = None if 1 in skip else unbroadcast(grad * special_math_ops.xdivy(xc, yc), y)
    return dx, dy


@RegisterGradient(XDIVY.type)
def _xdivy_grad(op, grad):
    """(grad * xdivy(x != 0, y), grad * xdivy(-x, y**2)), conjugated."""
    x, y = op.inputs
    xc, yc = conj(x), conj(y)
    skip = op.skip_input_indices
    dx = None if 0 in skip else unbroadcast(grad * special_math_ops.xdivy(_nonzero(xc), yc), x)
    dy = None if 1 in skip else unbroadcast(
        grad * special_math_ops.xdivy(-xc, yc * yc), y)
    return dx, dy
