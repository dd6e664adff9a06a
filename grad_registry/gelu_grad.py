"""Gradients of the eager GELU ops (ops/nn/gelu_ops.py): `Gelu` by the fused
`GeluGrad`, and `GeluGrad` by itself (in dy) and composite math ops (in x and in the
reserve t), so that higher-order gradients and forward mode (the double VJP) work
through it.

`Gelu(x) = (gelu, t)`; `GeluGrad(dy, x, t) = dy * g(x, t)`, where g(x, t(x)) is
gelu'(x). Each partial is the exact one with the other argument held fixed, so that
any path through t (none reaches a user: `tf.nn.gelu` returns only the first output)
adds up to the total derivative:
- tanh form, s(x) = c (1 + 3 a x^2), t = tanh(c (x + a x^3)), t' = (1 - t^2) s:
  g = (1 + t + x (1 - t^2) s) / 2; dg/dx = (1 - t^2) (s + 6 a c x^2) / 2,
  dg/dt = (1 - 2 x t s) / 2;
- erf form, phi the standard normal density, t = erf(x / sqrt 2), t' = 2 phi(x):
  g = (1 + t) / 2 + x phi(x); dg/dx = phi(x) (1 - x^2), dg/dt = 1 / 2.
"""
from __future__ import annotations

from typing import Any, Optional

from ..ops.math import math_ops
from ..ops.dispatch import apply_op
from ..ops.nn.gelu_ops import CUBE_SCALE, GELU, GELU_GRAD, INV_SQRT_2PI, TANH_SCALE
from .broadcast import unbroadcast
from .registry import RegisterGradient


@RegisterGradient(GELU.type, accepts_none=(1,))
def _gelu_grad(op: Any, grad: Any, grad_t: Optional[Any]) -> Any:
    """grad * gelu'(x), one op (plus grad_t * t'(x) if anything read t)."""
    x, t = op.inputs[0], op.outputs[1]
    approximate = op.get_attr("approximate")
    dx = apply_op(GELU_GRAD, (grad, x, t), {"approximate": approximate})
    if grad_t is not None:
        dx = dx + grad_t * _reserve_derivative(x, t, approximate)
    return dx


@RegisterGradient(GELU_GRAD.type)
def _gelu_grad_grad(op: Any, grad: Any) -> Any:
    """GeluGrad(dy, x, t) = dy * g(x, t): d/d dy = GeluGrad(grad, x, t); d/dx and d/dt
    = grad * dy * the partials of g (module docstring)."""
    dy, x, t = op.inputs
    approximate = op.get_attr("approximate")
    d_dy = apply_op(GELU_GRAD, (grad, x, t), {"approximate": approximate})
    upstream = grad * dy
    if approximate:
        one_minus_square = 1.0 - t * t
        slope = TANH_SCALE * (1.0 + 3.0 * CUBE_SCALE * x * x)
        d_x = 0.5 * one_minus_square * (slope + 6.0 * CUBE_SCALE * TANH_SCALE * x * x)
        d_t = 0.5 - x * t * slope
    else:
        d_x = _density(x) * (1.0 - x * x)
        d_t = 0.5
    return (unbroadcast(d_dy, dy), unbroadcast(upstream * d_x, x),
            unbroadcast(upstream * d_t, t))


def _reserve_derivative(x: Any, t: Any, approximate: bool) -> Any:
    """t'(x): (1 - t^2) s(x) (tanh form) or 2 phi(x) (erf form)."""
    if approximate:
        return (1.0 - t * t) * (TANH_SCALE * (1.0 + 3.0 * CUBE_SCALE * x * x))
    return 2.0 * _density(x)


def _density(x: Any) -> Any:
    """phi(x) = exp(-x^2 / 2) / sqrt(2 pi)."""
    return INV_SQRT_2PI * math_ops.exp(-0.5 * x * x)
