"""Vectorized (pfor) jacobian, batch_jacobian, hessian and dg.hessians against
the per-row loop versions and central differences."""
import numpy as np
import pytest

import duograd as dg
from duograd.ops import gradients_impl

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 4))


def _fd_jacobian(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    y0 = np.asarray(f(x))
    jac = np.zeros(y0.shape + x.shape)
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        jac[(Ellipsis,) + idx] = (np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps)
    return jac


# target functions of one source, by (target rank, source rank)
FUNCS = {
    "scalar_of_vector": (lambda x: dg.reduce_sum(dg.tanh(x) ** 2), (4,)),
    "vector_of_vector": (lambda x: dg.tanh(dg.linalg.matvec(dg.constant(A), x)) * x[:3], (4,)),
    "matrix_of_matrix": (lambda x: dg.matmul(x, dg.transpose(x)) + dg.sin(x)[:, :2], (2, 3)),
    "vector_of_scalar": (lambda x: dg.stack([x * x, dg.exp(x), x]), ()),
    "scalar_of_scalar": (lambda x: dg.sin(x) * x, ()),
    "gather_slices": (lambda x: dg.gather(x, [0, 2, 2]) * 3.0, (4,)),
    "cumsum": (lambda x: dg.cumsum(x * x, axis=0), (4,)),
    "fallback_op": (lambda x: dg.linalg.tensor_diag(x * x) * 2.0, (3,)),  # no Diag/DiagPart rules
    "reduce_axes": (lambda x: dg.reduce_max(x, axis=1) + dg.reduce_mean(x * x, axis=0)[:2],
                    (2, 3)),
}


@pytest.mark.parametrize("case", sorted(FUNCS))
def test_jacobian_pfor_equals_loop_and_fd(case):
    fn, shape = FUNCS[case]
    xv = RNG.standard_normal(shape)
    x = dg.constant(xv)
    results = []
    for pfor in (True, False):
        with dg.GradientTape(persistent=not pfor) as tape:  # TF: the loop needs a persistent tape
            tape.watch(x)
            y = fn(x)
        results.append(tape.jacobian(y, x, experimental_use_pfor=pfor).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-13)
    want = _fd_jacobian(lambda v: fn(dg.constant(v)).numpy(), xv)
    np.testing.assert_allclose(results[0], want, rtol=1e-6, atol=1e-7)
    assert results[0].shape == tuple(y.shape.as_list()) + shape


def test_multiple_and_unconnected_sources():
    x = dg.constant(RNG.standard_normal(3))
    z, u = dg.constant(np.float64(2.0)), dg.constant(np.ones(2))
    v = dg.Variable(RNG.standard_normal((2, 3)))
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, z, u])
        y = dg.linalg.matvec(v, x) * z
    jx, jz, ju, jv = tape.jacobian(y, [x, z, u, v])
    assert ju is None
    np.testing.assert_allclose(jx.numpy(), v.numpy() * 2.0, rtol=1e-12)
    np.testing.assert_allclose(jz.numpy(), v.numpy() @ x.numpy(), rtol=1e-12)
    want_v = np.zeros((2, 2, 3))
    for i in range(2):
        want_v[i, i] = x.numpy() * 2.0
    np.testing.assert_allclose(jv.numpy(), want_v, rtol=1e-12)
    zeros = tape.jacobian(y, {"u": u}, unconnected_gradients="zero")
    np.testing.assert_array_equal(zeros["u"].numpy(), np.zeros((2, 2)))


def test_jacobian_in_function_and_recording_tape():
    fn, _ = FUNCS["vector_of_vector"]

    @dg.function
    def jac(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.jacobian(y, x)

    xv = RNG.standard_normal(4)
    want = _fd_jacobian(lambda v: fn(dg.constant(v)).numpy(), xv)
    np.testing.assert_allclose(jac(dg.constant(xv)).numpy(), want, rtol=1e-6, atol=1e-7)
    x = dg.constant(xv)
    with dg.GradientTape(persistent=True) as outer:  # the vectorized jacobian is itself differentiable
        outer.watch(x)
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(dg.tanh(x) ** 3)
        g = tape.jacobian(y, x)
    h = outer.jacobian(g, x, experimental_use_pfor=False).numpy()
    t = np.tanh(xv)
    np.testing.assert_allclose(h, np.diag(3 * (1 - t * t) * (2 * t - 4 * t ** 3)), atol=1e-12)


@pytest.mark.parametrize("tshape, sshape", [((3, 2), (3, 4)), ((3, 1), (3, 2, 2)), ((2, 2, 2), (2, 3))])
def test_batch_jacobian_pfor_equals_loop(tshape, sshape):
    xv = RNG.standard_normal(sshape)
    w = RNG.standard_normal((int(np.prod(sshape[1:])), int(np.prod(tshape[1:]))))
    results = []
    for pfor in (True, False):
        x = dg.constant(xv)
        with dg.GradientTape(persistent=not pfor) as tape:
            tape.watch(x)
            flat = dg.reshape(x, [sshape[0], -1])
            y = dg.reshape(dg.tanh(dg.matmul(flat, dg.constant(w))) * dg.reduce_sum(flat), tshape)
        results.append(tape.batch_jacobian(y, x, experimental_use_pfor=pfor).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-13)
    assert results[0].shape == tshape + sshape[1:]


def test_batch_jacobian_unconnected():
    x, u = dg.constant(np.ones((2, 3))), dg.constant(np.ones((2, 2)))
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    assert tape.batch_jacobian(y, u) is None
    zeros = tape.batch_jacobian(y, u, unconnected_gradients=dg.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zeros.numpy(), np.zeros((2, 3, 2)))


def _w3(x, a, b, n):
    col = dg.reshape(x, [n, 1])
    return dg.reduce_sum(dg.square(dg.tanh(dg.matmul(a, col)))) + \
        dg.reduce_sum(col * dg.matmul(b, col)) * 0.5


def _w3_closed_form(a, b, x):
    t = np.tanh(a @ x)
    h = 2 * (1 - t * t) * (1 - 3 * t * t)
    return a.T @ (h[:, None] * a) + b


def test_tape_hessian_equals_nested_tapes_and_closed_form():
    n = 6
    a, m = RNG.standard_normal((n, n)), RNG.standard_normal((n, n))
    b = (m + m.T) / 2
    x = dg.constant(RNG.standard_normal(n))
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        f = _w3(x, dg.constant(a), dg.constant(b), n)
        inside = tape.hessian(f, x).numpy()  # callable while recording
    after = tape.hessian(f, x).numpy()
    with dg.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            f2 = _w3(x, dg.constant(a), dg.constant(b), n)
        g = inner.gradient(f2, x)
    nested = outer.jacobian(g, x, experimental_use_pfor=False).numpy()
    want = _w3_closed_form(a, b, x.numpy())
    for got in (inside, after, nested):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_tape_hessian_matrix_source_and_unconnected():
    x, u = dg.constant(RNG.standard_normal((2, 3))), dg.constant(np.float64(1.0))
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        f = dg.reduce_sum(dg.sin(x) * x)
    hx, hu = tape.hessian(f, [x, u])
    xv = x.numpy().reshape(-1)
    want = np.diag(2 * np.cos(xv) - xv * np.sin(xv)).reshape(2, 3, 2, 3)
    np.testing.assert_allclose(hx.numpy(), want, atol=1e-12)
    np.testing.assert_array_equal(hu.numpy(), 0.0)
    with pytest.raises(RuntimeError, match="persistent"):
        with dg.GradientTape() as plain:
            plain.watch(x)
            f = dg.reduce_sum(x)
        plain.hessian(f, x)


@pytest.mark.parametrize("shape", [(5,), (2, 3), ()])
def test_graph_hessians_pfor_equals_rows(shape, monkeypatch):
    xv = RNG.standard_normal(shape)
    results = []
    for pfor in (True, False):
        monkeypatch.setattr(gradients_impl, "USE_PFOR", pfor)
        graph = dg.Graph()
        with graph.as_default():
            x = dg.placeholder(dg.float64, shape)
            y = dg.reduce_sum(dg.tanh(x) ** 2 * dg.reduce_sum(x)) + dg.reduce_prod(dg.cos(x))
            (h,) = dg.hessians(y, x)
            with dg.Session() as sess:
                results.append(sess.run(h, {x: xv}))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-12)
    assert results[0].shape == shape * 2

    @dg.function
    def in_function(x):
        return dg.hessians(dg.reduce_sum(dg.tanh(x) ** 2 * dg.reduce_sum(x)) +
                           dg.reduce_prod(dg.cos(x)), x)[0]

    np.testing.assert_allclose(in_function(dg.constant(xv)).numpy(), results[1], rtol=1e-12,
                               atol=1e-12)


def test_graph_hessians_w3():
    n = 5
    a, m = RNG.standard_normal((n, n)), RNG.standard_normal((n, n))
    b = (m + m.T) / 2
    xv = RNG.standard_normal(n)
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float64, [n])
        (h,) = dg.hessians(_w3(x, dg.constant(a), dg.constant(b), n), x)
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(h, {x: xv}), _w3_closed_form(a, b, xv),
                                       rtol=1e-12, atol=1e-12)


def test_jacobian_of_a_source_itself_and_gated_hessians():
    x = dg.constant(RNG.standard_normal((2, 2)))
    with dg.GradientTape() as tape:
        tape.watch(x)
    np.testing.assert_array_equal(tape.jacobian(x, x).numpy(), np.eye(4).reshape(2, 2, 2, 2))
    graph = dg.Graph()
    xv = RNG.standard_normal(3)
    with graph.as_default():
        p = dg.placeholder(dg.float64, [3])
        (h,) = dg.hessians(dg.reduce_sum(dg.sin(p) * p), p, gate_gradients=True)
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(h, {p: xv}),
                                       np.diag(2 * np.cos(xv) - xv * np.sin(xv)), atol=1e-12)
