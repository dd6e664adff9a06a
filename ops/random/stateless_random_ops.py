"""tf.random's stateless samplers: stateless_normal, stateless_uniform (float, int in
[minval, maxval), the full integer range), stateless_truncated_normal,
stateless_categorical, stateless_binomial, stateless_poisson and
random.experimental's stateless_split / stateless_fold_in, as the op types TF's public
functions build (StatelessRandomNormalV2, ... with (key, counter, alg) inputs;
StatelessMultinomial, StatelessRandomBinomial, StatelessRandomPoisson with a seed).

A stateless op's numbers are a function of its seed (a [2] int32/int64 vector) alone:
the same seed gives the same values run after run, eagerly and in a Session. They are
duograd's own (NumPy's Philox seeded with the seed words), not TensorFlow's bit stream.
None of these ops is differentiable (TF: NotDifferentiable); the float samplers' mean /
stddev / minval / maxval are applied by differentiable ops after the op, as TF's.
Seeds and shapes get TF's classes: eagerly the op's InvalidArgumentError, building a
graph TypeError for a dtype and ValueError for a shape."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..arg_errors import mode_error
from ..array import array_ops
from ..array.join_ops import stack
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..math import math_ops
from ..tensor_util import constant_value, shape_from_tensor
from .random_ops import shape_dims

_state = context.state
_SEED_DTYPES = (dtypes.int32, dtypes.int64)
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


# -- seeds ------------------------------------------------------------------------------------
def seed_tensor(seed: Any) -> Any:
    """`seed` as a [2] int32/int64 tensor, with TF's classes: a dtype error (eagerly
    InvalidArgumentError, building a graph TypeError), a shape error (InvalidArgumentError;
    ValueError); None ValueError (the conversion's)."""
    t = seed if isinstance(seed, Tensor) else convert_to_tensor(seed)
    if t.dtype not in _SEED_DTYPES:
        raise mode_error(f"Value for attr 'Tseed' of {t.dtype.name} is not in the list of "
                         "allowed values: int32, int64", TypeError)
    rank = t.shape.rank
    if rank is not None and (rank != 1 or t.shape[0] not in (None, 2)):
        raise mode_error(f"seed must have shape [2], not {t.shape.as_list()}", ValueError)
    return t


def stateless_generator(*seed_parts: Any) -> np.random.Generator:
    """The generator a stateless kernel draws from: Philox seeded with the seed words."""
    words = [int(v) & 0xFFFFFFFFFFFFFFFF for part in seed_parts for v in np.reshape(part, -1)]
    return np.random.Generator(np.random.Philox(np.random.SeedSequence(words)))


def _checked_seed(seed: np.ndarray) -> np.ndarray:
    if np.shape(seed) != (2,):  # a fed seed of another shape
        raise ValueError(f"seed must have shape [2], not {list(np.shape(seed))}")
    return seed


def key_counter(seed: Any) -> tuple:
    """A stateless seed as the (key, counter, alg) inputs of the V2/V3 ops (key = seed[0],
    counter = [seed[1]], alg 1: Philox)."""
    s = math_ops.cast(seed_tensor(seed), dtypes.int64)
    key = array_ops.reshape(s[0], [1])
    counter = array_ops.reshape(s[1], [1])
    return key, counter, constant(1, dtypes.int32)


def shape_tensor(shape: Any) -> Any:
    """A sample shape as an int32/int64 vector, with TF's classes: None ValueError, a
    non-integer a dtype error (eagerly InvalidArgumentError, building a graph TypeError),
    a non-vector a shape error (InvalidArgumentError; ValueError)."""
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if shape is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type to a "
                         "Tensor (shape).")
    array = np.asarray(shape)
    if array.size == 0 and array.dtype.kind == "f":  # [] is an empty int vector
        array = array.astype(np.int32)
    if array.dtype.kind not in "iu":
        raise mode_error(f"Value for attr 'Tshape' of {array.dtype} is not in the list of "
                         "allowed values: int32, int64", TypeError)
    if array.ndim != 1:
        raise mode_error(f"shape must be a vector of {{int32,int64}}, got shape "
                         f"{list(array.shape)}", ValueError)
    big = array.size and array.max() > 2**31 - 1
    return constant(array.astype(np.int64 if big else np.int32), name="shape")


# -- kernels --------------------------------------------------------------------------------------
def _draw_type(dtype: dtypes.DType) -> Any:
    return np.float64 if dtype is dtypes.float64 else np.float32


def _normal_v2(shape, key, counter, alg, *, dtype):
    values = stateless_generator(key, counter, alg).standard_normal(shape_dims(shape),
                                                                   dtype=_draw_type(dtype))
    return values.astype(dtype.as_numpy_dtype, copy=False)


def _uniform_v2(shape, key, counter, alg, *, dtype):
    values = stateless_generator(key, counter, alg).random(shape_dims(shape),
                                                          dtype=_draw_type(dtype))
    values = values.astype(dtype.as_numpy_dtype, copy=False)
    if values.dtype.itemsize == 2:  # rounding to 16 bits must not reach 1.0
        mantissa = 10 if dtype is dtypes.float16 else 7   # float16, bfloat16
        below_one = np.asarray(1.0 - 2.0 ** -(mantissa + 1)).astype(values.dtype)
        values = np.minimum(values, below_one)
    return values


def _truncated_normal_v2(shape, key, counter, alg, *, dtype):
    """Standard normal samples, those beyond two standard deviations drawn again."""
    generator = stateless_generator(key, counter, alg)
    values = generator.standard_normal(shape_dims(shape), dtype=_draw_type(dtype))
    outside = np.abs(values) > 2
    while outside.any():
        values[outside] = generator.standard_normal(int(outside.sum()), dtype=_draw_type(dtype))
        outside = np.abs(values) > 2
    return values.astype(dtype.as_numpy_dtype, copy=False)


def _uniform_int_v2(shape, key, counter, alg, minval, maxval, *, dtype):
    for what, bound in (("minval", minval), ("maxval", maxval)):
        if np.ndim(bound):
            raise ValueError(f"{what} must be 0-D, got shape {list(np.shape(bound))}")
    if not minval < maxval:
        raise ValueError(f"Need minval < maxval, got {minval} >= {maxval}")
    return stateless_generator(key, counter, alg).integers(
        minval, maxval, shape_dims(shape), dtype=dtype.as_numpy_dtype)


def _uniform_full_int_v2(shape, key, counter, alg, *, dtype):
    info = np.iinfo(dtype.as_numpy_dtype)
    return stateless_generator(key, counter, alg).integers(
        info.min, info.max, shape_dims(shape), dtype=dtype.as_numpy_dtype, endpoint=True)


def _random_v2_infer(inputs, attrs):
    shape = inputs[0]
    if shape.dtype not in _SEED_DTYPES:
        raise TypeError(f"Value passed to parameter 'shape' has DataType {shape.dtype.name} "
                        "not in list of allowed values: int32, int64")
    if shape.shape.rank not in (None, 1):
        raise ValueError(f"shape must be a vector, got shape {shape.shape}")
    return [(attrs["dtype"], shape_from_tensor(shape))]


def _uniform_int_infer(inputs, attrs):
    for what, bound in zip(("minval", "maxval"), inputs[4:6], strict=True):
        if bound.shape.rank not in (None, 0):
            raise ValueError(f"{what} must be a scalar; got a tensor of shape {bound.shape}")
    return _random_v2_infer(inputs, attrs)


STATELESS_RANDOM_NORMAL_V2 = declare_op("StatelessRandomNormalV2", _normal_v2,
                                        _random_v2_infer, grad_inputs=())
STATELESS_RANDOM_UNIFORM_V2 = declare_op("StatelessRandomUniformV2", _uniform_v2,
                                         _random_v2_infer, grad_inputs=())
STATELESS_TRUNCATED_NORMAL_V2 = declare_op("StatelessTruncatedNormalV2", _truncated_normal_v2,
                                           _random_v2_infer, grad_inputs=())
STATELESS_RANDOM_UNIFORM_INT_V2 = declare_op("StatelessRandomUniformIntV2", _uniform_int_v2,
                                             _uniform_int_infer, grad_inputs=())
STATELESS_RANDOM_UNIFORM_FULL_INT_V2 = declare_op(
    "StatelessRandomUniformFullIntV2", _uniform_full_int_v2, _random_v2_infer, grad_inputs=())


def _multinomial(logits, num_samples, seed, *, output_dtype):
    if logits.ndim != 2:
        raise ValueError(f"logits should be a matrix, got shape {list(logits.shape)}")
    if np.ndim(num_samples):
        raise ValueError(f"num_samples should be a scalar, got shape "
                         f"{list(np.shape(num_samples))}")
    n = int(num_samples)
    if n < 0:
        raise ValueError(f"num_samples should be non-negative, got {n}")
    if logits.shape[1] == 0:
        raise ValueError("num_classes should be positive, got 0")
    generator = stateless_generator(_checked_seed(seed))
    z = logits.astype(np.float64)
    out = np.empty((z.shape[0], n), output_dtype.as_numpy_dtype)
    with np.errstate(all="ignore"):
        for i, row in enumerate(z):  # inverse CDF of softmax(row); NaN / -inf weigh 0
            weights = np.where(np.isnan(row), -np.inf, row)
            top = weights.max()
            if top == -np.inf:  # no class has weight: TF answers num_classes
                out[i] = row.size
                continue
            p = np.exp(weights - top) if np.isfinite(top) else (weights == top).astype(float)
            cdf = np.cumsum(p)
            u = generator.random(n) * cdf[-1]
            out[i] = np.minimum(np.searchsorted(cdf, u, side="right"), row.size - 1)
    return out


def _multinomial_infer(inputs, attrs):
    logits, num_samples, seed = inputs
    if logits.shape.rank not in (None, 2):
        raise ValueError(f"Shape must be rank 2 but is rank {logits.shape.rank} (logits)")
    if num_samples.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {num_samples.shape.rank} "
                         "(num_samples)")
    value = constant_value(num_samples)
    if value is not None and int(value) < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but "
                         f"is {int(value)}")
    rows = logits.shape[0] if logits.shape.rank == 2 else None
    return [(attrs["output_dtype"],
             TensorShape((rows, None if value is None else int(value))))]


STATELESS_MULTINOMIAL = declare_op("StatelessMultinomial", _multinomial, _multinomial_infer,
                                   grad_inputs=(), input_kinds="f")


def _sample_dims(shape, *params) -> tuple:
    """The dims of `shape`, which must end with the parameters' broadcast shape."""
    dims = shape_dims(shape)
    try:
        broadcast = np.broadcast_shapes(*(np.shape(p) for p in params))
    except ValueError:
        broadcast = None
    if broadcast is None or len(broadcast) > len(dims) or \
            tuple(dims[len(dims) - len(broadcast):]) != broadcast:
        raise ValueError("Shape passed in must end with broadcasted shape.")
    return dims


def _binomial(shape, seed, counts, probs, *, dtype):
    dims = _sample_dims(shape, counts, probs)
    n = np.broadcast_to(counts.astype(np.float64), dims)
    p = np.broadcast_to(probs.astype(np.float64), dims)
    generator = stateless_generator(_checked_seed(seed))
    valid = (n >= 0) & (p >= 0) & (p <= 1) & np.isfinite(n)
    draws = generator.binomial(np.where(valid, n, 0).astype(np.int64), np.where(valid, p, 0))
    if dtype.is_floating:
        return np.where(valid, draws, np.nan).astype(dtype.as_numpy_dtype)
    return np.where(valid, draws, 0).astype(dtype.as_numpy_dtype)


def _poisson(shape, seed, lam, *, dtype):
    dims = _sample_dims(shape, lam)
    rate = np.broadcast_to(lam.astype(np.float64), dims)
    # A negative rate draws 0, as TF; a NaN one NaN (0 for integer samples; TF's loops).
    draws = stateless_generator(_checked_seed(seed)).poisson(np.where(rate > 0, rate, 0))
    if dtype.is_floating:
        return np.where(np.isnan(rate), np.nan, draws).astype(dtype.as_numpy_dtype)
    return np.where(np.isnan(rate), 0, draws).astype(dtype.as_numpy_dtype)


def _seeded_infer(inputs, attrs):
    shape = inputs[0]
    if shape.dtype not in _SEED_DTYPES:
        raise TypeError(f"shape must be int32 or int64, got {shape.dtype.name}")
    return [(attrs["dtype"], shape_from_tensor(shape))]


_SAMPLE_DTYPES = _FLOATS + (dtypes.int32, dtypes.int64)
STATELESS_RANDOM_BINOMIAL = declare_op("StatelessRandomBinomial", _binomial, _seeded_infer,
                                       grad_inputs=(), same_dtype=slice(2, 4))
STATELESS_RANDOM_POISSON = declare_op("StatelessRandomPoisson", _poisson, _seeded_infer,
                                      grad_inputs=())


# -- public functions ---------------------------------------------------------------------------
def _sample_dtype(dtype: Any) -> dtypes.DType:
    """A binomial or Poisson sample dtype: the op's attr check."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _SAMPLE_DTYPES:
        raise mode_error(f"Value for attr 'dtype' of {dtype.name} is not in the list of "
                         "allowed values: half, float, double, int32, int64", TypeError)
    return dtype


def _v2(op_def: Any, shape: Any, seed: Any, dtype: dtypes.DType, name: Optional[str],
        extra: tuple = ()) -> Any:
    key, counter, alg = key_counter(seed)
    return apply_op(op_def, (shape_tensor(shape), key, counter, alg) + extra, {"dtype": dtype},
                    name)


def _scaled(op_def: Any, shape: Any, seed: Any, mean: Any, stddev: Any, dtype: Any,
            name: Optional[str]) -> Any:
    dtype = dtypes.as_dtype(dtype)
    mean = convert_to_tensor(mean, dtype)     # TF: TypeError for a non-float dtype
    stddev = convert_to_tensor(stddev, dtype)
    if not dtype.is_floating:
        raise ValueError(f"Invalid dtype {dtype.name}: expected a floating dtype")
    values = _v2(op_def, shape, seed, dtype, None)
    return math_ops.add(math_ops.multiply(values, stddev), mean, name=name)


def stateless_random_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                            dtype: Any = dtypes.float32, name: Optional[str] = None,
                            alg: Any = "auto_select"):
    """Deterministic N(mean, stddev**2) samples of `shape` (differentiable in mean and
    stddev, as TF's)."""
    return _scaled(STATELESS_RANDOM_NORMAL_V2, shape, seed, mean, stddev, dtype, name)


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = dtypes.float32, name: Optional[str] = None,
                               alg: Any = "auto_select"):
    """Deterministic normal samples within two stddevs of the mean."""
    return _scaled(STATELESS_TRUNCATED_NORMAL_V2, shape, seed, mean, stddev, dtype, name)


_UNIFORM_INTS = (dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64)


def stateless_random_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                             dtype: Any = dtypes.float32, name: Optional[str] = None,
                             alg: Any = "auto_select"):
    """Deterministic samples uniform in [minval, maxval) (float: maxval defaults to 1);
    integers need both bounds, or neither for the dtype's full range."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_INTS and not dtype.is_floating:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         "float16, bfloat16, float32, float64, int32, int64, uint32, uint64.")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype!r}, argument `minval` and "
                             "`maxval` must be both None or not None. Got `minval`="
                             f"{minval} and `maxval`={maxval}.")
        if minval is None:
            return _v2(STATELESS_RANDOM_UNIFORM_FULL_INT_V2, shape, seed, dtype, name)
        if dtype.is_unsigned:
            raise ValueError(f"Argument `dtype` got invalid value {dtype!r} when argument "
                             "`minval` is not None. Please don't use unsigned integers in "
                             "this case.")
        bounds = (convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype))
        return _v2(STATELESS_RANDOM_UNIFORM_INT_V2, shape, seed, dtype, name, bounds)
    minval = convert_to_tensor(0 if minval is None else minval, dtype)
    maxval = convert_to_tensor(1 if maxval is None else maxval, dtype)
    values = _v2(STATELESS_RANDOM_UNIFORM_V2, shape, seed, dtype, None)
    return math_ops.add(values * (maxval - minval), minval, name=name)


def stateless_categorical(logits: Any, num_samples: Any, seed: Any, dtype: Any = dtypes.int64,
                          name: Optional[str] = None):
    """Deterministic class indices [batch, num_samples] drawn from softmax(logits)."""
    out = dtypes.as_dtype(dtype)
    if out not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {out!r}. Accepted dtypes are "
                         "(tf.int32, tf.int64).")
    logits = convert_to_tensor(logits)
    num_samples = convert_to_tensor(num_samples, dtype=dtypes.int32)
    return apply_op(STATELESS_MULTINOMIAL, (logits, num_samples, seed_tensor(seed)),
                    {"output_dtype": out}, name)


def stateless_random_binomial(shape: Any, seed: Any, counts: Any, probs: Any,
                              output_dtype: Any = dtypes.int32, name: Optional[str] = None):
    """Deterministic Binomial(counts, probs) samples (counts, probs broadcast to the end of
    `shape`). Parameters out of range (probs outside [0, 1], negative or NaN counts)
    give NaN, or 0 for integer samples (TF's kernel can loop forever on some)."""
    dtype = _sample_dtype(output_dtype)
    probs = convert_to_tensor(probs, dtype_hint=dtypes.float32)
    counts = convert_to_tensor(counts, dtype_hint=probs.dtype)
    return apply_op(STATELESS_RANDOM_BINOMIAL,
                    (shape_tensor(shape), seed_tensor(seed), counts, probs), {"dtype": dtype},
                    name)


def stateless_random_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = dtypes.int32,
                             name: Optional[str] = None):
    """Deterministic Poisson(lam) samples (lam broadcast to the end of `shape`; a
    negative lam gives 0, as TF's)."""
    dtype = _sample_dtype(dtype)
    lam = convert_to_tensor(lam)
    if lam.dtype not in _SAMPLE_DTYPES:
        raise mode_error(f"lam must be a float or int32/int64 tensor, got {lam.dtype.name}",
                         TypeError)
    return apply_op(STATELESS_RANDOM_POISSON, (shape_tensor(shape), seed_tensor(seed), lam),
                    {"dtype": dtype}, name)


def stateless_split(seed: Any, num: int = 2, alg: Any = "auto_select"):
    """`num` new seeds [num, 2] from one (TF: full-range integers of the seed's dtype)."""
    seed = seed_tensor(seed)
    return stateless_random_uniform([num, 2], seed, minval=None, maxval=None, dtype=seed.dtype)


def stateless_fold_in(seed: Any, data: Any, alg: Any = "auto_select"):
    """A new seed [2] from `seed` and an integer `data`: [a draw of data's dtype, data]."""
    data = convert_to_tensor(data)
    first = stateless_random_uniform([], seed, minval=None, maxval=None, dtype=data.dtype)
    return stack([first, data])


RANDOM_NAMES = {"stateless_normal": stateless_random_normal,
                "stateless_uniform": stateless_random_uniform,
                "stateless_truncated_normal": stateless_truncated_normal,
                "stateless_categorical": stateless_categorical,
                "stateless_binomial": stateless_random_binomial,
                "stateless_poisson": stateless_random_poisson}
EXPERIMENTAL_NAMES = {"stateless_split": stateless_split, "stateless_fold_in": stateless_fold_in}
