"""The gradient of FusedBatchNormV3 (ops/nn/fused_batch_norm_ops.py): TF's FusedBatchNormGrad
formulas, composed of ops (so differentiable again, as TF's FusedBatchNormGradGrad):

training:  x^ = (x - mean_B) / sqrt(var_B + eps);
           dx = scale / sqrt(var_B + eps) * (g - mean(g) - x^ mean(g x^)),
           dscale = sum(g x^), doffset = sum(g);
inference: dx = g scale / sqrt(var + eps), dscale = sum(g (x - mean) / sqrt(var + eps)),
           doffset = sum(g);
and None for mean and variance (TF gives them none). Only y's gradient is read."""
from __future__ import annotations

from ..ops.math import math_ops, reduction_ops
from ..ops.nn.fused_batch_norm_ops import FUSED_BATCH_NORM_V3
from .registry import RegisterGradient


@RegisterGradient(FUSED_BATCH_NORM_V3.type)
def _fused_batch_norm_v3_grad(op, *grads):
    x, scale = op.inputs[0], op.inputs[1]
    g = grads[0]
    epsilon = op.get_attr("epsilon")
    rank = x.shape.rank
    if rank is None:
        raise ValueError("FusedBatchNormV3's gradient needs the input's rank")
    axes = list(range(rank - 1))
    u = scale.dtype
    if op.get_attr("is_training"):
        mean = reduction_ops.reduce_mean(x, axes)
        centered = x - mean
        variance = reduction_ops.reduce_mean(centered * centered, axes)
    else:
        mean = math_ops.cast(op.inputs[3], x.dtype)
        variance = math_ops.cast(op.inputs[4], x.dtype)
        centered = x - mean
    inv = math_ops.rsqrt(variance + epsilon)
    x_hat = centered * inv
    scale_x = math_ops.cast(scale, x.dtype)
    doffset = reduction_ops.reduce_sum(g, axes)
    dscale = reduction_ops.reduce_sum(g * x_hat, axes)
    if op.get_attr("is_training"):
        dx = scale_x * inv * (g - reduction_ops.reduce_mean(g, axes)
                              - x_hat * reduction_ops.reduce_mean(g * x_hat, axes))
    else:
        dx = g * (scale_x * inv)
    return (dx, math_ops.cast(dscale, u), math_ops.cast(doffset, u), None, None)
