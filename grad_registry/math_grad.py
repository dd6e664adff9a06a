"""Gradients of the elementwise math ops (ops/math/math_ops.py), written with public ops only."""
from __future__ import annotations

from ..ops.math import math_ops
from ..ops.math.math_ops import (ABS, ADD, CAST, COS, EXP, LOG, LOG1P, MAXIMUM, MINIMUM, MUL, NEG,
                                 POW, REAL_DIV, RSQRT, SIGMOID, SIGMOID_GRAD, SIGN, SIN, SQRT,
                                 SQUARE, SUB, TANH, TANH_GRAD, FLOOR_DIV, FLOOR_MOD, EQUAL,
                                 NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, LOGICAL_AND,
                                 LOGICAL_OR, LOGICAL_NOT)
from ..ops.array import array_ops
from ..ops.math import complex_ops, special_math_ops
from ..ops.math.complex_ops import conj_if_complex as _conj
from .broadcast import unbroadcast
from .registry import NotDifferentiable, RegisterGradient

# TF registers FloorDiv's gradient as (None, None): the same as not differentiable.
for _op in (FLOOR_DIV, EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL,
            LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT):
    NotDifferentiable(_op.type)


@RegisterGradient(SIGN.type)
def _sign_grad(op, grad):
    """Zero: sign is piecewise constant (TF returns zeros, not None)."""
    return array_ops.zeros_like(grad)


@RegisterGradient(FLOOR_MOD.type)
def _floor_mod_grad(op, grad):
    """x mod y = x - floor(x / y) * y: d = (grad, -grad * floor(x / y)), unbroadcast."""
    x, y = op.inputs
    dy = None if 1 in op.skip_input_indices else unbroadcast(
        grad * -math_ops.floordiv(_conj(x), _conj(y)), y)
    return unbroadcast(grad, x), dy


@RegisterGradient(ADD.type)
def _add_grad(op, grad):
    """d(x+y) = (grad, grad), unbroadcast."""
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(grad, y)


@RegisterGradient(SUB.type)
def _sub_grad(op, grad):
    """d(x-y) = (grad, -grad), unbroadcast."""
    x, y = op.inputs
    dy = None if 1 in op.skip_input_indices else unbroadcast(-grad, y)
    return unbroadcast(grad, x), dy


@RegisterGradient(MUL.type)
def _mul_grad(op, grad):
    """d(x*y) = (grad * conj(y), conj(x) * grad)."""
    x, y = op.inputs
    skip = op.skip_input_indices
    dx = None if 0 in skip else unbroadcast(grad * _conj(y), x)
    dy = None if 1 in skip else unbroadcast(_conj(x) * grad, y)
    return dx, dy


@RegisterGradient(REAL_DIV.type)
def _real_div_grad(op, grad):
    """d(x/y) = (grad / conj(y), -grad * conj(x / y**2))."""
    x, y = op.inputs
    skip = op.skip_input_indices
    dx = None if 0 in skip else unbroadcast(grad / _conj(y), x)
    dy = None if 1 in skip else unbroadcast(grad * _conj(-x / (y * y)), y)
    return dx, dy


@RegisterGradient(NEG.type)
def _neg_grad(op, grad):
    """d(-x) = -grad."""
    return -grad


@RegisterGradient(SIN.type)
def _sin_grad(op, grad):
    """grad * cos(x)."""
    return grad * _conj(math_ops.cos(op.inputs[0]))


@RegisterGradient(COS.type)
def _cos_grad(op, grad):
    """-grad * sin(x)."""
    return -grad * _conj(math_ops.sin(op.inputs[0]))


@RegisterGradient(TANH.type)
def _tanh_grad(op, grad):
    """grad * (1 - y**2), y = tanh(x), as one TanhGrad op."""
    return math_ops.tanh_grad(_conj(op.outputs[0]), grad)


@RegisterGradient(TANH_GRAD.type)
def _tanh_grad_grad(op, grad):
    """For z = dy (1 - y**2): dz/dy = -2 y dy, dz/d(dy) = 1 - y**2."""
    y, dy = _conj(op.inputs[0]), _conj(op.inputs[1])
    return grad * (-2.0 * y * dy), math_ops.tanh_grad(y, grad)


@RegisterGradient(EXP.type)
def _exp_grad(op, grad):
    """grad * y, y = exp(x)."""
    return grad * _conj(op.outputs[0])


@RegisterGradient(LOG.type)
def _log_grad(op, grad):
    """grad / x."""
    return grad / _conj(op.inputs[0])


@RegisterGradient(LOG1P.type)
def _log1p_grad(op, grad):
    """grad / (1 + x)."""
    return grad / (1 + _conj(op.inputs[0]))


@RegisterGradient(SQRT.type)
def _sqrt_grad(op, grad):
    """grad * 0.5 / y, y = sqrt(x); 0 where y == 0 (the subgradient 0; TF gives inf)."""
    return special_math_ops.divide_no_nan(grad * 0.5, _conj(op.outputs[0]))


@RegisterGradient(RSQRT.type)
def _rsqrt_grad(op, grad):
    """grad * -0.5 * y**3, y = 1/sqrt(x)."""
    y = _conj(op.outputs[0])
    return grad * (-0.5 * y * y * y)


@RegisterGradient(SQUARE.type)
def _square_grad(op, grad):
    """grad * 2x."""
    return grad * (2 * _conj(op.inputs[0]))


@RegisterGradient(ABS.type)
def _abs_grad(op, grad):
    """grad * sign(x) (0 at x = 0); for complex x, grad * x / |x| (0 at x = 0)."""
    x = op.inputs[0]
    if not x.dtype.is_complex:
        return grad * math_ops.sign(x)
    y = op.outputs[0]
    return special_math_ops.divide_no_nan(
        complex_ops.complex(grad, array_ops.zeros_like(grad)) * x,
        complex_ops.complex(y, array_ops.zeros_like(y)))


@RegisterGradient(SIGMOID.type)
def _sigmoid_grad(op, grad):
    """grad * y * (1 - y), y = sigmoid(x), as one SigmoidGrad op."""
    return math_ops.sigmoid_grad(_conj(op.outputs[0]), grad)


@RegisterGradient(SIGMOID_GRAD.type)
def _sigmoid_grad_grad(op, grad):
    """For z = dy y (1 - y): dz/dy = dy (1 - 2 y), dz/d(dy) = y (1 - y)."""
    y, dy = _conj(op.inputs[0]), _conj(op.inputs[1])
    return grad * dy * (1 - 2.0 * y), math_ops.sigmoid_grad(y, grad)


@RegisterGradient(POW.type)
def _pow_grad(op, grad):
    """d(x**y) = (grad * y * x**(y-1), grad * z * log(x)), log(x) = 0 where x <= 0 (x == 0)."""
    x, y = op.inputs
    z = op.outputs[0]
    skip = op.skip_input_indices
    dx = None if 0 in skip else unbroadcast(grad * _conj(y * math_ops.pow(x, y - 1)), x)
    dy = None
    if 1 not in skip:
        # log(x) where x > 0 (x != 0 for complex x), else 0, as TF.
        usable = math_ops.not_equal(x, 0) if x.dtype.is_complex else math_ops.greater(x, 0)
        safe_log = array_ops.where(usable, math_ops.log(
            array_ops.where(usable, x, array_ops.ones_like(x))), array_ops.zeros_like(x))
        dy = unbroadcast(grad * _conj(z * safe_log), y)
    return dx, dy


def _minmax_grad(op, grad, select_x):
    x, y = op.inputs
    mask = select_x(x, y)
    zeros = array_ops.zeros_like(grad)
    return (unbroadcast(array_ops.where(mask, grad, zeros), x),
            unbroadcast(array_ops.where(mask, zeros, grad), y))


@RegisterGradient(MAXIMUM.type)
def _maximum_grad(op, grad):
    """grad goes to x where x >= y, else to y."""
    return _minmax_grad(op, grad, math_ops.greater_equal)


@RegisterGradient(MINIMUM.type)
def _minimum_grad(op, grad):
    """grad goes to x where x <= y, else to y."""
    return _minmax_grad(op, grad, math_ops.less_equal)


@RegisterGradient(CAST.type)
def _cast_grad(op, grad):
    """grad cast back to the input's dtype (None for integer inputs)."""
    x = op.inputs[0]
    if not x.dtype.is_differentiable or not grad.dtype.is_differentiable:
        return None
    return math_ops.cast(grad, x.dtype)
