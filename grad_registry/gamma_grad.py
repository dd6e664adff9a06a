"""Gradients of lgamma, digamma and polygamma (ops/math/gamma_ops.py), as TF's."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math.complex_ops import conj_if_complex as conj
from ..ops.math.gamma_ops import DIGAMMA, LGAMMA, POLYGAMMA, digamma, polygamma
from .broadcast import unbroadcast
from .registry import RegisterGradient


@RegisterGradient(LGAMMA.type)
def _lgamma_grad(op, grad):
    """grad * digamma(x)."""
    return grad * digamma(conj(op.inputs[0]))


@RegisterGradient(DIGAMMA.type)
def _digamma_grad(op, grad):
    """grad * polygamma(1, x)."""
    x = conj(op.inputs[0])
    return grad * polygamma(array_ops.ones_like(x), x)


@RegisterGradient(POLYGAMMA.type)
def _polygamma_grad(op, grad):
    """(None, grad * polygamma(n + 1, x)): the order is not differentiable."""
    n, x = op.inputs
    return None, unbroadcast(grad * polygamma(conj(n) + 1, conj(x)), x)
