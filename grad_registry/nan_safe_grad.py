"""Gradients of xlog1py, multiply_no_nan and nextafter (ops/math/nan_safe_ops.py), as TF's."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math import math_ops, special_math_ops
from ..ops.math.complex_ops import conj_if_complex as conj
from ..ops.math.nan_safe_ops import MUL_NO_NAN, NEXT_AFTER, XLOG1PY, multiply_no_nan, xlog1py
from .broadcast import unbroadcast
from .registry import RegisterGradient


@RegisterGradient(XLOG1PY.type)
def _xlog1py_grad(op, grad):
    """(grad * xlog1py(x != 0, y), grad * xdivy(x, y + 1)), conjugated."""
    x, y = op.inputs
    xc, yc = conj(x), conj(y)
    skip = op.skip_input_indices
    nonzero_x = math_ops.cast(math_ops.not_equal(xc, 0), x.dtype)
    dx = None if 0 in skip else unbroadcast(grad * xlog1py(nonzero_x, yc), x)
    dy = None if 1 in skip else unbroadcast(grad * special_math_ops.xdivy(xc, yc + 1), y)
    return dx, dy


@RegisterGradient(MUL_NO_NAN.type)
def _mul_no_nan_grad(op, grad):
    """(mul_no_nan(grad, y), mul_no_nan(x, grad)): no NaN where the other factor is 0."""
    x, y = op.inputs
    skip = op.skip_input_indices
    dx = None if 0 in skip else unbroadcast(multiply_no_nan(grad, y), x)
    dy = None if 1 in skip else unbroadcast(multiply_no_nan(x, grad), y)
    return dx, dy


@RegisterGradient(NEXT_AFTER.type)
def _next_after_grad(op, grad):
    """(grad, 0): a one-ulp step follows x1 and does not depend on x2's value."""
    x1, x2 = op.inputs
    return unbroadcast(grad, x1), unbroadcast(array_ops.zeros_like(grad), x2)
