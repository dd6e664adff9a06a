"""Local response normalization (`dg.nn.local_response_normalization`, `dg.nn.lrn`, TF's LRN
and LRNGrad ops): x / (bias + alpha * sum of x**2 over depth_radius neighbouring channels)
** beta, on 4-D half/float input as TF's CPU kernel. LRNGrad has no gradient, as in TF."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op

_DTYPES = (np.float16, np.float32)


def _check(x, op_type: str) -> None:
    if x.dtype not in _DTYPES:
        raise ValueError(f"Value for attr 'T' of {x.dtype} is not in the list of allowed values: "
                         f"half, bfloat16, float [Op:{op_type}]")
    if x.ndim != 4:
        raise ValueError(f"{op_type}: input must be 4-dimensional, got shape {list(x.shape)}")


def _window_sums(v, radius: int):
    """sum over channels c - radius .. c + radius (clipped) of v, along the last axis."""
    padded = np.pad(v, [(0, 0)] * 3 + [(radius + 1, radius)])
    cumulative = np.cumsum(padded, axis=-1)
    depth = v.shape[-1]
    return cumulative[..., 2 * radius + 1:2 * radius + 1 + depth] - cumulative[..., :depth]


def _norm(x64, radius, bias, alpha):
    return bias + alpha * _window_sums(x64 * x64, radius)


def _lrn(x, *, depth_radius, bias, alpha, beta):
    _check(x, "LRN")
    x64 = x.astype(np.float64)
    return (x64 * _norm(x64, depth_radius, bias, alpha) ** -beta).astype(x.dtype)


def _lrn_grad(grad, x, y, *, depth_radius, bias, alpha, beta):
    """dx_j = g_j N_j^-b - 2 a b x_j sum_{i near j} g_i x_i N_i^(-b-1)."""
    _check(x, "LRNGrad")
    if grad.shape != x.shape or y.shape != x.shape:
        raise ValueError(f"LRNGrad: input_grads, input_image and output_image must have one "
                         f"shape, got {list(grad.shape)}, {list(x.shape)}, {list(y.shape)}")
    g, x64 = grad.astype(np.float64), x.astype(np.float64)
    norm = _norm(x64, depth_radius, bias, alpha)
    inner = _window_sums(g * x64 * norm ** (-beta - 1), depth_radius)
    return (g * norm ** -beta - 2 * alpha * beta * x64 * inner).astype(grad.dtype)


def _infer(inputs, attrs):
    x = inputs[0]
    if x.dtype.as_numpy_dtype not in _DTYPES:
        raise TypeError(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
                        f"values: half, bfloat16, float (LRN)")
    if x.shape.rank is not None and x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank} for LRN")
    return [(x.dtype, x.shape)]


def _grad_infer(inputs, attrs):
    return [(inputs[0].dtype, inputs[1].shape)]


LRN = declare_op("LRN", _lrn, _infer, input_kinds="f", grad_inputs=(0,), grad_outputs=(0,))
LRN_GRAD = declare_op("LRNGrad", _lrn_grad, _grad_infer, input_kinds="f")


def _attrs(depth_radius, bias, alpha, beta) -> dict:
    return {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha),
            "beta": float(beta)}


def local_response_normalization(input: Any, depth_radius: int = 5, bias: float = 1.0,  # noqa: A002
                                 alpha: float = 1.0, beta: float = 0.5,
                                 name: Optional[str] = None):
    """input / (bias + alpha * sqr_sum) ** beta, sqr_sum over 2 depth_radius + 1 channels."""
    return apply_op(LRN, (convert_to_tensor(input),), _attrs(depth_radius, bias, alpha, beta),
                    name)


def lrn_grad(input_grads: Any, input_image: Any, output_image: Any, depth_radius: int = 5,
             bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
             name: Optional[str] = None):
    """TF's raw LRNGrad: the gradient of LRN at input_image."""
    return apply_op(LRN_GRAD, (input_grads, input_image, output_image),
                    _attrs(depth_radius, bias, alpha, beta), name)


NN_NAMES = {"local_response_normalization": local_response_normalization,
            "lrn": local_response_normalization}
