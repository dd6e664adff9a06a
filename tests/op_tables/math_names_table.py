"""Op-table rows for the tf.math names added for TF's gradient tests: euclidean norm,
variance/std, segment reductions, xlog1py, multiply_no_nan, nextafter."""
from __future__ import annotations

import numpy as np

import duograd as dg
from .spec import OpSpec, inputs, normal, positive

dm = dg.math
_IDS = np.array([2, 0, 2, -1, 0], np.int32)      # unsorted, with a dropped (-1) row
_SORTED = np.array([0, 0, 2, 2, 2], np.int32)    # segment 1 is empty
_FULL = np.array([1, 0, 1, -1, 0], np.int32)     # no empty segment: max/min stay finite


def cnormal(*shape):
    return lambda rng: rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def with_zeros(*shape):
    """Values with one zero in segment 0 and two in segment 2 (of _IDS)."""
    def make(rng):
        x = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        x[1, 0] = 0.0
        x[0, 1] = x[2, 1] = 0.0
        return x
    return make


def segment_ref(ufunc, identity, ids, n):
    def ref(data):
        out = np.full((n,) + data.shape[1:], identity, data.dtype)
        keep = ids >= 0
        ufunc.at(out, ids[keep], data[keep])
        return out
    return ref


def counts(ids, n):
    return np.bincount(ids[ids >= 0], minlength=n).astype(np.float64)[:, None]


def sorted_ref(ufunc, identity):
    def ref(data):
        out = segment_ref(ufunc, identity, _SORTED, 3)(data)
        return np.where(counts(_SORTED, 3) > 0, out, 0.0)
    return ref


ROWS = [
    OpSpec("reduce_euclidean_norm", dm.reduce_euclidean_norm,
           lambda x: np.sqrt(np.sum(x * x)), inputs(normal(3, 4))),
    OpSpec("reduce_euclidean_norm_axis_keepdims",
           lambda x: dm.reduce_euclidean_norm(x, 1, keepdims=True),
           lambda x: np.sqrt(np.sum(x * x, 1, keepdims=True)), inputs(normal(3, 4))),
    OpSpec("c_reduce_euclidean_norm", lambda x: dm.reduce_euclidean_norm(x, 0),
           lambda x: np.sqrt(np.sum(np.abs(x) ** 2, 0)).astype(np.complex128),
           inputs(cnormal(3, 2)), order=0),   # TF's x * grad / norm: ops/math/test_math_names.py
    OpSpec("reduce_variance", lambda x: dm.reduce_variance(x, 1), lambda x: np.var(x, 1),
           inputs(normal(3, 4))),
    OpSpec("c_reduce_variance", lambda x: dm.reduce_variance(x, 0), lambda x: np.var(x, 0),
           inputs(cnormal(4, 2))),
    OpSpec("reduce_std", lambda x: dm.reduce_std(x, [0, 1], keepdims=True),
           lambda x: np.std(x, keepdims=True), inputs(normal(3, 4))),
    OpSpec("unsorted_segment_max", lambda d: dm.unsorted_segment_max(d, _FULL, 2),
           segment_ref(np.maximum, -np.inf, _FULL, 2), inputs(normal(5, 2))),
    OpSpec("unsorted_segment_min", lambda d: dm.unsorted_segment_min(d, _FULL, 2),
           segment_ref(np.minimum, np.inf, _FULL, 2), inputs(normal(5, 2))),
    OpSpec("unsorted_segment_prod", lambda d: dm.unsorted_segment_prod(d, _IDS, 4),
           segment_ref(np.multiply, 1.0, _IDS, 4), inputs(normal(5, 2))),
    OpSpec("unsorted_segment_prod_zeros", lambda d: dm.unsorted_segment_prod(d, _IDS, 3),
           # TF's formula zeroes the gradient of a segment with two zeros: exact at first
           # order, but its own derivative there is not (as in TF).
           segment_ref(np.multiply, 1.0, _IDS, 3), inputs(with_zeros(5, 2)), order=1),
    OpSpec("c_unsorted_segment_prod", lambda d: dm.unsorted_segment_prod(d, _IDS, 3),
           # TF's formula has no conj for complex data: values recorded in ops/math/test_math_names.py
           segment_ref(np.multiply, 1.0, _IDS, 3), inputs(cnormal(5, 2)), order=0),
    OpSpec("unsorted_segment_mean", lambda d: dm.unsorted_segment_mean(d, _IDS, 4),
           lambda d: segment_ref(np.add, 0.0, _IDS, 4)(d) / np.maximum(counts(_IDS, 4), 1),
           inputs(normal(5, 2))),
    OpSpec("unsorted_segment_sqrt_n", lambda d: dm.unsorted_segment_sqrt_n(d, _IDS, 3),
           lambda d: segment_ref(np.add, 0.0, _IDS, 3)(d) / np.sqrt(
               np.maximum(counts(_IDS, 3), 1)), inputs(normal(5, 2))),
    OpSpec("segment_sum", lambda d: dm.segment_sum(d, _SORTED),
           segment_ref(np.add, 0.0, _SORTED, 3), inputs(normal(5, 2))),
    OpSpec("segment_mean", lambda d: dm.segment_mean(d, _SORTED),
           lambda d: segment_ref(np.add, 0.0, _SORTED, 3)(d) / np.maximum(counts(_SORTED, 3), 1),
           inputs(normal(5, 2))),
    OpSpec("segment_prod", lambda d: dm.segment_prod(d, _SORTED),
           segment_ref(np.multiply, 1.0, _SORTED, 3), inputs(normal(5, 2))),
    OpSpec("segment_max", lambda d: dm.segment_max(d, _SORTED),
           sorted_ref(np.maximum, -np.inf), inputs(normal(5, 2))),
    OpSpec("segment_min", lambda d: dm.segment_min(d, _SORTED),
           sorted_ref(np.minimum, np.inf), inputs(normal(5, 2))),
    OpSpec("xlog1py", dm.xlog1py, lambda x, y: x * np.log1p(y),
           inputs(normal(3, 2), positive(2))),
    OpSpec("multiply_no_nan", dm.multiply_no_nan, np.multiply,
           inputs(normal(3, 2), normal(3, 2))),
    OpSpec("nextafter", dm.nextafter, np.nextafter, inputs(normal(3, 2), normal(2))),
]


def away_from_half(*shape):
    """Values whose rounding is not at a tie (central differences stay on one step)."""
    return lambda rng: np.floor(rng.uniform(-4, 4, shape)) + rng.uniform(0.1, 0.4, shape)


ROWS += [
    OpSpec("acosh", dg.acosh, np.arccosh, inputs(lambda rng: rng.uniform(1.5, 3.0, (3, 2)))),
    OpSpec("asinh", dg.asinh, np.arcsinh, inputs(normal(3, 2))),
    OpSpec("atanh", dg.atanh, np.arctanh, inputs(lambda rng: rng.uniform(-0.8, 0.8, (3, 2)))),
    OpSpec("c_asinh", dg.asinh, np.arcsinh, inputs(cnormal(3))),
    OpSpec("erfc", dm.erfc, lambda x: 1 - np.vectorize(__import__("math").erf)(x),
           inputs(normal(3, 2)), rtol=1e-6),
    OpSpec("floor", dg.floor, np.floor, inputs(away_from_half(4)), order=0),
    OpSpec("ceil", dm.ceil, np.ceil, inputs(away_from_half(4)), order=0),
    OpSpec("round", dg.round, np.round, inputs(lambda rng: np.array([0.5, 1.5, 2.5, -0.5])),
           order=0),
    OpSpec("rint", dm.rint, np.rint, inputs(away_from_half(4)), order=0),
    OpSpec("is_inf", dm.is_inf, np.isinf,
           inputs(lambda rng: np.array([1.0, np.inf, -np.inf, np.nan])), order=0),
    OpSpec("truncatediv", dg.truncatediv, lambda x, y: np.trunc(x / y).astype(np.int32),
           inputs(lambda rng: np.array([-7, 7, -8], np.int32),
                  lambda rng: np.array([3, -3, 3], np.int32)), order=0),
    OpSpec("truncatemod", dg.truncatemod, np.fmod,
           inputs(lambda rng: np.array([-7.0, 7.5, -8.0]), lambda rng: np.array([3.0, -3.0, 2.5])),
           order=0),
    OpSpec("reciprocal_no_nan", dm.reciprocal_no_nan,
           lambda x: np.where(x == 0, 0.0, 1 / np.where(x == 0, 1.0, x)),
           inputs(lambda rng: np.array([0.7, 2.0, -0.5]))),   # x == 0: ops/math/test_math_names.py
]

# Values from TF 2.21 (tf.math.lgamma / digamma / polygamma); gradients by differences.
ROWS += [
    OpSpec("lgamma", dm.lgamma, lambda x: np.vectorize(__import__("math").lgamma)(x),
           inputs(lambda rng: rng.uniform(-3.9, 6, (3, 4)) + 0.05), rtol=1e-12),
    OpSpec("digamma", dm.digamma, None, inputs(lambda rng: rng.uniform(0.3, 30, (3, 4)))),
    OpSpec("digamma_negative", dm.digamma, None,
           inputs(lambda rng: rng.uniform(-2.9, -2.1, (4,)))),
    OpSpec("polygamma", lambda x: dm.polygamma(dg.constant(np.array([1.0, 2.0, 3.0])), x),
           None, inputs(lambda rng: rng.uniform(0.2, 25, (2, 3)))),
]
