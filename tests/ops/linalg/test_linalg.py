"""dg.linalg behaviour beyond the op table: errors, static shapes, norm at 0, API shape."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from modes import run_graph
from duograd.framework.errors import InvalidArgumentError

la = dg.linalg
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]])


def _eager_grad(f, x):
    t = dg.constant(x)
    with dg.GradientTape() as tape:
        tape.watch(t)
        y = f(t)
    return np.asarray(tape.gradient(y, t))


def _graph_grad(f, x, order=1):
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.as_dtype(x.dtype), x.shape)
        grad = dg.gradients(f(p), p)[0]
        fetch = [grad]
        if order == 2:
            fetch.append(dg.gradients(dg.reduce_sum(grad), p, unconnected_gradients="zero")[0])
        with dg.Session(graph=g) as sess:
            return [np.asarray(v) for v in sess.run(fetch, {p: x})]




def test_namespace_exposes_the_api():
    for name in ["matmul", "matvec", "inv", "det", "slogdet", "solve", "cholesky",
                 "triangular_solve", "trace", "diag_part", "tensor_diag", "eigh", "svd", "norm"]:
        assert callable(getattr(dg.linalg, name)), name
    assert dg.linalg.matmul is dg.matmul


# -- the norm-at-0 decision ------------------------------------------------------------
NORMS_AT_ZERO = [
    ("euclidean", lambda x: la.norm(x), np.zeros(3)),
    ("fro", lambda x: la.norm(x, "fro", axis=(0, 1)), np.zeros((2, 3))),
    ("axis_with_zero_row", lambda x: dg.reduce_sum(la.norm(x, axis=1)),
     np.array([[0.0, 0.0], [3.0, 4.0]])),
    ("ord_2_matrix", lambda x: la.norm(x, 2, axis=(0, 1)), np.zeros((2, 3))),
    ("ord_1", lambda x: la.norm(x, 1), np.zeros(3)),
    ("ord_inf", lambda x: la.norm(x, np.inf), np.zeros(3)),
    ("ord_3", lambda x: la.norm(x, 3), np.zeros(3)),
]


@pytest.mark.parametrize("name,f,x", NORMS_AT_ZERO, ids=[n for n, _, _ in NORMS_AT_ZERO])
def test_norm_gradient_at_zero_is_the_zero_subgradient_in_both_modes(name, f, x):
    expected = np.zeros_like(x)
    if name == "axis_with_zero_row":
        expected[1] = [0.6, 0.8]
    np.testing.assert_allclose(_eager_grad(f, x), expected, atol=1e-12)
    grad, second = _graph_grad(f, x, order=2)
    np.testing.assert_allclose(grad, expected, atol=1e-12)
    assert np.all(np.isfinite(second))


def test_norm_second_derivative_at_zero_is_finite_in_eager_mode():
    x = dg.constant(np.zeros(3))
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            y = la.norm(x)
        g = inner.gradient(y, x)
    hess = np.asarray(outer.gradient(g, x))
    np.testing.assert_array_equal(hess, np.zeros(3))


def test_norm_value_and_gradient_away_from_zero():
    x = np.array([3.0, -4.0])
    assert float(la.norm(x)) == 5.0
    np.testing.assert_allclose(_eager_grad(la.norm, x), [0.6, -0.8])


@pytest.mark.parametrize("ord_,axis", [("fro", None), ("fro", 0), ("nuc", (0, 1)), (-1, None),
                                        (0, None), (1, (0, 0)), (1, (0, 1, 2)), (3, (0, 1))])
def test_norm_rejects_bad_ord_and_axis(ord_, axis):
    with pytest.raises(ValueError):
        la.norm(np.ones((2, 2, 2)), ord=ord_, axis=axis)


def test_norm_keepdims_and_inf_string():
    x = np.arange(12.0).reshape(2, 3, 2)
    out = la.norm(x, "inf", axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(out, np.linalg.norm(x, np.inf, axis=(1, 2), keepdims=True))
    assert out.shape == (2, 1, 1)
    two = la.norm(x, 2, axis=(0, 2), keepdims=True)
    np.testing.assert_allclose(two, np.linalg.norm(x, 2, axis=(0, 2), keepdims=True))


# -- bad matrices -------------------------------------------------------------------------
BAD_INPUTS = [
    ("MatrixInverse", lambda a: la.inv(a), [SINGULAR]),
    ("MatrixSolve", lambda a, b: la.solve(a, b), [SINGULAR, np.ones((2, 1))]),
    ]


@pytest.mark.parametrize("op_type,f,args", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_matrices_raise_invalid_argument_naming_the_op(op_type, f, args):
    with pytest.raises(InvalidArgumentError, match=op_type):
        f(*[dg.constant(a) for a in args])
    with pytest.raises(InvalidArgumentError, match=op_type):
        run_graph(f, *args)


def test_cholesky_and_triangular_solve_of_bad_matrices_give_nan_as_tensorflow():
    """TF 2.21: Cholesky of a matrix that is not positive definite fills its lower
    triangle with NaN (each failing matrix of a batch alone), a triangular solve with a
    zero on the diagonal divides by it; neither raises, in either mode."""
    batch = np.array([[[4.0, 2.0], [2.0, 3.0]], NOT_PD])
    for chol in (la.cholesky(dg.constant(batch)).numpy(), run_graph(la.cholesky, batch)):
        np.testing.assert_allclose(chol[0], [[2.0, 0.0], [1.0, np.sqrt(2.0)]], rtol=1e-12)
        assert np.isnan(chol[1][np.tril_indices(2)]).all() and chol[1][0, 1] == 0.0
    zero_diagonal = np.array([[1.0, 0.0], [1.0, 0.0]])
    for x in (la.triangular_solve(dg.constant(zero_diagonal), dg.ones((2, 1), dg.float64)),
              run_graph(la.triangular_solve, zero_diagonal, np.ones((2, 1)))):
        x = np.asarray(x)
        assert x[0, 0] == 1.0 and np.isnan(x[1, 0])
    x = dg.constant(NOT_PD)
    with dg.GradientTape() as tape:
        tape.watch(x)
        factor = la.cholesky(x)
    assert np.isnan(tape.gradient(factor, x).numpy()).all()   # TF: all NaN, never 0


def test_slogdet_and_det_of_singular_matrix_do_not_raise():
    sign, logdet = la.slogdet(SINGULAR)
    assert float(sign) == 0.0 and float(logdet) == -np.inf
    assert float(la.det(SINGULAR)) == 0.0


# -- dtypes ---------------------------------------------------------------------------------
@pytest.mark.parametrize("f", [la.inv, la.det, la.slogdet, la.cholesky, la.eigh, la.svd],
                         ids=["inv", "det", "slogdet", "cholesky", "eigh", "svd"])
def test_integer_input_is_rejected_in_both_modes(f):
    with pytest.raises(InvalidArgumentError):
        f(dg.constant([[1, 2], [3, 4]]))
    with dg.Graph().as_default():
        with pytest.raises(TypeError):
            f(dg.placeholder(dg.int32, [2, 2]))


def test_solve_dtype_mismatch_in_both_modes():
    a = np.eye(2)
    b = np.ones((2, 1), np.float32)
    with pytest.raises(InvalidArgumentError):
        la.solve(dg.constant(a), dg.constant(b))
    with dg.Graph().as_default():
        with pytest.raises(TypeError):
            la.solve(dg.placeholder(dg.float64, [2, 2]), dg.placeholder(dg.float32, [2, 1]))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_output_dtypes_follow_the_input(dtype):
    a = (np.eye(3) * 2 + 0.1).astype(dtype)
    for out in [la.inv(a), la.det(a), *la.slogdet(a), la.cholesky(a), *la.eigh(a),
                *la.svd(a), la.solve(a, a), la.triangular_solve(a, a), la.norm(a)]:
        assert out.dtype == dg.as_dtype(dtype), out
    np.testing.assert_allclose(la.inv(a), np.linalg.inv(a.astype(np.float64)), rtol=1e-2)


def test_complex_forward_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(la.inv(a), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(la.det(a), np.linalg.det(a), rtol=1e-12)
    np.testing.assert_allclose(la.inv(a, adjoint=True),
                               np.conj(np.swapaxes(np.linalg.inv(a), -1, -2)))
    h = a + np.conj(np.swapaxes(a, -1, -2))
    e, v = la.eigh(h)
    assert e.dtype == dg.complex128
    v, e = np.asarray(v), np.asarray(e)
    np.testing.assert_allclose(h @ v, v * e[..., None, :], atol=1e-10)
    s, u, w = la.svd(a)
    assert s.dtype == dg.float64
    np.testing.assert_allclose((np.asarray(u) * np.asarray(s)[..., None, :])
                               @ np.conj(np.swapaxes(np.asarray(w), -1, -2)), a, atol=1e-10)


# -- static shapes -----------------------------------------------------------------------------
def test_static_shapes_with_unknown_dims():
    with dg.Graph().as_default():
        a = dg.placeholder(dg.float64, [None, None, 3])
        assert la.inv(a).shape.as_list() == [None, 3, 3]
        assert la.det(a).shape.as_list() == [None]
        assert [t.shape.as_list() for t in la.slogdet(a)] == [[None], [None]]
        e, v = la.eigh(a)
        assert e.shape.as_list() == [None, 3] and v.shape.as_list() == [None, 3, 3]
        rhs = dg.placeholder(dg.float64, [2, None, None])
        assert la.solve(a, rhs).shape.as_list() == [2, 3, None]
        assert la.triangular_solve(a, dg.placeholder(dg.float64, [3, 4])).shape.as_list() == \
            [None, 3, 4]
        wide = dg.placeholder(dg.float64, [5, 2, 4])
        s, u, w = la.svd(wide)
        assert (s.shape.as_list(), u.shape.as_list(), w.shape.as_list()) == \
            ([5, 2], [5, 2, 2], [5, 4, 2])
        s, u, w = la.svd(wide, full_matrices=True)
        assert (u.shape.as_list(), w.shape.as_list()) == ([5, 2, 2], [5, 4, 4])
        assert la.svd(dg.placeholder(dg.float64, [None, 4]), compute_uv=False).shape.as_list() \
            == [None]
        assert la.diag_part(wide).shape.as_list() == [5, 2]
        assert la.trace(wide).shape.as_list() == [5]
        assert la.tensor_diag(dg.placeholder(dg.float64, [2, None])).shape.as_list() == \
            [2, None, 2, None]
        assert la.tensor_diag_part(dg.placeholder(dg.float64, [2, None, None, 3])).shape \
            .as_list() == [2, 3]
        assert la.matvec(wide, dg.placeholder(dg.float64, [None])).shape.as_list() == [5, 2]
        unknown = dg.placeholder(dg.float64)
        assert la.inv(unknown).shape.rank is None
        assert la.svd(unknown)[0].shape.rank is None


@pytest.mark.parametrize("f,shapes", [
    (la.inv, [[2, 3]]), (la.det, [[3]]), (la.cholesky, [[2, 2, 3]]), (la.eigh, [[4, 3]]),
    (la.solve, [[3, 3], [2, 1]]), (la.solve, [[2, 3, 3], [3, 3, 1]]),
    (la.triangular_solve, [[3, 3], [4, 1]]), (la.tensor_diag_part, [[2, 3]]),
    (la.diag_part, [[3]]),
], ids=["inv", "det_rank1", "cholesky", "eigh", "solve_rows", "solve_batch", "trisolve",
        "tensor_diag_part", "diag_part_rank1"])
def test_bad_static_shapes_raise_value_error_at_graph_construction(f, shapes):
    with dg.Graph().as_default():
        with pytest.raises(ValueError):
            f(*[dg.placeholder(dg.float64, s) for s in shapes])


def test_bad_runtime_shapes_raise_invalid_argument():
    with pytest.raises(InvalidArgumentError, match="MatrixInverse"):
        la.inv(np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="MatrixSolve"):
        run_graph(la.solve, np.eye(3), np.ones((2, 1)), unknown_dims=True)




# -- values and conventions ----------------------------------------------------------------------
def test_svd_returns_s_u_v_in_tensorflow_order_with_v_not_transposed():
    a = np.random.default_rng(3).standard_normal((2, 4, 3))
    s, u, v = la.svd(a)
    recon = (np.asarray(u) * np.asarray(s)[..., None, :]) @ np.swapaxes(np.asarray(v), -1, -2)
    np.testing.assert_allclose(recon, a, atol=1e-12)
    only_s = la.svd(a, compute_uv=False)
    assert not isinstance(only_s, (list, tuple))
    np.testing.assert_allclose(only_s, s, rtol=1e-12)


def test_slogdet_sign_of_negative_determinant_batched():
    a = np.stack([np.diag([2.0, -3.0]), np.diag([2.0, 3.0])])
    sign, logdet = la.slogdet(a)
    np.testing.assert_array_equal(sign, [-1.0, 1.0])
    np.testing.assert_allclose(logdet, np.log([6.0, 6.0]))


def test_eigh_gradient_of_eigenvalue_sum_is_identity():
    a = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, -1.0]])
    grad = _eager_grad(lambda t: dg.reduce_sum(la.eigh(t)[0]), a)
    np.testing.assert_allclose(grad, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(_graph_grad(lambda t: dg.reduce_sum(la.eigvalsh(t)), a)[0],
                               np.eye(3), atol=1e-12)


def test_triangular_solve_ignores_the_other_triangle():
    a = np.array([[2.0, 100.0], [1.0, 4.0]])
    b = np.array([[2.0], [5.0]])
    np.testing.assert_allclose(la.triangular_solve(a, b), [[1.0], [1.0]])
    grad = _eager_grad(lambda t: dg.reduce_sum(la.triangular_solve(t, b)), a)
    assert grad[0, 1] == 0.0


def test_svd_gradient_limits_follow_tensorflow():
    a = np.random.default_rng(0).standard_normal((2, 5))
    with pytest.raises(NotImplementedError):
        _eager_grad(lambda t: dg.reduce_sum(la.svd(t, full_matrices=True)[1]), a)
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float64, [None, None])
        with pytest.raises(NotImplementedError):
            dg.gradients(dg.reduce_sum(la.svd(p)[0]), p)
        # compute_uv=False needs no static shape.
        grad = dg.gradients(dg.reduce_sum(la.svd(p, compute_uv=False)), p)[0]
        with dg.Session(graph=g) as sess:
            value = sess.run(grad, {p: a})
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(value, u @ vh, atol=1e-12)


def test_hessian_of_log_det_in_graph_mode():
    """d2 log det(A) / dA2 [E] = -A^-T E^T A^-T, checked through dg.hessians."""
    a = np.array([[3.0, 1.0], [0.5, 2.0]])
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float64, [2, 2])
        hess = dg.hessians(la.slogdet(p)[1], p)[0]
        with dg.Session(graph=g) as sess:
            value = sess.run(hess, {p: a})
    ainv = np.linalg.inv(a)
    expected = -np.einsum("li,jk->ijkl", ainv, ainv)
    np.testing.assert_allclose(value, expected, atol=1e-12)
