"""dg.hessians, dg.hessian_vector_product (graph mode) against closed forms and tapes."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


@pytest.mark.parametrize("shape", [(), (3,), (2, 2)])
def test_hessians_shape_and_value(shape):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal(shape)
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float64, shape)
        y = dg.reduce_sum(x * x * x) + dg.reduce_sum(x) ** 2
        (h,) = dg.hessians(y, x)
        assert h.shape == list(shape) * 2
        with dg.Session() as sess:
            value = sess.run(h, {x: xv})
    n = int(np.prod(shape))
    expected = (np.diag(6 * xv.reshape(-1)) + 2 * np.ones((n, n))).reshape(shape * 2)
    np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_hessians_match_gradient_tape_hessian():
    rng = np.random.default_rng(1)
    xv, wv = rng.standard_normal(3), rng.standard_normal((3, 2))

    def f(x, w):
        return dg.reduce_sum(dg.tanh(dg.matmul(dg.reshape(x, [1, 3]), w)) ** 2)
    x, w = dg.constant(xv), dg.constant(wv)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = f(x, w)
    eager = [h.numpy() for h in tape.hessian(y, [x, w])]
    g = dg.Graph()
    with g.as_default():
        xp, wp = dg.placeholder(dg.float64, [3]), dg.placeholder(dg.float64, [3, 2])
        hs = dg.hessians(f(xp, wp), [xp, wp], name="hess")
        assert any(op.name.startswith("hess") for op in g.get_operations())
        with dg.Session() as sess:
            graph = sess.run(hs, {xp: xv, wp: wv})
    for e, gr in zip(eager, graph):
        np.testing.assert_allclose(gr, e, rtol=1e-10, atol=1e-12)


def test_hessians_of_unconnected_x_are_value_errors_as_tf():
    """TF 2.21: ValueError("None values not supported.") when ys, or its gradient, does
    not depend on x (e.g. hessians(x, x) of a (10, 10) placeholder)."""
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([1.0, 2.0])
        u = dg.constant([3.0])
        with pytest.raises(ValueError, match="None values not supported"):
            dg.hessians(dg.reduce_sum(x * x), u)
        p = dg.placeholder(dg.float32, (10, 10))
        with pytest.raises(ValueError, match="None values not supported"):
            dg.hessians(p, p)
        with pytest.raises(ValueError):
            q = dg.placeholder(dg.float32, None)
            dg.hessians(q, q)


def test_graph_hessian_vector_product_seed_example():
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float64, [2, 1])
        v = dg.constant([[0.5], [2.0]], dg.float64)
        y = 0.5 * dg.reduce_sum(x * dg.matmul(dg.constant(a), x))
        (hv,) = dg.hessian_vector_product(y, [x], [v])
        with pytest.raises(ValueError, match="xs and v must have the same length."):
            dg.hessian_vector_product(y, [x], [v, v])
        with dg.Session() as sess:
            value = sess.run(hv, {x: [[1.0], [-1.0]]})
    np.testing.assert_allclose(value, 0.5 * (a + a.T) @ [[0.5], [2.0]])


def test_hessians_inside_eager_raise_pointing_to_alternatives():
    with pytest.raises(RuntimeError, match="nested GradientTapes"):
        dg.hessians(dg.constant(1.0), dg.constant(1.0))
