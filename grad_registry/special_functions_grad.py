"""Gradients of the special functions (ops/math/special_functions_ops.py) and of
igamma / igammac / betainc / zeta (ops/math/incomplete_gamma_ops.py), TF's formulas.

Where TF's formula divides by x (BesselI1, BesselI1e, BesselJ1) it substitutes a constant
at x = 0, and so do we, with TF's constants (TF uses 1 for BesselI1 at 0)."""
from __future__ import annotations

import math

from ..ops.array import array_ops
from ..ops.math import gamma_ops, math_ops, nan_safe_ops, special_math_ops
from ..ops.math import special_functions_ops as sf
from ..ops.math.incomplete_gamma_ops import BETAINC, IGAMMA, IGAMMAC, ZETA, igamma_grad_a, zeta
from .broadcast import unbroadcast
from .registry import RegisterGradient

# IGAMMA_GRAD_A has no gradient, as in TF: a second derivative in `a` raises LookupError.


def _at_zero(x, value, elsewhere):
    """`value` where x == 0, else `elsewhere` (TF's where_v2 on equal(x, 0))."""
    return array_ops.where(math_ops.equal(x, 0), array_ops.ones_like(x) * value, elsewhere)


@RegisterGradient(sf.BESSEL_I0.type)
def _bessel_i0_grad(op, grad):
    """grad * I1(x)."""
    return grad * sf.bessel_i1(op.inputs[0])


@RegisterGradient(sf.BESSEL_I0E.type)
def _bessel_i0e_grad(op, grad):
    """grad * (I1e(x) - sign(x) y)."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (sf.bessel_i1e(x) - math_ops.sign(x) * y)


@RegisterGradient(sf.BESSEL_I1.type)
def _bessel_i1_grad(op, grad):
    """grad * (I0(x) - y / x), and TF's 1 at x = 0."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * _at_zero(x, 1.0, sf.bessel_i0(x) - y / x)


@RegisterGradient(sf.BESSEL_I1E.type)
def _bessel_i1e_grad(op, grad):
    """grad * (I0e(x) - y (sign(x) + 1 / x)), 0.5 at x = 0."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * _at_zero(x, 0.5, sf.bessel_i0e(x) - y * (math_ops.sign(x) + 1 / x))


@RegisterGradient(sf.BESSEL_K0.type)
def _bessel_k0_grad(op, grad):
    """-grad * K1(x)."""
    return grad * -sf.bessel_k1(op.inputs[0])


@RegisterGradient(sf.BESSEL_K0E.type)
def _bessel_k0e_grad(op, grad):
    """grad * (y - K1e(x))."""
    return grad * (op.outputs[0] - sf.bessel_k1e(op.inputs[0]))


@RegisterGradient(sf.BESSEL_K1.type)
def _bessel_k1_grad(op, grad):
    """grad * (-K0(x) - y / x)."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (-sf.bessel_k0(x) - y / x)


@RegisterGradient(sf.BESSEL_K1E.type)
def _bessel_k1e_grad(op, grad):
    """grad * (y (1 - 1 / x) - K0e(x))."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (y * (1 - 1 / x) - sf.bessel_k0e(x))


@RegisterGradient(sf.BESSEL_J0.type)
def _bessel_j0_grad(op, grad):
    """-grad * J1(x)."""
    return grad * -sf.bessel_j1(op.inputs[0])


@RegisterGradient(sf.BESSEL_J1.type)
def _bessel_j1_grad(op, grad):
    """grad * (J0(x) - y / x), 0.5 at x = 0."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * _at_zero(x, 0.5, sf.bessel_j0(x) - y / x)


@RegisterGradient(sf.BESSEL_Y0.type)
def _bessel_y0_grad(op, grad):
    """-grad * Y1(x)."""
    return grad * -sf.bessel_y1(op.inputs[0])


@RegisterGradient(sf.BESSEL_Y1.type)
def _bessel_y1_grad(op, grad):
    """grad * (Y0(x) - y / x)."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (sf.bessel_y0(x) - y / x)


@RegisterGradient(sf.DAWSN.type)
def _dawsn_grad(op, grad):
    """grad * (1 - 2 x y)."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (1 - 2 * x * y)


@RegisterGradient(sf.EXPINT.type)
def _expint_grad(op, grad):
    """grad * exp(x) / x."""
    x = op.inputs[0]
    return grad * (math_ops.exp(x) / x)


@RegisterGradient(sf.FRESNEL_COS.type)
def _fresnel_cos_grad(op, grad):
    """grad * cos(pi/2 x**2)."""
    x = op.inputs[0]
    return grad * math_ops.cos(math.pi / 2 * math_ops.square(x))


@RegisterGradient(sf.FRESNEL_SIN.type)
def _fresnel_sin_grad(op, grad):
    """grad * sin(pi/2 x**2)."""
    x = op.inputs[0]
    return grad * math_ops.sin(math.pi / 2 * math_ops.square(x))


@RegisterGradient(sf.SPENCE.type)
def _spence_grad(op, grad):
    """grad * log(x) / (1 - x), -1 at x = 1."""
    x = op.inputs[0]
    partial = math_ops.log(x) / (1 - x)
    ones = array_ops.ones_like(x)
    return grad * array_ops.where(math_ops.equal(x, 1), -ones, partial)


@RegisterGradient(sf.ERFINV.type)
def _erfinv_grad(op, grad):
    """grad * sqrt(pi) / 2 * exp(erfinv(x)**2)."""
    y = op.outputs[0]
    return grad * (math.sqrt(math.pi) / 2) * math_ops.exp(math_ops.square(y))


@RegisterGradient(sf.NDTRI.type)
def _ndtri_grad(op, grad):
    """grad * sqrt(2 pi) * exp(ndtri(x)**2 / 2)."""
    y = op.outputs[0]
    return grad * math.sqrt(2 * math.pi) * math_ops.exp(math_ops.square(y) / 2)


def _igamma_partials(op, grad):
    a, x = op.inputs
    partial_a = igamma_grad_a(a, x)
    # In log space: Gamma(a) and x**(a-1) overflow long before their ratio does.
    partial_x = math_ops.exp(-x + (a - 1) * math_ops.log(x) - gamma_ops.lgamma(a))
    return unbroadcast(partial_a * grad, a), unbroadcast(partial_x * grad, x)


@RegisterGradient(IGAMMA.type)
def _igamma_grad(op, grad):
    """(grad * IgammaGradA(a, x), grad * x**(a-1) e**-x / Gamma(a)), unbroadcast."""
    return _igamma_partials(op, grad)


@RegisterGradient(IGAMMAC.type)
def _igammac_grad(op, grad):
    """The negated gradient of igamma (igammac = 1 - igamma)."""
    da, dx = _igamma_partials(op, grad)
    return -da, -dx


@RegisterGradient(BETAINC.type)
def _betainc_grad(op, grad):
    """(None, None, grad * x**(a-1) (1-x)**(b-1) / B(a, b)): TF has no gradient in a, b."""
    a, b, x = op.inputs
    log_beta = gamma_ops.lgamma(a) + gamma_ops.lgamma(b) - gamma_ops.lgamma(a + b)
    partial_x = math_ops.exp(nan_safe_ops.xlog1py(b - 1, -x)
                             + special_math_ops.xlogy(a - 1, x) - log_beta)
    return None, None, unbroadcast(partial_x * grad, x)


@RegisterGradient(ZETA.type)
def _zeta_grad(op, grad):
    """(None, grad * -x zeta(x + 1, q)): TF has no gradient in x."""
    x, q = op.inputs
    return None, unbroadcast(-x * zeta(x + 1, q) * grad, q)
