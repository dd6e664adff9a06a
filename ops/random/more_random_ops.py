"""More of tf.random: gamma (TF's RandomGamma), stateless_gamma (StatelessRandomGammaV3; V2
as TF's raw op), stateless_parameterized_truncated_normal and categorical (TF's
Multinomial), with the seed rules of ops/random/random_ops.py. The numbers are duograd's
own (NumPy's Philox), not TensorFlow's; a stateless op's numbers are a function of its seed
alone.

Gamma samples are differentiable in alpha by implicit reparameterization (RandomGammaGrad:
-dP(a, x)/da / dP(a, x)/dx, the kernels from the scipy extra), truncated normal samples in
their four parameters (TF's formulas, grad_registry/more_random_grad.py); categorical is
not differentiable."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape, broadcast_shapes
from ..array import array_ops
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..math import math_ops
from ..math.incomplete_gamma_ops import igamma_grad_a_values
from ..scipy_support import scipy_module
from ..tensor_util import constant_value, shape_from_tensor
from .random_ops import generator_of, random_attrs, shape_dims, shape_input
from .stateless_random_ops import key_counter, seed_tensor, stateless_generator

_TINY = {np.dtype(np.float16): np.finfo(np.float16).tiny,
         np.dtype(np.float32): np.finfo(np.float32).tiny,
         np.dtype(np.float64): np.finfo(np.float64).tiny}


def _float(dtype: Any, what: str) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise ValueError(f"Invalid dtype {dtype.name} for {what}: expected half, float or "
                         f"double")
    return dtype


def _gamma_draw(generator, shape, alpha, dtype):
    a = alpha.astype(np.float64)
    values = generator.standard_gamma(np.broadcast_to(a, tuple(shape) + a.shape))
    return np.asarray(values).astype(dtype)


# -- RandomGamma ------------------------------------------------------------------------------
def _check_gamma_size(dims, alpha_shape) -> None:
    """TF's RandomGamma multiplies the sample dims, then alpha's dims, into an int64
    count and refuses one that overflows (InvalidArgumentError naming the product)."""
    count = 1
    for d in list(dims) + list(alpha_shape):
        product = count * max(int(d), 0)
        if product > np.iinfo(np.int64).max:
            raise InvalidArgumentError(None, None, f"Encountered overflow when multiplying "
                                                   f"{count} with {int(d)}, result: -1")
        count = product


def _random_gamma(resources, shape, alpha, *, dtype, stream):
    _check_gamma_size(np.reshape(np.asarray(shape), -1), alpha.shape)
    return _gamma_draw(generator_of(resources, stream), shape_dims(shape), alpha,
                       dtype.as_numpy_dtype)


def _random_gamma_infer(inputs, attrs):
    shape, alpha = inputs
    sample = shape_from_tensor(shape)
    if sample.rank is None or alpha.shape.rank is None:
        return [(alpha.dtype, TensorShape(None))]
    return [(alpha.dtype, sample.concatenate(alpha.shape))]


RANDOM_GAMMA = declare_op("RandomGamma", _random_gamma, _random_gamma_infer, stateful=True,
                          grad_inputs=(0, 1), grad_outputs=(0,))


# -- RandomGammaGrad: d sample / d alpha -------------------------------------------------------
def _random_gamma_grad(alpha, sample):
    """-dP(a, x)/da / (x**(a-1) e**-x / Gamma(a)), P the regularized lower incomplete gamma."""
    special = scipy_module("special", "RandomGammaGrad")
    a, x = np.broadcast_arrays(alpha.astype(np.float64), sample.astype(np.float64))
    with np.errstate(all="ignore"):
        density = np.exp((a - 1) * np.log(x) - x - special.gammaln(a))
        out = -igamma_grad_a_values(a, x) / density
    return out.astype(np.result_type(alpha, sample))


RANDOM_GAMMA_GRAD = declare_op(
    "RandomGammaGrad", _random_gamma_grad,
    lambda inputs, attrs: [(inputs[0].dtype, broadcast_shapes(inputs[0].shape,
                                                              inputs[1].shape))],
    input_kinds="f")


def random_gamma_grad(alpha: Any, sample: Any, name: Optional[str] = None):
    """d sample / d alpha of Gamma(alpha, 1) samples (TF's raw RandomGammaGrad)."""
    return apply_op(RANDOM_GAMMA_GRAD, (alpha, sample), name=name)


# -- stateless gamma ----------------------------------------------------------------------------
def _stateless_gamma_v2(shape, seed, alpha):
    dims = shape_dims(shape)
    _check_trailing(dims, alpha.shape)
    sample = dims[:len(dims) - alpha.ndim] if alpha.ndim else dims
    return _gamma_draw(stateless_generator(seed), sample, alpha, alpha.dtype)


def _stateless_gamma_v3(shape, key, counter, alg, alpha):
    dims = shape_dims(shape)
    _check_trailing(dims, alpha.shape)
    sample = dims[:len(dims) - alpha.ndim] if alpha.ndim else dims
    return _gamma_draw(stateless_generator(key, counter, alg), sample, alpha, alpha.dtype)


def _check_trailing(dims, alpha_shape) -> None:
    if alpha_shape and tuple(dims[len(dims) - len(alpha_shape):]) != tuple(alpha_shape):
        raise ValueError(f"Shape passed in must end with broadcasted shape: shape "
                         f"{list(dims)}, alpha shape {list(alpha_shape)}")


def _stateless_gamma_infer(inputs, attrs):
    alpha = inputs[-1]
    return [(alpha.dtype, shape_from_tensor(inputs[0]))]


STATELESS_RANDOM_GAMMA_V2 = declare_op("StatelessRandomGammaV2", _stateless_gamma_v2,
                                       _stateless_gamma_infer, grad_inputs=(0, 2),
                                       grad_outputs=(0,))
STATELESS_RANDOM_GAMMA_V3 = declare_op("StatelessRandomGammaV3", _stateless_gamma_v3,
                                       _stateless_gamma_infer, grad_inputs=(0, 4),
                                       grad_outputs=(0,))


# -- stateless parameterized truncated normal -----------------------------------------------------
def _same_params(inputs) -> dtypes.DType:
    dtype = inputs[2].dtype
    for i, t in enumerate(inputs[3:6], start=3):
        if t.dtype != dtype:
            raise TypeError(f"Input {i} of StatelessParameterizedTruncatedNormal has type "
                            f"{t.dtype.name} that does not match type {dtype.name} of means")
    return dtype


def _stateless_ptn(shape, seed, means, stddevs, minvals, maxvals):
    """Inverse-CDF draws of N(mean, stddev) truncated to [minval, maxval]."""
    special = scipy_module("special", "StatelessParameterizedTruncatedNormal")
    dims = shape_dims(shape)
    params = np.broadcast_arrays(*[p.astype(np.float64) for p in
                                   (means, stddevs, minvals, maxvals)])
    mean, std, low, high = (np.broadcast_to(p, dims) for p in params)
    u = stateless_generator(seed).random(dims)
    with np.errstate(all="ignore"):
        a, b = special.ndtr((low - mean) / std), special.ndtr((high - mean) / std)
        values = mean + std * special.ndtri(a + u * (b - a))
        values = np.clip(values, low, high)
    return values.astype(means.dtype)


STATELESS_PARAMETERIZED_TRUNCATED_NORMAL = declare_op(
    "StatelessParameterizedTruncatedNormal", _stateless_ptn,
    lambda inputs, attrs: [(_same_params(inputs), shape_from_tensor(inputs[0]))],
    grad_inputs=(0, 2, 3, 4, 5), grad_outputs=(0,), same_dtype=slice(2, 6))


# -- Multinomial (categorical) -----------------------------------------------------------------------
def _multinomial(resources, logits, num_samples, *, dtype, stream, output_dtype):
    if logits.ndim != 2:
        raise ValueError(f"logits should be a matrix, got shape {list(logits.shape)}")
    n = int(num_samples)
    if n < 0:
        raise ValueError(f"num_samples should be nonnegative, got {n}")
    generator = generator_of(resources, stream)
    z = logits.astype(np.float64)
    with np.errstate(all="ignore"):
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
    out = np.empty((z.shape[0], n), np.dtype(output_dtype))
    for i, row in enumerate(p):
        out[i] = generator.choice(row.size, size=n, p=row) if n else []
    return out


def _multinomial_infer(inputs, attrs):
    logits, n = inputs
    value = constant_value(n)
    rows = logits.shape[0] if logits.shape.rank == 2 else None
    return [(dtypes.as_dtype(attrs["output_dtype"]),
             TensorShape((rows, None if value is None else int(value))))]


MULTINOMIAL = declare_op("Multinomial", _multinomial, _multinomial_infer, stateful=True,
                         grad_inputs=())


# -- public functions -------------------------------------------------------------------------
def gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = dtypes.float32,
          seed: Optional[int] = None, name: Optional[str] = None):
    """Gamma(alpha, beta) samples of shape concat(shape, shape(alpha + beta)), at least the
    dtype's tiny (differentiable in alpha and beta)."""
    dtype = _float(dtype, "random.gamma")
    alpha = convert_to_tensor(alpha, dtype=dtype)
    beta = convert_to_tensor(1 if beta is None else beta, dtype=dtype)
    alpha = array_ops.broadcast_to(alpha, array_ops.shape_tensor(alpha + beta * 0))
    attrs = random_attrs(RANDOM_GAMMA.type, dtype, seed)
    draw = apply_op(RANDOM_GAMMA, (shape_input(shape), alpha), attrs, name)
    return math_ops.maximum(_TINY[np.dtype(dtype.as_numpy_dtype)], draw / beta)


def stateless_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None,
                    dtype: Any = dtypes.float32, name: Optional[str] = None):
    """Deterministic Gamma(alpha, beta) samples (alpha, beta broadcast to shape's end)."""
    alpha = convert_to_tensor(alpha, dtype=dtype)  # TF: TypeError for an integer dtype
    dtype = _float(dtype, "random.stateless_gamma")
    beta = convert_to_tensor(1 if beta is None else beta, dtype=dtype)
    alpha = array_ops.broadcast_to(alpha, array_ops.shape_tensor(alpha + beta * 0))
    key, counter = _key_counter(seed)
    draw = apply_op(STATELESS_RANDOM_GAMMA_V3,
                    (shape_input(shape), key, counter, constant(1, dtypes.int32), alpha),
                    name=name)
    return math_ops.maximum(_TINY[np.dtype(dtype.as_numpy_dtype)], draw / beta)


def stateless_random_gamma_v2(shape: Any, seed: Any, alpha: Any, name: Optional[str] = None):
    """TF's raw StatelessRandomGammaV2(shape, seed, alpha)."""
    alpha = convert_to_tensor(alpha)
    return apply_op(STATELESS_RANDOM_GAMMA_V2, (shape_input(shape), seed_tensor(seed), alpha),
                    name=name)


def _key_counter(seed: Any):
    """A stateless seed as (key, counter) of the V3 ops (key = seed[0], counter = [seed[1]])."""
    key, counter, _ = key_counter(seed)
    return key, counter


def stateless_parameterized_truncated_normal(shape: Any, seed: Any, means: Any = 0.0,
                                             stddevs: Any = 1.0, minvals: Any = -2.0,
                                             maxvals: Any = 2.0, name: Optional[str] = None):
    """Deterministic N(means, stddevs) samples truncated to [minvals, maxvals]
    (differentiable in all four, by implicit reparameterization)."""
    # Each parameter converts on its own, as TF's: mixed dtypes are the op's error.
    params = [convert_to_tensor(v) for v in (means, stddevs, minvals, maxvals)]
    return apply_op(STATELESS_PARAMETERIZED_TRUNCATED_NORMAL,
                    [shape_input(shape), seed_tensor(seed)] + params, name=name)


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: Optional[int] = None,
                name: Optional[str] = None):
    """Class indices [batch, num_samples] drawn from softmax(logits) per row."""
    logits = convert_to_tensor(logits)
    out = dtypes.as_dtype(dtype or dtypes.int64)
    if out not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"categorical: dtype must be int32 or int64, got {out.name}")
    attrs = dict(random_attrs(MULTINOMIAL.type, logits.dtype, seed),
                 output_dtype=out.as_numpy_dtype)
    return apply_op(MULTINOMIAL, (logits, convert_to_tensor(num_samples, dtype=dtypes.int32)),
                    attrs, name)


def multinomial(logits: Any, num_samples: Any, seed: Optional[int] = None,
                name: Optional[str] = None, output_dtype: Any = None):
    """TF 1's tf.compat.v1.random.multinomial: categorical."""
    return categorical(logits, num_samples, output_dtype, seed, name)


RANDOM_NAMES = {"gamma": gamma, "stateless_gamma": stateless_gamma,
                "stateless_parameterized_truncated_normal":
                    stateless_parameterized_truncated_normal,
                "categorical": categorical}
V1_RANDOM_NAMES = dict(RANDOM_NAMES, multinomial=multinomial)
