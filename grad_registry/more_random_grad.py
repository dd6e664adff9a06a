"""Gradients of the random ops of ops/random/more_random_ops.py, TF's (random_grad.py):
gamma samples in alpha by implicit reparameterization (RandomGammaGrad), truncated normal
samples in mean, stddev, minval and maxval; Multinomial is not differentiable, nor is
RandomGammaGrad (as in TF, which registers none for it)."""
from __future__ import annotations

import numpy as np

from ..ops.array import array_ops
from ..ops.array.creation_ops import range as range_
from ..ops.array.join_ops import concat
from ..ops.math import math_ops, reduction_ops, special_math_ops
from ..ops.math.rounding_ops import erfc
from ..ops.math.special_math_ops import clip_by_value
from ..ops.random import more_random_ops as mr
from ..ops.random import poisson_ops
from .broadcast import unbroadcast
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(mr.MULTINOMIAL.type)
NotDifferentiable(poisson_ops.RANDOM_POISSON_V2.type)   # eager TF: None (graph: LookupError)


def _leading_ones(x, count):
    """x reshaped with `count` leading unit dimensions."""
    ones = array_ops.ones_like(range_(count))
    return array_ops.reshape(x, concat([ones, array_ops.shape_tensor(x)], 0))


@RegisterGradient(mr.RANDOM_GAMMA.type)
def _random_gamma_grad(op, grad):
    """(None, sum over the sample dims of grad * RandomGammaGrad(alpha, sample))."""
    shape, alpha = op.inputs
    sample = op.outputs[0]
    count = array_ops.shape_tensor(shape)[0]
    partial = mr.random_gamma_grad(_leading_ones(alpha, count), sample)
    return None, reduction_ops.reduce_sum(grad * partial, range_(count))


def _stateless_gamma_grad_alpha(shape, alpha, sample, grad):
    length, rank = shape.shape[0] if shape.shape.rank == 1 else None, alpha.shape.rank
    if length is not None and rank is not None:  # static: a graph's reduction needs it
        count = length - rank
        partial = mr.random_gamma_grad(_leading_ones(alpha, count), sample)
        return reduction_ops.reduce_sum(grad * partial, list(range(count)))
    count = array_ops.shape_tensor(shape)[0] - array_ops.rank(alpha)
    partial = mr.random_gamma_grad(_leading_ones(alpha, count), sample)
    return reduction_ops.reduce_sum(grad * partial, range_(count))


@RegisterGradient(mr.STATELESS_RANDOM_GAMMA_V2.type)
def _stateless_gamma_v2_grad(op, grad):
    """(None, None, d/dalpha) as RandomGamma's, the sample dims leading shape."""
    return None, None, _stateless_gamma_grad_alpha(op.inputs[0], op.inputs[2], op.outputs[0],
                                                   grad)


@RegisterGradient(mr.STATELESS_RANDOM_GAMMA_V3.type)
def _stateless_gamma_v3_grad(op, grad):
    return (None, None, None, None,
            _stateless_gamma_grad_alpha(op.inputs[0], op.inputs[4], op.outputs[0], grad))


def _ndtr(x):
    """The standard normal CDF, via erf / erfc as TF's _Ndtr."""
    half_sqrt_2 = 0.5 * np.sqrt(2.0)
    w = x * half_sqrt_2
    z = math_ops.abs(w)
    y = array_ops.where(z < half_sqrt_2, 1.0 + special_math_ops.erf(w),
                        array_ops.where(w > 0.0, 2.0 - erfc(z), erfc(z)))
    return 0.5 * y


@RegisterGradient(mr.STATELESS_PARAMETERIZED_TRUNCATED_NORMAL.type)
def _stateless_ptn_grad(op, grad):
    """TF's implicit-reparameterization gradients in mean, stddev, minval and maxval."""
    mean, stddev, minval, maxval = op.inputs[2:6]
    sample = op.outputs[0]
    minval_std = (minval - mean) / stddev
    maxval_std = (maxval - mean) / stddev
    sample_std = (sample - mean) / stddev
    cdf = (_ndtr(sample_std) - _ndtr(minval_std)) / (_ndtr(maxval_std) - _ndtr(minval_std))
    info = np.finfo(mean.dtype.as_numpy_dtype)
    cdf = clip_by_value(cdf, float(info.tiny), float(1 - info.eps))
    dmaxval = math_ops.exp(0.5 * (sample_std ** 2 - maxval_std ** 2) + math_ops.log(cdf))
    dminval = math_ops.exp(0.5 * (sample_std ** 2 - minval_std ** 2) + math_ops.log1p(-cdf))
    dmean = array_ops.ones_like(sample_std)
    dstddev = sample_std
    return (None, None, unbroadcast(grad * dmean, mean), unbroadcast(grad * dstddev, stddev),
            unbroadcast(grad * dminval, minval), unbroadcast(grad * dmaxval, maxval))
