"""More of tf.nn: silu/swish, softsign (a primitive, as TF), xw_plus_b, l2_normalize,
normalize_moments, batch_normalization, weighted_cross_entropy_with_logits,
log_poisson_loss, compute_average_loss, zero_fraction. Compositions except Softsign."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ..array import array_ops, join_ops
from ..math import math_ops, reduction_ops, special_math_ops
from ..arg_errors import mode_error
from ..constant_op import convert_to_tensor
from ..math.matmul_ops import matmul
from .nn_ops import bias_add, moments, relu
from ..op_helpers import apply_unary
from ..shape_rules import elementwise_unary


def _softsign(x):
    return x / (1 + np.abs(x))


SOFTSIGN = declare_op("Softsign", _softsign, elementwise_unary(), input_kinds="f",
                      grad_inputs=(0,))


def softsign(features: Any, name: Optional[str] = None):
    """x / (1 + |x|)."""
    return apply_unary(SOFTSIGN, features, name)


def silu(features: Any, beta: float = 1.0, name: Optional[str] = None):
    """x * sigmoid(beta * x) (swish); beta converts on its own and is cast to x's dtype,
    as TF's (a string either side: the cast's UnimplementedError)."""
    x = convert_to_tensor(features)
    plain_one = isinstance(beta, (int, float)) and not isinstance(beta, bool) and beta == 1.0
    if plain_one and x.dtype.is_floating:
        return math_ops.multiply(x, math_ops.sigmoid(x), name=name)
    scale = math_ops.cast(convert_to_tensor(beta), x.dtype)
    return math_ops.multiply(x, math_ops.sigmoid(scale * x), name=name)


swish = silu


def xw_plus_b(x: Any, weights: Any, biases: Any, name: Optional[str] = None):
    """matmul(x, weights) + biases (BiasAdd over the last axis)."""
    return bias_add(matmul(x, weights), biases, name=name)


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: Optional[str] = None,
                 dim: Any = None):
    """x / sqrt(max(sum(x**2, axis), epsilon)); for complex x, |x|**2."""
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    if x.dtype.is_complex:
        squared = math_ops.square(math_ops.abs(x))
    else:
        squared = math_ops.square(x)
    total = reduction_ops.reduce_sum(squared, axis, keepdims=True)
    inv = math_ops.rsqrt(math_ops.maximum(total, epsilon))
    if x.dtype.is_complex:
        inv = math_ops.cast(inv, x.dtype)
    return math_ops.multiply(x, inv, name=name)


def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any,
                      name: Optional[str] = None):
    """(mean, variance) from sufficient statistics (sums shifted by `shift`)."""
    divisor = special_math_ops.reciprocal(convert_to_tensor(counts, dtype_hint=dtypes.float32))
    shifted_mean = math_ops.multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else math_ops.add(shifted_mean, shift)
    variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor),
                                 math_ops.square(shifted_mean))
    return mean, variance


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: float, name: Optional[str] = None):
    """scale * (x - mean) / sqrt(variance + epsilon) + offset (offset, scale may be None)."""
    x = convert_to_tensor(x)
    inv = math_ops.rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = (offset - mean * inv) if offset is not None else -mean * inv
    return math_ops.add(x * math_ops.cast(inv, x.dtype), math_ops.cast(shift, x.dtype),
                        name=name)


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC", is_training: bool = True,
                     name: Optional[str] = None, exponential_avg_factor: float = 1.0):
    """(y, batch mean, batch variance) as tf.compat.v1.nn.fused_batch_norm, composed.

    Training normalizes with the batch moments and returns the variance with Bessel's
    correction (what the running average takes); inference uses `mean` and `variance`.
    """
    x = convert_to_tensor(x)
    rank = x.shape.rank
    channel = 1 if data_format.startswith("NC") else rank - 1
    axes = [a for a in range(rank) if a != channel]
    view = [1] * rank
    view[channel] = -1

    def per_channel(t):
        return array_ops.reshape(convert_to_tensor(t, dtype=x.dtype), view)

    if is_training:
        batch_mean, batch_var = moments(x, axes)
        y = batch_normalization(x, per_channel(batch_mean), per_channel(batch_var),
                                per_channel(offset), per_channel(scale), epsilon)
        dims = [x.shape[a] for a in axes]
        if None in dims:   # the element count per channel, at run time
            sizes = array_ops.shape(x)
            count = math_ops.cast(reduction_ops.reduce_prod(
                join_ops.stack([sizes[a] for a in axes])), x.dtype)
            factor = count / math_ops.maximum(count - 1, 1)
        else:
            count = int(np.prod(dims))
            factor = count / max(count - 1, 1)
        batch_var = batch_var * factor
        if exponential_avg_factor != 1.0 and mean is not None and variance is not None:
            keep = 1.0 - exponential_avg_factor
            batch_mean = keep * mean + exponential_avg_factor * batch_mean
            batch_var = keep * variance + exponential_avg_factor * batch_var
        return y, batch_mean, batch_var
    if mean is None or variance is None:
        raise ValueError("fused_batch_norm for inference needs mean and variance")
    y = batch_normalization(x, per_channel(mean), per_channel(variance), per_channel(offset),
                            per_channel(scale), epsilon, name=name)
    return y, convert_to_tensor(mean), convert_to_tensor(variance)


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any,
                                       name: Optional[str] = None):
    """Sigmoid cross entropy with the positive term weighted by pos_weight (stable form)."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype)
    log_weight = 1 + (pos_weight - 1) * labels
    stable = special_math_ops.softplus(-math_ops.abs(logits)) + math_ops.maximum(-logits, 0.0)
    return math_ops.add((1 - labels) * logits, log_weight * stable, name=name)


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: Optional[str] = None):
    """exp(log_input) - targets * log_input (+ Stirling's term where targets > 1)."""
    log_input = convert_to_tensor(log_input)
    targets = convert_to_tensor(targets)
    if not targets.shape.is_compatible_with(log_input.shape):  # TF checks shapes first
        raise ValueError(f"log_poisson_loss: log_input and targets must have the same shape "
                         f"({log_input.shape} vs {targets.shape})")
    if targets.dtype != log_input.dtype:
        raise mode_error(f"log_poisson_loss: targets ({targets.dtype.name}) and log_input "
                         f"({log_input.dtype.name}) must have the same dtype", TypeError)
    result = math_ops.exp(log_input) - log_input * targets
    if not compute_full_loss:
        return result
    stirling = (targets * math_ops.log(targets) - targets
                + 0.5 * math_ops.log(2 * math.pi * targets))
    at_most_one = math_ops.logical_and(targets >= 0, targets <= 1)
    return math_ops.add(result, array_ops.where(at_most_one, array_ops.zeros_like(targets),
                                                stirling), name=name)


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None,
                         global_batch_size: Any = None, name: Optional[str] = None):
    """sum(per_example_loss * sample_weight) / global batch size (the local batch size by
    default, as with one replica)."""
    loss = convert_to_tensor(per_example_loss)
    if sample_weight is not None:
        loss = loss * math_ops.cast(sample_weight, loss.dtype)
    if global_batch_size is None:
        global_batch_size = array_ops.shape(loss)[0] if loss.shape.rank else 1
    total = reduction_ops.reduce_sum(loss)
    return math_ops.truediv(total, math_ops.cast(global_batch_size, loss.dtype), name=name)


def crelu(features: Any, axis: int = -1, name: Optional[str] = None):
    """Concatenated ReLU: relu(concat([features, -features], axis)), which doubles the
    size of `axis` (TF's composite; differentiable through relu and concat)."""
    features = convert_to_tensor(features)
    both = join_ops.concat([features, math_ops.negative(features)], axis)
    return relu(both, name=name)


def zero_fraction(value: Any, name: Optional[str] = None):
    """The fraction of elements of `value` that are zero (float32)."""
    value = convert_to_tensor(value)
    zeros = math_ops.cast(math_ops.equal(value, array_ops.zeros_like(value)), dtypes.float32)
    return reduction_ops.reduce_mean(zeros, name=name)


__all__ = ["softsign", "silu", "swish", "xw_plus_b", "l2_normalize", "normalize_moments",
           "batch_normalization", "fused_batch_norm", "weighted_cross_entropy_with_logits", "log_poisson_loss",
           "compute_average_loss", "zero_fraction", "crelu"]
