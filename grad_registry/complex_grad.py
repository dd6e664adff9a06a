"""Gradients of Real, Imag, Conj, Complex (ops/math/complex_ops.py), TF's conjugate convention."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math import complex_ops
from ..ops.math.complex_ops import COMPLEX, CONJ, IMAG, REAL
from .broadcast import unbroadcast
from .registry import RegisterGradient


@RegisterGradient(REAL.type)
def _real_grad(op, grad):
    """complex(grad, 0): the real part moves z along the real axis."""
    return complex_ops.complex(grad, array_ops.zeros_like(grad))


@RegisterGradient(IMAG.type)
def _imag_grad(op, grad):
    """complex(0, grad): the imaginary part moves z along the imaginary axis."""
    return complex_ops.complex(array_ops.zeros_like(grad), grad)


@RegisterGradient(CONJ.type)
def _conj_grad(op, grad):
    """conj(grad)."""
    return complex_ops.conj(grad)


@RegisterGradient(COMPLEX.type)
def _complex_grad(op, grad):
    """(real(grad), imag(grad)), unbroadcast."""
    x, y = op.inputs
    return (unbroadcast(complex_ops.real(grad), x), unbroadcast(complex_ops.imag(grad), y))
