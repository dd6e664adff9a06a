"""lgamma, digamma and polygamma (primitives, as TF), in float64 NumPy without SciPy.
Gradients: grad_registry/gamma_grad.py (lgamma' = digamma, digamma' = polygamma(1, .))."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ..op_helpers import apply_binary, apply_unary
from ..shape_rules import broadcast_binary, elementwise_unary

# Bernoulli numbers B2, B4, ..., B20 for the asymptotic series.
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330]
_SHIFT = 10.0  # the series is used for x >= 10, reached by recurrence


def _lgamma_scalar(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # a pole (0, -1, -2, ...): log|Gamma| is +inf, as TF
        return math.inf


_lgamma_object = np.frompyfunc(_lgamma_scalar, 1, 1)


def _lgamma(x):
    return np.asarray(_lgamma_object(x.astype(np.float64)), np.float64).astype(x.dtype)


def _digamma_positive(x: np.ndarray) -> np.ndarray:
    """psi(x) for x > 0: recurrence up to x >= 10, then the asymptotic series."""
    result = np.zeros_like(x)
    x = x.copy()
    small = x < _SHIFT
    while small.any():
        result[small] -= 1 / x[small]
        x[small] += 1
        small = x < _SHIFT
    inv2 = 1 / (x * x)
    series = np.zeros_like(x)
    power = np.ones_like(x)
    for k, b in enumerate(_BERNOULLI, start=1):
        power = power * inv2
        series += b / (2 * k) * power
    return result + np.log(x) - 0.5 / x - series


def _digamma(x):
    v = x.astype(np.float64)
    out = np.full(v.shape, np.nan)
    with np.errstate(all="ignore"):
        positive = v > 0
        out[positive] = _digamma_positive(v[positive])
        negative = (v < 0) & (v != np.floor(v))   # reflection: psi(1-x) - pi / tan(pi x)
        out[negative] = _digamma_positive(1 - v[negative]) - np.pi / np.tan(np.pi * v[negative])
    return out.astype(x.dtype)


def _hurwitz_zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) = sum_k (q + k)**-s for integer s > 1 (negative q too, as TF): the first
    terms summed until q + k >= 10, the rest by Euler-Maclaurin."""
    total = np.zeros(np.broadcast(s, q).shape)
    s, q = np.broadcast_to(s, total.shape), np.broadcast_to(q, total.shape)
    terms = 10 + (int(math.ceil(-q.min())) if q.size and q.min() < 0 else 0)
    for k in range(terms):
        total += (q + k) ** -s
    a = q + terms
    total += a ** (1 - s) / (s - 1) + 0.5 * a ** -s
    factor = s * a ** (-s - 1)
    for j, b in enumerate(_BERNOULLI, start=1):
        total += b / math.factorial(2 * j) * factor
        factor = factor * (s + 2 * j) * (s + 2 * j - 1) / (a * a)
    return total


def _polygamma(n, x):
    order = n.astype(np.float64)
    v = x.astype(np.float64)
    shape = np.broadcast(order, v).shape
    order, v = np.broadcast_to(order, shape), np.broadcast_to(v, shape)
    out = np.full(shape, np.nan)
    with np.errstate(all="ignore"):
        digamma = order == 0
        out[digamma] = _digamma(v[digamma])
        higher = (order >= 1) & (order == np.floor(order))
        k = order[higher]
        signs = np.where(k % 2 == 1, 1.0, -1.0)
        factorials = np.array([math.factorial(int(i)) for i in k])
        out[higher] = signs * factorials * _hurwitz_zeta(k + 1, v[higher])
    return out.astype(np.result_type(n.dtype, x.dtype))


LGAMMA = declare_op("Lgamma", _lgamma, elementwise_unary(), input_kinds="f")
DIGAMMA = declare_op("Digamma", _digamma, elementwise_unary(), input_kinds="f")
POLYGAMMA = declare_op("Polygamma", _polygamma, broadcast_binary, input_kinds="f")


def lgamma(x: Any, name: Optional[str] = None):
    """log |Gamma(x)| (+inf at the poles 0, -1, -2, ...)."""
    return apply_unary(LGAMMA, x, name)


def digamma(x: Any, name: Optional[str] = None):
    """psi(x) = d lgamma(x) / dx (NaN at the poles)."""
    return apply_unary(DIGAMMA, x, name)


def polygamma(a: Any, x: Any, name: Optional[str] = None):
    """The a-th derivative of digamma at x (a a non-negative integer, else NaN)."""
    return apply_binary(POLYGAMMA, a, x, name)


__all__ = ["lgamma", "digamma", "polygamma"]
