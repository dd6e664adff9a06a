"""Gradients of the eager GELU ops (ops/nn/gelu_ops.py): `Gelu` by the fused
`GeluGrad`, and `GeluGrad` by itself (in dy) and composite math ops (in x), so that
higher-order gradients and forward mode (the double VJP) work through it."""
from __future__ import annotations

from typing import Any

from ..ops.math import math_ops
from ..ops.dispatch import apply_op
from ..ops.nn.gelu_ops import CUBE_SCALE, GELU, GELU_GRAD, INV_SQRT_2PI, TANH_SCALE
from .broadcast import unbroadcast
from .registry import RegisterGradient


@RegisterGradient(GELU.type)
def _gelu_grad(op, grad):
    """grad * gelu'(x), one op."""
    return apply_op(GELU_GRAD, (grad, op.inputs[0]),
                    {"approximate": op.get_attr("approximate")})


@RegisterGradient(GELU_GRAD.type)
def _gelu_grad_grad(op, grad):
    """GeluGrad(dy, x) = dy * gelu'(x): d/d dy = GeluGrad(grad, x), d/dx = grad * dy * gelu''(x)."""
    dy, x = op.inputs
    approximate = op.get_attr("approximate")
    d_dy = apply_op(GELU_GRAD, (grad, x), {"approximate": approximate})
    return unbroadcast(d_dy, dy), unbroadcast(grad * dy * _second_derivative(x, approximate), x)


def _second_derivative(x: Any, approximate: bool) -> Any:
    """gelu''(x) as math ops (gelu' itself is the GeluGrad kernel).

    tanh form, u = c (x + a x^3), t = tanh(u), s = 1 - t^2, u' = c (1 + 3 a x^2),
    u'' = 6 a c x: gelu'' = s u' - x t s u'^2 + x s u'' / 2.
    erf form: gelu'' = phi(x) (2 - x^2)."""
    if approximate:
        square = x * x
        t = math_ops.tanh(TANH_SCALE * (x + CUBE_SCALE * square * x))
        s = 1.0 - t * t
        slope = TANH_SCALE * (1.0 + 3.0 * CUBE_SCALE * square)
        return s * slope - x * t * s * slope * slope + 0.5 * x * s * (
            6.0 * CUBE_SCALE * TANH_SCALE * x)
    return INV_SQRT_2PI * math_ops.exp(-0.5 * x * x) * (2.0 - x * x)
