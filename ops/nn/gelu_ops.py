"""GELU as one eager op: `Gelu(x) -> (gelu, t)` and its adjoint `GeluGrad(dy, x, t)`.

TensorFlow's `tf.nn.gelu` is a composite of math ops (cube, scale, add, tanh or
erf, multiply), and graph mode keeps exactly that composite: TF has no Gelu op,
so a GraphDef or SavedModel holding one could not be read back by TensorFlow.
Run eagerly, the composite makes about eight fresh arrays forward and fifteen in
its gradient, each of them written (and, for large activations, page-faulted
in) once; `Gelu` computes the same float operations in the same order, in
place on two arrays, so its values are bit-equal to the composite's. Its second
output t, tanh(...) or erf(x / sqrt 2), is a reserve for the gradient, as TF's
FusedBatchNorm keeps one (`tf.nn.gelu` returns only the first): `GeluGrad` reads
it instead of computing the cube and tanh (or erf) again, as the composite's own
gradient reads its Tanh output. Gradients: grad_registry/gelu_grad.py.
"""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np

from ...framework.op_def import declare_op
from ..math.math_ops import POW
from ..math.special_math_ops import ERF
from ...framework.tensor_shape import broadcast_shapes
from ..shape_rules import check_same_dtype

# The composite's constants, as tf.nn.gelu writes them.
TANH_SCALE = 0.7978845608028654       # sqrt(2 / pi)
CUBE_SCALE = 0.044715
ERF_SCALE = 0.7071067811865476        # 1 / sqrt(2)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _gelu_kernel(x: np.ndarray, *, approximate: bool) -> Tuple[np.ndarray, np.ndarray]:
    """0.5 x (1 + t), t = tanh(sqrt(2/pi) (x + 0.044715 x^3)) or erf(x / sqrt 2),
    operation for operation as the composite computes it in x's dtype; returns
    (gelu, t), t the reserve its gradient reads."""
    kind = x.dtype.type
    with np.errstate(all="ignore"):
        if approximate:
            t = _own(POW.kernel(x, np.asarray(3, x.dtype)))   # the composite's Pow
            t *= kind(CUBE_SCALE)
            t += x
            t *= kind(TANH_SCALE)
            np.tanh(t, out=t)
        else:
            t = _own(ERF.kernel(np.multiply(x, kind(ERF_SCALE))))
        gelu = np.add(t, kind(1.0))
        gelu *= np.multiply(x, kind(0.5))   # (0.5 x) (1 + t): a product commutes exactly
    return gelu, t


def _gelu_grad_kernel(dy: np.ndarray, x: np.ndarray, t: np.ndarray, *,
                      approximate: bool) -> np.ndarray:
    """dy * gelu'(x) from the forward's reserve t: 0.5 (1 + t + x (1 - t^2) u'),
    u' = sqrt(2/pi) (1 + 3 * 0.044715 x^2) (tanh form), or 0.5 (1 + t) + x phi(x)
    (erf form): Phi(x) + x phi(x) either way."""
    kind = x.dtype.type
    with np.errstate(all="ignore"):
        if approximate:
            slope = np.multiply(x, x)                       # u'
            slope *= kind(3.0 * CUBE_SCALE)
            slope += kind(1.0)
            slope *= kind(TANH_SCALE)
            out = np.multiply(t, t)                         # x (1 - t^2) u'
            np.subtract(kind(1.0), out, out=out)
            out *= slope
            out *= x
            out += t                                        # 0.5 (1 + t + ...)
            out += kind(1.0)
            out *= kind(0.5)
        else:
            out = np.add(t, kind(1.0))                      # Phi(x)
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


def _gelu_infer(inputs, attrs):
    x = inputs[0]
    return [(x.dtype, x.shape), (x.dtype, x.shape)]


def _gelu_grad_infer(inputs, attrs):
    """dy broadcast with x (t has x's shape)."""
    dtype = check_same_dtype(inputs)
    return [(dtype, broadcast_shapes(inputs[0].shape, inputs[1].shape))]


GELU = declare_op("Gelu", _gelu_kernel, _gelu_infer, num_outputs=2, input_kinds="f",
                  grad_inputs=(0,), grad_outputs=(1,), attr_defaults={"approximate": False})
GELU_GRAD = declare_op("GeluGrad", _gelu_grad_kernel, _gelu_grad_infer,
                       input_kinds="f", grad_inputs=(0, 1, 2), same_dtype=slice(None),
                       attr_defaults={"approximate": False})
