"""Math ops beyond the op table: stability, einsum, dtype errors, the complex convention,
the documented decisions (sqrt at 0, where with NaN), and TF's flag semantics."""
from __future__ import annotations

import math

import numpy as np
import pytest

import duograd as dg
from modes import MODES, run
from duograd.framework.errors import InvalidArgumentError



def grad(mode, f, x, unknown_shape=False):
    """d sum(f(x)) / dx in one mode (graph: optionally with all dims unknown)."""
    x = np.asarray(x)
    if mode == "eager":
        t = dg.constant(x)
        with dg.GradientTape() as tape:
            tape.watch(t)
            y = f(t)
        return np.asarray(dg.convert_to_tensor(tape.gradient(y, t)))
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.as_dtype(x.dtype), [None] * x.ndim if unknown_shape else x.shape)
        dx = dg.convert_to_tensor(dg.gradients(f(p), p)[0])
        with dg.Session(graph=g) as sess:
            return sess.run(dx, {p: x})


# -- stability --------------------------------------------------------------------------
BIG = np.array([-1000.0, 1000.0])
STABLE = [
    ("softplus", dg.softplus, [0.0, 1000.0], [0.0, 1.0]),
    ("nn_softplus_is_math_softplus", dg.math.softplus, [0.0, 1000.0], [0.0, 1.0]),
    ("log_sigmoid", dg.math.log_sigmoid, [-1000.0, 0.0], [1.0, 0.0]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,f,value,slope", STABLE, ids=[s[0] for s in STABLE])
def test_stable_at_plus_minus_1000(mode, dtype, name, f, value, slope):
    x = BIG.astype(dtype)
    np.testing.assert_allclose(run(mode, f, x), value, atol=1e-30)
    np.testing.assert_allclose(grad(mode, lambda t: dg.reduce_sum(f(t)), x), slope, atol=1e-30)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_stable_at_plus_minus_1000(mode, dtype):
    x = np.array([[1000.0, 1000.0], [-1000.0, -1000.0]], dtype)
    value = run(mode, lambda t: dg.reduce_logsumexp(t, axis=1), x)
    np.testing.assert_allclose(value, [1000 + math.log(2), -1000 + math.log(2)], rtol=1e-6)
    g = grad(mode, lambda t: dg.reduce_logsumexp(t, axis=1), x)
    np.testing.assert_allclose(g, np.full((2, 2), 0.5), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_logsumexp_with_infinities(mode):
    x = np.array([[-np.inf, 0.0], [-np.inf, -np.inf], [np.inf, 1.0]])
    value = run(mode, lambda t: dg.reduce_logsumexp(t, axis=1), x)
    np.testing.assert_array_equal(value, [0.0, -np.inf, np.inf])


# -- the documented decisions -------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_sqrt_gradient_at_zero_is_the_subgradient_0(mode):
    x = np.array([0.0, 4.0])
    np.testing.assert_array_equal(grad(mode, lambda t: dg.reduce_sum(dg.sqrt(t)), x), [0.0, 0.25])


def test_sqrt_second_derivative_at_zero_is_0():
    t = dg.constant([0.0, 4.0])
    with dg.GradientTape() as outer:
        outer.watch(t)
        with dg.GradientTape() as inner:
            inner.watch(t)
            y = dg.reduce_sum(dg.sqrt(t))
        dy = inner.gradient(y, t)
    np.testing.assert_allclose(outer.gradient(dy, t), [0.0, -0.25 / 4 / 2], rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_where_nan_in_the_unused_branch_leaks_as_in_tf(mode):
    x = np.array([0.0, 2.0])
    naive = grad(mode, lambda t: dg.reduce_sum(dg.where(t > 0, dg.log(t), dg.zeros_like(t))), x)
    assert np.isnan(naive[0]) and naive[1] == 0.5

    def double_where(t):
        safe = dg.where(t > 0, t, dg.ones_like(t))
        return dg.reduce_sum(dg.where(t > 0, dg.log(safe), dg.zeros_like(t)))

    np.testing.assert_array_equal(grad(mode, double_where, x), [0.0, 0.5])


# -- the complex convention -----------------------------------------------------------------
SQUARED_MODULUS = [
    ("abs_pow", lambda z: dg.abs(z) ** 2),
    ("square_abs", lambda z: dg.square(dg.abs(z))),
    ("z_conj_z", lambda z: dg.math.real(z * dg.math.conj(z))),
    ("real_imag", lambda z: dg.square(dg.math.real(z)) + dg.square(dg.math.imag(z))),
    ("squared_difference", lambda z: dg.math.real(dg.squared_difference(z, dg.zeros_like(z)))),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,f", SQUARED_MODULUS, ids=[s[0] for s in SQUARED_MODULUS])
def test_gradient_of_squared_modulus_is_2z(mode, name, f):
    for dtype in (np.complex64, np.complex128):
        g = grad(mode, f, np.array(1 + 2j, dtype))
        assert g.dtype == dtype
        np.testing.assert_allclose(g, 2 + 4j, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_holomorphic_gradient_is_conjugated(mode):
    # L = Re(z**2): for holomorphic f the gradient of Re(f) is conj(f'(z)) = conj(2z).
    z = np.array([1 + 2j])
    f = lambda t: dg.math.real(dg.reduce_sum(t * t))
    np.testing.assert_allclose(grad(mode, f, z), [2 - 4j])


@pytest.mark.parametrize("mode", MODES)
def test_abs_of_complex_gradient(mode):
    z = np.array([3 + 4j, 0j])
    np.testing.assert_allclose(grad(mode, lambda t: dg.reduce_sum(dg.abs(t)), z), [0.6 + 0.8j, 0])


def test_complex_builds_the_right_dtype():
    assert dg.complex(1.0, 2.0).dtype == dg.complex64
    z = dg.complex(np.float64(1.0), np.float64(2.0))
    assert z.dtype == dg.complex128 and complex(z.numpy()) == 1 + 2j
    assert dg.math.real(dg.constant([1.5])).dtype == dg.float32
    np.testing.assert_array_equal(dg.math.imag(dg.constant([1.5])), [0.0])
    # TF 2.21 checks the parts' dtypes in Python: a TypeError in both modes.
    with pytest.raises(TypeError):
        dg.complex(dg.constant(1.0), dg.constant(1.0, dg.float64))
    with dg.Graph().as_default(), pytest.raises(TypeError):
        dg.complex(dg.constant(1.0), dg.constant(1.0, dg.float64))
    with pytest.raises(TypeError):
        dg.complex(dg.constant(1), dg.constant(1))


# -- dtype errors and promotions ------------------------------------------------------------
INT_REJECTED = [dg.sin, dg.softplus, dg.erf, dg.tan, dg.expm1, dg.math.log_sigmoid, dg.is_nan]


@pytest.mark.parametrize("f", INT_REJECTED, ids=lambda f: f.__name__)
def test_int_input_is_rejected_in_both_modes(f):
    with pytest.raises(InvalidArgumentError, match="int32"):
        f(dg.constant([1, 2]))
    with dg.Graph().as_default():
        with pytest.raises(TypeError, match="int32"):
            f(dg.placeholder(dg.int32, [2]))


def test_complex_rejected_where_tf_rejects_it():
    z = dg.constant([1j])
    for f in (dg.softplus, dg.erf, dg.is_finite, lambda t: dg.atan2(t, t)):
        with pytest.raises(InvalidArgumentError):
            f(z)


@pytest.mark.parametrize("mode", MODES)
def test_integer_truediv_gives_float(mode):
    a, b = np.array([1, 3], np.int32), np.array([2, 4], np.int32)
    out = run(mode, dg.truediv, a, b)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [0.5, 0.75])
    out16 = run(mode, dg.divide, a.astype(np.int16), b.astype(np.int16))
    assert out16.dtype == np.float32


# -- einsum -------------------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("...ij->...ji", [(2, 1, 2, 3)]),
    ("...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 2)]),
    ("b...i,b...i->b...", [(2, 3, 4), (2, 1, 4)]),
    ("i,i->", [(4,), (4,)]),
    ("ba,cb->ac", [(3, 2), (4, 3)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 2), (2, 4), (4, 2)]),
    ("Aa,aB->AB", [(2, 3), (3, 2)]),
    (" ij , jk -> ik ", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("equation,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_numpy(mode, equation, shapes):
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s) for s in shapes]
    out = run(mode, lambda *ts: dg.einsum(equation, *ts), *args)
    np.testing.assert_allclose(out, np.einsum(equation.replace(" ", ""), *args), rtol=1e-12)


def test_einsum_static_shape_with_unknown_dims():
    with dg.Graph().as_default():
        a = dg.placeholder(dg.float32, [None, 3])
        b = dg.placeholder(dg.float32, [3, None])
        assert dg.einsum("ij,jk->ki", a, b).shape.as_list() == [None, None]
        c = dg.placeholder(dg.float32, [None, 2, 3])
        assert dg.einsum("...ij->...j", c).shape.as_list() == [None, 3]
        assert dg.einsum("...ij->j", dg.placeholder(dg.float32, [2, 3])).shape.as_list() == [3]
        assert dg.einsum("...i->...i", dg.placeholder(dg.float32)).shape.rank is None
        assert dg.einsum("ij,jk->ik", dg.placeholder(dg.float32), b).shape.as_list() == [None, None]


def test_einsum_errors():
    a, b = dg.constant(np.ones((2, 3))), dg.constant(np.ones((4, 5)))
    with pytest.raises(InvalidArgumentError, match="Einsum"):
        dg.einsum("ij,jk->ik", a, b)
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match="Einsum"):
            dg.einsum("ij,jk->ik", dg.placeholder(dg.float32, [2, 3]),
                      dg.placeholder(dg.float32, [4, 5]))
        with pytest.raises(ValueError, match="does not match"):
            dg.einsum("ijk->i", dg.placeholder(dg.float32, [2, 3]))
    for bad in ("ij->q", "i.j->ij", "ij,jk->ik,", "i->..."):
        with pytest.raises(ValueError):
            dg.einsum(bad, a, a) if bad.count(",") == 1 else dg.einsum(bad, a)
    with pytest.raises(ValueError, match="operands"):
        dg.einsum("ij,jk->ik", a)


@pytest.mark.parametrize("mode", MODES)
def test_einsum_gradient_of_trace_is_identity(mode):
    g = grad(mode, lambda t: dg.einsum("ii", t), np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(g, np.eye(3))


def test_einsum_gradient_with_unknown_dims_and_broadcasting():
    x = np.ones((1, 3))
    f = lambda t: dg.reduce_sum(dg.einsum("...i,...i->...", t, dg.constant(np.ones((2, 3)))))
    np.testing.assert_array_equal(grad("graph", f, x, unknown_shape=True), np.full((1, 3), 2.0))
    np.testing.assert_array_equal(grad("eager", f, x), np.full((1, 3), 2.0))


def test_tensordot_errors():
    a = dg.constant(np.ones((2, 3)))
    with pytest.raises(ValueError):
        dg.tensordot(a, a, 3)
    with pytest.raises(ValueError):
        dg.tensordot(a, a, [[0], [0, 1]])


# -- cumulative ops: TF's flag semantics, gradients at zeros ------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_cumsum_flags_as_documented_by_tf(mode):
    x = np.array([1.0, 2.0, 4.0])
    cases = {(False, False): [1, 3, 7], (True, False): [0, 1, 3],
             (False, True): [7, 6, 4], (True, True): [6, 4, 0]}
    for (exclusive, reverse), expected in cases.items():
        out = run(mode, lambda t: dg.cumsum(t, exclusive=exclusive, reverse=reverse), x)
        np.testing.assert_array_equal(out, expected)
        out = run(mode, lambda t: dg.cumprod(t + 1, exclusive=exclusive, reverse=reverse), x)
        expected_prod = {(False, False): [2, 6, 30], (True, False): [1, 2, 6],
                         (False, True): [30, 15, 5], (True, True): [15, 5, 1]}
        np.testing.assert_array_equal(out, expected_prod[(exclusive, reverse)])


@pytest.mark.parametrize("mode", MODES)
def test_cumprod_gradient_is_exact_at_zeros(mode):
    # y = [x0, x0 x1, x0 x1 x2]; at x = [2, 0, 3]: d sum(y) = [1 + x1 + x1 x2, x0 + x0 x2, x0 x1].
    g = grad(mode, lambda t: dg.reduce_sum(dg.cumprod(t)), np.array([2.0, 0.0, 3.0]))
    np.testing.assert_array_equal(g, [1.0, 8.0, 0.0])


def test_cumulative_axis_errors():
    with pytest.raises(InvalidArgumentError):
        dg.cumsum(dg.constant([1.0, 2.0]), axis=1)
    # TF 2.21 builds the op and raises InvalidArgumentError when it runs.
    with dg.Graph().as_default(), pytest.raises(InvalidArgumentError, match="Cumsum"):
        dg.cumsum(dg.placeholder(dg.float32, [2]), axis=1)


@pytest.mark.parametrize("mode", MODES)
def test_reduce_prod_gradient_with_zeros_and_unknown_dims(mode):
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 3.0]])
    f = lambda t: dg.reduce_sum(dg.reduce_prod(t, axis=1))
    expected = [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]
    np.testing.assert_array_equal(grad(mode, f, x, unknown_shape=True), expected)
    g_all = grad(mode, dg.reduce_prod, np.array([[0.0, 2.0], [3.0, 4.0]]), unknown_shape=True)
    np.testing.assert_array_equal(g_all, [[24.0, 0.0], [0.0, 0.0]])


# -- selection ----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_top_k_ties_and_gradient(mode):
    x = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 4.0, 4.0, 4.0]])
    values, indices = run(mode, lambda t: list(dg.math.top_k(t, k=2)), x)
    np.testing.assert_array_equal(values, [[3, 3], [5, 4]])
    np.testing.assert_array_equal(indices, [[1, 2], [0, 1]])
    assert indices.dtype == np.int32
    weights = dg.constant([[1.0, 10.0], [100.0, 1000.0]], dtype=dg.float64)
    f = lambda t: dg.reduce_sum(dg.math.top_k(t, k=2).values * weights)
    expected = [[0, 1, 10, 0], [100, 1000, 0, 0]]
    np.testing.assert_array_equal(grad(mode, f, x), expected)
    if mode == "graph":
        np.testing.assert_array_equal(grad(mode, f, x, unknown_shape=True), expected)


def test_top_k_errors():
    with pytest.raises(InvalidArgumentError):
        dg.math.top_k(dg.constant([1.0, 2.0]), k=3)
    with dg.Graph().as_default(), pytest.raises(ValueError, match="TopKV2"):
        dg.math.top_k(dg.placeholder(dg.float32, [2]), k=3)


def test_argmax_argmin_dtypes_and_no_gradient():
    x = dg.constant([[1.0, 5.0], [7.0, 2.0]])
    assert dg.argmax(x).dtype == dg.int64
    np.testing.assert_array_equal(dg.argmax(x), [1, 0])
    np.testing.assert_array_equal(dg.argmin(x, axis=1, output_type=dg.int32), [0, 1])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.cast(dg.argmax(x, 1), dg.float32)
    assert tape.gradient(y, x) is None
    with dg.Graph().as_default(), pytest.raises(ValueError, match="ArgMax"):  # as TF 2.21
        dg.argmax(dg.placeholder(dg.float32, [2, 3]), axis=2)


# -- zero-safe divisions, erf, clipping -------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_zero_safe_divisions(mode):
    x, y = np.array([1.0, 0.0, 0.0, 6.0]), np.array([0.0, 0.0, 2.0, 3.0])
    np.testing.assert_array_equal(run(mode, dg.math.divide_no_nan, x, y), [0, 0, 0, 2])
    np.testing.assert_array_equal(run(mode, dg.math.xlogy, x[1:3], y[1:3]), [0.0, 0.0])
    np.testing.assert_array_equal(run(mode, dg.math.xdivy, x[1:], y[1:]), [0.0, 0.0, 2.0])
    g = grad(mode, lambda t: dg.reduce_sum(dg.math.divide_no_nan(dg.constant(x), t)), y)
    np.testing.assert_array_equal(g, [0.0, 0.0, -0.0, -6.0 / 9.0])


def test_erf_matches_libm():
    x = np.array([-3.0, -0.5, 0.0, 1e-8, 0.5, 1.0, 2.5, 6.0])
    expected = [math.erf(v) for v in x]
    np.testing.assert_allclose(dg.erf(x), expected, rtol=1e-15, atol=0)
    np.testing.assert_allclose(dg.erf(x.astype(np.float32)), expected, rtol=1e-7, atol=1e-12)
    assert dg.erf(x.astype(np.float32)).dtype == dg.float32
    assert float(dg.erf(1.0)) == pytest.approx(0.8427007929497149, rel=1e-7)


def test_clip_by_value_rejects_bounds_that_grow_t():
    with pytest.raises(ValueError, match="shape"):
        dg.clip_by_value(dg.constant([1.0, 2.0]), dg.constant([[0.0, 0.0]] * 2), 1.0)
    np.testing.assert_array_equal(dg.clip_by_value([[-2, 0, 5]], 0, 3), [[0, 0, 3]])


def test_math_namespace_and_top_level_exports():
    names = ["expm1", "reciprocal", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
             "softplus", "erf", "squared_difference", "reduce_logsumexp", "cumsum", "cumprod",
             "argmax", "argmin", "real", "imag", "conj", "complex", "is_nan", "is_finite",
             "clip_by_value", "einsum", "tensordot", "truediv", "divide"]
    for name in names:
        assert getattr(dg, name) is getattr(dg.math, name), name
    for name in ["log_sigmoid", "xlogy", "divide_no_nan", "top_k", "xdivy", "logical_xor"]:
        assert callable(getattr(dg.math, name)), name
