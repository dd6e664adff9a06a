"""Fused batch normalization as TF's FusedBatchNormV3 op (`dg.nn.fused_batch_norm`, TF 1's
`tf.compat.v1.nn.fused_batch_norm`): outputs y, the running mean and variance (the batch
moments, variance with Bessel's correction, blended by exponential_avg_factor), and TF's
three reserve spaces (batch mean, biased batch variance, empty).

Its gradient (grad_registry/fused_batch_norm_grad.py) is TF's FusedBatchNormGrad formula,
composed of ops so that it is differentiable again: it reads only the gradient of y (the
moment outputs carry none, as in TF) and gives none to mean and variance. Kernels compute
in float64 and return x's dtype; as TF's kernels, x is half or float and scale, offset, mean
and variance float (float64 is TF's InvalidArgumentError)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from .nn_extra_ops import batch_normalization


_T = (np.float16, np.float32)   # TF's kernels: x half/bfloat16/float, the rest float


def _check_dtypes(x_dtype: np.dtype, u_dtype: np.dtype) -> Optional[str]:
    if x_dtype not in _T:
        return f"Value for attr 'T' of {dtypes.from_numpy(x_dtype).name} is not in the list " \
               f"of allowed values: half, bfloat16, float"
    if u_dtype != np.float32:
        return f"Value for attr 'U' of {dtypes.from_numpy(u_dtype).name} is not in the list " \
               f"of allowed values: bfloat16, float"
    return None


def _fused_batch_norm(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
                      is_training, data_format):
    """Channels-last x [..., C]; the moments over every other axis."""
    message = _check_dtypes(x.dtype, scale.dtype)
    if message:
        raise ValueError(f"{message} [Op:FusedBatchNormV3]")
    rank = 5 if "D" in data_format else 4
    if x.ndim != rank:
        raise ValueError(f"FusedBatchNormV3: input must be {rank}-dimensional for "
                         f"data_format {data_format}, got shape {list(x.shape)}")
    depth = x.shape[-1]
    for what, t in (("scale", scale), ("offset", offset)):
        if t.shape != (depth,):
            raise ValueError(f"FusedBatchNormV3: {what} must have shape [{depth}], got "
                             f"{list(t.shape)}")
    axes = tuple(range(x.ndim - 1))
    x64 = x.astype(np.float64)
    if is_training:
        batch_mean = x64.mean(axis=axes)
        batch_var = x64.var(axis=axes)
        count = x.size // max(depth, 1)
        corrected = batch_var * count / max(count - 1, 1)
        if exponential_avg_factor != 1.0 and mean.size and variance.size:
            keep = 1.0 - exponential_avg_factor
            running_mean = keep * mean + exponential_avg_factor * batch_mean
            running_var = keep * variance + exponential_avg_factor * corrected
        else:
            running_mean, running_var = batch_mean, corrected
        use_mean, use_var = batch_mean, batch_var
    else:
        if mean.shape != (depth,) or variance.shape != (depth,):
            raise ValueError(f"FusedBatchNormV3: mean and variance must have shape [{depth}] "
                             f"for inference, got {list(mean.shape)} and "
                             f"{list(variance.shape)}")
        running_mean, running_var = mean.astype(np.float64), variance.astype(np.float64)
        use_mean, use_var = running_mean, running_var
    inv = 1.0 / np.sqrt(use_var + epsilon)
    y = (x64 - use_mean) * (inv * scale) + offset
    u = scale.dtype
    return (y.astype(x.dtype), np.asarray(running_mean).astype(u),
            np.asarray(running_var).astype(u), np.asarray(use_mean).astype(u),
            np.asarray(use_var).astype(u), np.zeros((0,), u))


def _infer(inputs, attrs):
    x, scale = inputs[0], inputs[1]
    message = _check_dtypes(np.dtype(x.dtype.as_numpy_dtype),
                            np.dtype(scale.dtype.as_numpy_dtype))
    if message:
        raise TypeError(f"{message} (FusedBatchNormV3)")
    for t in inputs[2:]:
        if t.dtype != scale.dtype:
            raise TypeError(f"FusedBatchNormV3: scale, offset, mean and variance must share "
                            f"one dtype, got {scale.dtype.name} and {t.dtype.name}")
    depth = x.shape[-1] if x.shape.rank is not None else None
    vector = TensorShape((depth,))
    return [(x.dtype, x.shape), (scale.dtype, vector), (scale.dtype, vector),
            (scale.dtype, vector), (scale.dtype, vector), (scale.dtype, TensorShape((0,)))]


FUSED_BATCH_NORM_V3 = declare_op("FusedBatchNormV3", _fused_batch_norm, _infer, num_outputs=6,
                                 input_kinds="f", grad_inputs=(0, 1, 3, 4), grad_outputs=())


def _vector(value: Any, dtype: Any):
    """TF's: a missing mean/variance is constant([]) (float32)."""
    return convert_to_tensor(np.zeros((0,), np.float32) if value is None else value,
                             dtype=dtype)


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC", is_training: bool = True,
                     name: Optional[str] = None, exponential_avg_factor: float = 1.0):
    """(y, running mean, running variance) of batch normalization per channel, TF 1's
    tf.compat.v1.nn.fused_batch_norm (FusedBatchNormV3)."""
    x = convert_to_tensor(x)
    scale = convert_to_tensor(scale)
    offset = convert_to_tensor(offset)
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or
                                                               variance is None):
        raise ValueError(f"Both `mean` and `variance` must be a 1D tensor when `is_training` "
                         f"is False or `exponential_avg_factor` != 1.0. Received: `mean` "
                         f"{mean!r} and `variance` {variance!r}")
    mean_t, variance_t = _vector(mean, None), _vector(variance, None)
    rank = x.shape.rank
    channels_first = data_format in ("NCHW", "NCDHW")
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"data_format must be NHWC, NCHW, NDHWC or NCDHW, got {data_format!r}")
    if channels_first:
        if rank is None:
            raise ValueError("fused_batch_norm with a channels-first format needs a known rank")
        x = array_ops.transpose(x, [0] + list(range(2, rank)) + [1])
    attrs = {"epsilon": float(epsilon),
             "exponential_avg_factor": float(exponential_avg_factor),
             "is_training": bool(is_training), "data_format": data_format}
    y, running_mean, running_var = apply_op(FUSED_BATCH_NORM_V3,
                                            (x, scale, offset, mean_t, variance_t), attrs,
                                            name)[:3]
    if channels_first:
        y = array_ops.transpose(y, [0, rank - 1] + list(range(1, rank - 1)))
    return y, running_mean, running_var


def batch_norm_with_global_normalization(input: Any, mean: Any, variance: Any,  # noqa: A002
                                         beta: Any, gamma: Any, variance_epsilon: float,
                                         scale_after_normalization: bool,
                                         name: Optional[str] = None):
    """tf.nn.batch_norm_with_global_normalization: batch_normalization with gamma only when
    scale_after_normalization (composed, as TF's public function)."""
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None, variance_epsilon,
                               name)


def batch_norm_with_global_normalization_v1(t: Any = None, m: Any = None, v: Any = None,
                                            beta: Any = None, gamma: Any = None,
                                            variance_epsilon: Any = None,
                                            scale_after_normalization: Any = None,
                                            name: Optional[str] = None, input: Any = None,  # noqa: A002
                                            mean: Any = None, variance: Any = None):
    """TF 1's form (t, m, v, ... or the TF 2 names)."""
    return batch_norm_with_global_normalization(
        t if t is not None else input, m if m is not None else mean,
        v if v is not None else variance, beta, gamma, variance_epsilon,
        scale_after_normalization, name)


NN_NAMES = {"fused_batch_norm": fused_batch_norm,
            "batch_norm_with_global_normalization": batch_norm_with_global_normalization}
V1_NN_NAMES = {"fused_batch_norm": fused_batch_norm,
               "batch_norm_with_global_normalization": batch_norm_with_global_normalization_v1}
