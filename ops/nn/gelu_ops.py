"""GELU as one eager op: `Gelu(x)` and its adjoint `GeluGrad(dy, x)`.

TensorFlow's `tf.nn.gelu` is a composite of math ops (cube, scale, add, tanh or
erf, multiply), and graph mode keeps exactly that composite: TF has no Gelu op,
so a GraphDef or SavedModel holding one could not be read back by TensorFlow.
Run eagerly, the composite makes about eight fresh arrays forward and fifteen in
its gradient, each of them written (and, for large activations, page-faulted
in) once; `Gelu` computes the same float operations in the same order, in
place on two arrays, so its values are bit-equal to the composite's, and
`GeluGrad` computes the derivative in three. Gradients: grad_registry/gelu_grad.py.
"""
from __future__ import annotations

import math

import numpy as np

from ...framework.op_def import declare_op
from ..math.math_ops import POW
from ..math.special_math_ops import ERF
from ..shape_rules import broadcast_binary, elementwise_unary

# The composite's constants, as tf.nn.gelu writes them.
TANH_SCALE = 0.7978845608028654       # sqrt(2 / pi)
CUBE_SCALE = 0.044715
ERF_SCALE = 0.7071067811865476        # 1 / sqrt(2)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _gelu_kernel(x: np.ndarray, *, approximate: bool) -> np.ndarray:
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) or 0.5 x (1 + erf(x / sqrt 2)),
    operation for operation as the composite computes it in x's dtype."""
    kind = x.dtype.type
    with np.errstate(all="ignore"):
        if approximate:
            inner = _own(POW.kernel(x, np.asarray(3, x.dtype)))   # the composite's Pow
            inner *= kind(CUBE_SCALE)
            inner += x
            inner *= kind(TANH_SCALE)
            np.tanh(inner, out=inner)
        else:
            inner = _own(ERF.kernel(np.multiply(x, kind(ERF_SCALE))))
        inner += kind(1.0)
        half = np.multiply(x, kind(0.5))
        half *= inner
    return half


def _gelu_grad_kernel(dy: np.ndarray, x: np.ndarray, *, approximate: bool) -> np.ndarray:
    """dy * gelu'(x): 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2),
    t = tanh(sqrt(2/pi) (x + 0.044715 x^3)); exactly Phi(x) + x phi(x)."""
    kind = x.dtype.type
    with np.errstate(all="ignore"):
        if approximate:
            slope = np.multiply(x, x)                       # u' = c (1 + 3 a x^2)
            t = np.multiply(slope, x)
            slope *= kind(3.0 * CUBE_SCALE)
            slope += kind(1.0)
            slope *= kind(TANH_SCALE)
            t *= kind(CUBE_SCALE)                           # t = tanh(c (x + a x^3))
            t += x
            t *= kind(TANH_SCALE)
            np.tanh(t, out=t)
            out = np.multiply(t, t)                         # 0.5 x (1 - t^2) u'
            np.subtract(kind(1.0), out, out=out)
            out *= slope
            out *= x
            out *= kind(0.5)
            t += kind(1.0)                                  # + 0.5 (1 + t)
            t *= kind(0.5)
            out += t
        else:
            out = _own(ERF.kernel(np.multiply(x, kind(ERF_SCALE))))   # Phi(x)
            out += kind(1.0)
            out *= kind(0.5)
            density = np.multiply(x, x)                     # x phi(x)
            density *= kind(-0.5)
            np.exp(density, out=density)
            density *= kind(INV_SQRT_2PI)
            density *= x
            out += density
        if dy.shape == out.shape:
            out *= dy
        else:   # broadcasting (pfor batches dy, not x): a new array
            out = np.multiply(out, dy)
    return out


def _own(array: np.ndarray) -> np.ndarray:
    """`array` if it is a fresh, writable array of its own, else a copy."""
    if type(array) is np.ndarray and array.base is None and array.flags.writeable:
        return array
    return np.array(array)


GELU = declare_op("Gelu", _gelu_kernel, elementwise_unary(), input_kinds="f",
                  grad_inputs=(0,), attr_defaults={"approximate": False})
GELU_GRAD = declare_op("GeluGrad", _gelu_grad_kernel, broadcast_binary,
                       input_kinds="f", grad_inputs=(0, 1), same_dtype=slice(None),
                       attr_defaults={"approximate": False})
