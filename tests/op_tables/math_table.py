"""Op-table rows for the math ops: special, trigonometric, complex, cumulative, einsum,
selection, and core comparison/logic/reduction ops that had no row.

Complex rows check the forward value against NumPy and the gradient under TF's
convention (gradcheck's directional derivative Re(<grad, v>) matches it).
"""
from __future__ import annotations

import math

import numpy as np

import duograd as dg
from .spec import OpSpec, inputs, normal, positive, unit

dm = dg.math


def cnormal(*shape):
    return lambda rng: rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def with_zero(*shape):
    """Normal values with exact zeros in them (one per row of the last axis pair)."""
    def make(rng):
        x = rng.standard_normal(shape)
        x.reshape(-1)[::4] = 0.0
        return x
    return make


def nonzero(*shape):
    """Normal values kept away from 0 (signs mixed)."""
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)


def booleans(*shape):
    return lambda rng: rng.standard_normal(shape) > 0


def erf_series(x):
    """A SciPy-free reference: the Maclaurin series of erf (|x| < 4, float64)."""
    x = np.asarray(x, np.float64)
    term, total = x.copy(), x.copy()
    for n in range(1, 120):
        term = term * (-x * x) / n
        total = total + term / (2 * n + 1)
    return total * 2 / math.sqrt(math.pi)


def cumulative_ref(np_func, identity):
    def ref(x, axis, exclusive, reverse):
        if reverse:
            x = np.flip(x, axis)
        out = np_func(x, axis=axis)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis), identity),
                                  np.delete(out, -1, axis)], axis)
        return np.flip(out, axis) if reverse else out
    return ref


def cumulative_rows(name, fn, np_func, identity, make):
    rows = []
    for exclusive in (False, True):
        for reverse in (False, True):
            rows.append(OpSpec(
                f"{name}_excl{int(exclusive)}_rev{int(reverse)}",
                lambda x, e=exclusive, r=reverse: fn(x, axis=1, exclusive=e, reverse=r),
                lambda x, e=exclusive, r=reverse: cumulative_ref(np_func, identity)(x, 1, e, r),
                inputs(make)))
    return rows


def top_k_ref(x, k):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(x, order, -1), order.astype(np.int32)]


ROWS = [
    # -- special elementwise -------------------------------------------------------
    OpSpec("expm1", dg.expm1, np.expm1, inputs(normal(2, 3))),
    OpSpec("reciprocal", dg.reciprocal, np.reciprocal, inputs(nonzero(4))),
    OpSpec("softplus", dg.softplus, lambda x: np.log1p(np.exp(x)), inputs(normal(2, 3))),
    OpSpec("erf", dg.erf, erf_series, inputs(normal(3, 3)), rtol=1e-12, atol=1e-14),
    OpSpec("log_sigmoid", dm.log_sigmoid, lambda x: -np.log1p(np.exp(-x)), inputs(normal(5))),
    OpSpec("squared_difference", dg.squared_difference, lambda x, y: (x - y) ** 2,
           inputs(normal(3, 4), normal(4))),
    OpSpec("xlogy", dm.xlogy, lambda x, y: x * np.log(y), inputs(nonzero(3, 2), positive(2))),
    OpSpec("xdivy", dm.xdivy, lambda x, y: x / y, inputs(nonzero(3), nonzero(2, 3))),
    OpSpec("divide_no_nan", dm.divide_no_nan, np.divide, inputs(normal(2, 3), nonzero(3))),
    OpSpec("clip_by_value", lambda x: dg.clip_by_value(x, -0.5, 0.7),
           lambda x: np.clip(x, -0.5, 0.7), inputs(normal(3, 4))),
    OpSpec("clip_by_value_tensor_bounds", dg.clip_by_value, np.clip,
           inputs(normal(3, 4), lambda r: np.full(4, -0.5), lambda r: np.full((3, 1), 0.5))),
    OpSpec("is_nan", dg.is_nan, np.isnan,
           inputs(lambda r: np.array([0.0, np.nan, np.inf, -1.0])), order=0),
    OpSpec("is_finite", dg.is_finite, np.isfinite,
           inputs(lambda r: np.array([0.0, np.nan, -np.inf, 2.0])), order=0),
    OpSpec("reduce_logsumexp", lambda x: dg.reduce_logsumexp(x, axis=1),
           lambda x: np.log(np.exp(x).sum(1)), inputs(normal(3, 4))),
    OpSpec("reduce_logsumexp_keepdims", lambda x: dg.reduce_logsumexp(x, [0, 2], keepdims=True),
           lambda x: np.log(np.exp(x).sum((0, 2), keepdims=True)), inputs(normal(2, 3, 2))),
    OpSpec("reduce_logsumexp_all", dg.reduce_logsumexp, lambda x: np.log(np.exp(x).sum()),
           inputs(normal(2, 3))),
    # -- trigonometric and hyperbolic ----------------------------------------------
    OpSpec("tan", dg.tan, np.tan, inputs(unit(2, 3))),
    OpSpec("asin", dg.asin, np.arcsin, inputs(unit(5))),
    OpSpec("acos", dg.acos, np.arccos, inputs(unit(5))),
    OpSpec("atan", dg.atan, np.arctan, inputs(normal(5))),
    OpSpec("atan2", dg.atan2, np.arctan2, inputs(nonzero(2, 3), nonzero(3))),
    OpSpec("sinh", dg.sinh, np.sinh, inputs(normal(4))),
    OpSpec("cosh", dg.cosh, np.cosh, inputs(normal(4))),
    # -- cumulative -------------------------------------------------------------------
    *cumulative_rows("cumsum", dg.cumsum, np.cumsum, 0, normal(2, 4)),
    *cumulative_rows("cumprod", dg.cumprod, np.cumprod, 1, normal(2, 4)),
    *cumulative_rows("cumprod_zeros", dg.cumprod, np.cumprod, 1, with_zero(2, 5)),
    OpSpec("cumsum_axis0_int", lambda x: dg.cumsum(x), lambda x: np.cumsum(x, 0).astype(np.int32),
           inputs(lambda r: r.integers(-5, 5, (3, 2)).astype(np.int32)), order=0),
    OpSpec("cumprod_axis_neg", lambda x: dg.cumprod(x, axis=-3), lambda x: np.cumprod(x, 0),
           inputs(normal(3, 2, 2))),
    # -- selection ----------------------------------------------------------------------
    OpSpec("argmax", lambda x: dg.argmax(x, axis=1), lambda x: np.argmax(x, 1),
           inputs(normal(3, 4)), order=0),
    OpSpec("argmin_default_axis", dg.argmin, lambda x: np.argmin(x, 0),
           inputs(normal(3, 4)), order=0),
    OpSpec("argmax_int32_out", lambda x: dg.argmax(x, -1, output_type=dg.int32),
           lambda x: np.argmax(x, -1).astype(np.int32), inputs(normal(2, 5)), order=0),
    OpSpec("top_k", lambda x: list(dm.top_k(x, k=3)), lambda x: top_k_ref(x, 3),
           inputs(normal(2, 3, 5))),
    OpSpec("top_k_1d", lambda x: list(dm.top_k(x)), lambda x: top_k_ref(x, 1),
           inputs(normal(4))),
    # -- einsum and tensordot ---------------------------------------------------------------
    OpSpec("einsum_matmul", lambda a, b: dg.einsum("ij,jk->ik", a, b),
           lambda a, b: a @ b, inputs(normal(2, 3), normal(3, 4))),
    OpSpec("einsum_implicit", lambda a, b: dg.einsum("ij,jk", a, b),
           lambda a, b: a @ b, inputs(normal(2, 3), normal(3, 4))),
    OpSpec("einsum_implicit_order", lambda a: dg.einsum("cBa", a),
           lambda a: np.einsum("cBa", a), inputs(normal(2, 3, 4))),
    OpSpec("einsum_trace", lambda a: dg.einsum("ii", a), np.trace, inputs(normal(3, 3))),
    OpSpec("einsum_diag", lambda a: dg.einsum("ii->i", a), np.diag, inputs(normal(3, 3))),
    OpSpec("einsum_make_diag", lambda a: dg.einsum("i->ii", a), np.diag, inputs(normal(3))),
    OpSpec("einsum_reduce_transpose", lambda a: dg.einsum("ijk->kj", a),
           lambda a: a.sum(0).T, inputs(normal(2, 3, 4))),
    OpSpec("einsum_outer", lambda a, b: dg.einsum("i,j->ij", a, b), np.outer,
           inputs(normal(3), normal(2))),
    OpSpec("einsum_three", lambda a, b, c: dg.einsum("ij,jk,kl->il", a, b, c),
           lambda a, b, c: a @ b @ c, inputs(normal(2, 3), normal(3, 4), normal(4, 2))),
    OpSpec("einsum_ellipsis_broadcast", lambda a, b: dg.einsum("...ij,...jk->...ik", a, b),
           lambda a, b: np.matmul(a, b), inputs(normal(2, 1, 2, 3), normal(4, 3, 2))),
    OpSpec("einsum_ellipsis_middle", lambda a, b: dg.einsum("i...j,j->...i", a, b),
           lambda a, b: np.einsum("i...j,j->...i", a, b), inputs(normal(2, 3, 1, 4), normal(4))),
    OpSpec("einsum_repeated_batch", lambda a, b: dg.einsum("bii,bi->b", a, b),
           lambda a, b: np.einsum("bii,bi->b", a, b), inputs(normal(2, 3, 3), normal(2, 3))),
    OpSpec("einsum_only_in_one", lambda a, b: dg.einsum("ij,k->ik", a, b),
           lambda a, b: np.einsum("ij,k->ik", a, b), inputs(normal(2, 3), normal(4))),
    OpSpec("tensordot_int", lambda a, b: dg.tensordot(a, b, 1), lambda a, b: np.tensordot(a, b, 1),
           inputs(normal(2, 3), normal(3, 4))),
    OpSpec("tensordot_lists", lambda a, b: dg.tensordot(a, b, [[1, 0], [0, 2]]),
           lambda a, b: np.tensordot(a, b, [[1, 0], [0, 2]]),
           inputs(normal(2, 3, 4), normal(3, 5, 2))),
    OpSpec("tensordot_zero", lambda a, b: dg.tensordot(a, b, 0),
           lambda a, b: np.tensordot(a, b, 0), inputs(normal(2), normal(3))),
    # -- core reductions, comparisons and logic without rows elsewhere -----------------------
    OpSpec("reduce_prod", lambda x: dg.reduce_prod(x, axis=1), lambda x: x.prod(1),
           inputs(normal(3, 4))),
    OpSpec("reduce_prod_zeros", lambda x: dg.reduce_prod(x, axis=1), lambda x: x.prod(1),
           inputs(lambda r: np.array([[0.0, 1.5, -2.0, 0.5], [0.0, 0.0, 3.0, 1.0],
                                      [1.1, -0.7, 2.0, 0.9]]))),
    OpSpec("reduce_prod_axes_keepdims", lambda x: dg.reduce_prod(x, [0, 2], keepdims=True),
           lambda x: x.prod((0, 2), keepdims=True), inputs(with_zero(2, 3, 2))),
    OpSpec("reduce_prod_all", dg.reduce_prod, np.prod, inputs(with_zero(2, 3))),
    OpSpec("reduce_all", lambda x: dg.reduce_all(x, axis=1), lambda x: x.all(1),
           inputs(booleans(3, 4)), order=0),
    OpSpec("reduce_any", dg.reduce_any, np.any, inputs(booleans(3, 4)), order=0),
    OpSpec("less_equal", dg.less_equal, np.less_equal,
           inputs(lambda r: np.array([1.0, 2.0, 3.0]), lambda r: np.array([2.0, 2.0, 2.0])),
           order=0),
    OpSpec("greater", dg.greater, np.greater, inputs(normal(3, 2), normal(2)), order=0),
    OpSpec("not_equal", dg.not_equal, np.not_equal,
           inputs(lambda r: np.array([1, 2, 3], np.int32), lambda r: np.array([1, 0, 3], np.int32)),
           order=0),
    OpSpec("logical_and", dg.logical_and, np.logical_and, inputs(booleans(4), booleans(4)),
           order=0),
    OpSpec("logical_or", dg.logical_or, np.logical_or, inputs(booleans(2, 3), booleans(3)),
           order=0),
    OpSpec("logical_not", dg.logical_not, np.logical_not, inputs(booleans(5)), order=0),
    OpSpec("logical_xor", dg.logical_xor, np.logical_xor, inputs(booleans(6), booleans(6)),
           order=0),
    OpSpec("where_one_arg", dg.where, np.argwhere, inputs(booleans(3, 4)), order=0),
    # -- complex ---------------------------------------------------------------------------------
    OpSpec("real", dm.real, np.real, inputs(cnormal(2, 3))),
    OpSpec("imag", dm.imag, np.imag, inputs(cnormal(2, 3))),
    OpSpec("conj", dm.conj, np.conj, inputs(cnormal(4))),
    OpSpec("complex", dg.complex, lambda x, y: x + 1j * y, inputs(normal(2, 3), normal(3))),
    OpSpec("real_of_real", dm.real, np.real, inputs(normal(3))),
    OpSpec("imag_of_real", dm.imag, np.imag, inputs(normal(3))),
    OpSpec("c_add", dg.add, np.add, inputs(cnormal(2, 3), cnormal(3))),
    OpSpec("c_multiply", dg.multiply, np.multiply, inputs(cnormal(2, 3), cnormal(3))),
    OpSpec("c_divide", dg.divide, np.divide, inputs(cnormal(2, 3), cnormal(3))),
    OpSpec("c_exp", dg.exp, np.exp, inputs(cnormal(4))),
    OpSpec("c_log", dg.log, np.log, inputs(cnormal(4))),
    OpSpec("c_log1p", dg.log1p, np.log1p, inputs(cnormal(4))),
    OpSpec("c_sin", dg.sin, np.sin, inputs(cnormal(4))),
    OpSpec("c_cos", dg.cos, np.cos, inputs(cnormal(4))),
    OpSpec("c_tan", dg.tan, np.tan, inputs(lambda r: 0.5 * cnormal(4)(r))),
    OpSpec("c_sinh", dg.sinh, np.sinh, inputs(cnormal(4))),
    OpSpec("c_cosh", dg.cosh, np.cosh, inputs(cnormal(4))),
    OpSpec("c_tanh", dg.tanh, np.tanh, inputs(lambda r: 0.5 * cnormal(4)(r))),
    OpSpec("c_sigmoid", dg.sigmoid, lambda x: 1 / (1 + np.exp(-x)),
           inputs(lambda r: 0.5 * cnormal(4)(r))),
    OpSpec("c_square", dg.square, np.square, inputs(cnormal(4))),
    OpSpec("c_sqrt", dg.sqrt, np.sqrt, inputs(lambda r: cnormal(4)(r) + 3)),
    OpSpec("c_rsqrt", dg.rsqrt, lambda x: 1 / np.sqrt(x), inputs(lambda r: cnormal(4)(r) + 3)),
    OpSpec("c_reciprocal", dg.reciprocal, np.reciprocal, inputs(lambda r: cnormal(4)(r) + 3)),
    OpSpec("c_expm1", dg.expm1, np.expm1, inputs(cnormal(4))),
    OpSpec("c_abs", dg.abs, np.abs, inputs(cnormal(2, 3))),
    OpSpec("c_pow", dg.pow, np.power,
           inputs(lambda r: cnormal(3)(r) + 3, lambda r: 0.5 * cnormal(3)(r))),
    OpSpec("c_asin", dg.asin, np.arcsin, inputs(lambda r: 0.3 * cnormal(3)(r))),
    OpSpec("c_acos", dg.acos, np.arccos, inputs(lambda r: 0.3 * cnormal(3)(r))),
    OpSpec("c_atan", dg.atan, np.arctan, inputs(lambda r: 0.3 * cnormal(3)(r))),
    OpSpec("c_squared_difference", dg.squared_difference, lambda x, y: np.abs(x - y) ** 2,
           inputs(cnormal(2, 3), cnormal(3))),
    OpSpec("c_divide_no_nan", dm.divide_no_nan, np.divide, inputs(cnormal(3), cnormal(3))),
    OpSpec("c_xlogy", dm.xlogy, lambda x, y: x * np.log(y),
           inputs(cnormal(3), lambda r: cnormal(3)(r) + 3)),
    OpSpec("c_matmul", dg.matmul, np.matmul, inputs(cnormal(2, 3), cnormal(3, 2))),
    OpSpec("c_matmul_adjoint", lambda a, b: dg.matmul(a, b, adjoint_a=True),
           lambda a, b: a.conj().T @ b, inputs(cnormal(3, 2), cnormal(3, 2))),
    OpSpec("c_einsum", lambda a, b: dg.einsum("ij,kj->ik", a, b),
           lambda a, b: a @ b.T, inputs(cnormal(2, 3), cnormal(4, 3))),
    OpSpec("c_cumsum", lambda x: dg.cumsum(x, 1, reverse=True),
           lambda x: np.flip(np.cumsum(np.flip(x, 1), 1), 1), inputs(cnormal(2, 3))),
    OpSpec("c_cumprod", lambda x: dg.cumprod(x, 1, exclusive=True),
           lambda x: cumulative_ref(np.cumprod, 1)(x, 1, True, False),
           inputs(cnormal(2, 3))),
    OpSpec("c_reduce_prod", lambda x: dg.reduce_prod(x, axis=0), lambda x: x.prod(0),
           inputs(cnormal(3, 2))),
    OpSpec("c_reduce_sum_mean", lambda x: dg.reduce_sum(x, 1) + dg.reduce_mean(x, 1),
           lambda x: x.sum(1) + x.mean(1), inputs(cnormal(2, 3))),
    OpSpec("c_abs_squared", lambda z: dg.abs(z) ** 2, lambda z: np.abs(z) ** 2,
           inputs(cnormal(3))),
]
