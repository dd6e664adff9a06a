"""dg.cond: eager, graph and dg.function agree in values and gradients (to order 2)."""
import numpy as np
import pytest

import duograd as dg
from cf_check import all_modes

X = np.array([0.3, -0.7, 1.2])


def branchy(x):
    return dg.reduce_sum(dg.cond(dg.reduce_sum(x) > 0,
                                 lambda: dg.sin(x) * x,
                                 lambda: dg.exp(x) * 2.0))


@pytest.mark.parametrize("xv", [X, -X])
def test_cond_values_and_gradients_all_modes(xv):
    all_modes(branchy, xv)


def test_cond_captured_value_gradient_and_nested_structure():
    w = dg.constant(np.array([1.5, -2.0, 0.5]))

    def f(x):
        out = dg.cond(x[0] > 0.0, lambda: {"a": x * w, "b": (w, x)},
                      lambda: {"a": x + w, "b": (w * w, x * 3.0)})
        return dg.reduce_sum(out["a"] * out["b"][0] + out["b"][1])

    for xv in (X, -X):
        all_modes(f, xv)
        x = dg.constant(xv)
        with dg.GradientTape() as tape:
            tape.watch(w)
            y = dg.function(f)(x)
        gw = tape.gradient(y, w)
        with dg.GradientTape() as tape:
            tape.watch(w)
            y2 = f(x)
        np.testing.assert_allclose(gw.numpy(), tape.gradient(y2, w).numpy())


def test_cond_branch_reading_only_one_input_gets_zero_gradient():
    def f(x):
        a, b = x[0], x[1]
        return dg.cond(a > b, lambda: a * a, lambda: dg.constant(2.0, dg.float64) * b)
    for xv in (np.array([2.0, 1.0]), np.array([1.0, 2.0])):
        all_modes(f, xv)


def test_cond_is_one_op_in_a_graph_and_traces_each_branch_once():
    calls = []
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float32, [2])
        out = dg.cond(dg.reduce_sum(x) > 0, lambda: calls.append("t") or x * 2.0,
                      lambda: calls.append("f") or x - 1.0)
        assert [op.type for op in graph.get_operations()].count("StatelessIf") == 1  # TF: stateless branches
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(out, {x: [1.0, 2.0]}), [2.0, 4.0])
            np.testing.assert_allclose(sess.run(out, {x: [-1.0, -2.0]}), [-2.0, -3.0])
    assert calls == ["t", "f"]


def test_eager_cond_runs_only_the_taken_branch():
    calls = []
    out = dg.cond(dg.constant(True), lambda: calls.append("t") or dg.constant(1.0),
                  lambda: calls.append("f") or dg.constant(2.0))
    assert out.numpy() == 1.0 and calls == ["t"]


def test_cond_errors():
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float32, [2])
        p = dg.reduce_sum(x) > 0
        # TF 2.21 raises TypeError for a structure or dtype mismatch of the branches.
        with pytest.raises(TypeError, match="same number, type, and overall structure"):
            dg.cond(p, lambda: (x, x), lambda: x)
        with pytest.raises(TypeError, match="different types"):
            dg.cond(p, lambda: x, lambda: dg.cast(x, dg.int32))
        # Branch shapes may differ (TF 2.21: shape (None,), values of the branch taken).
        ragged = dg.cond(p, lambda: x, lambda: dg.concat([x, x], 0))
        assert ragged.shape.as_list() == [None]
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(ragged, {x: [-1.0, -2.0]}), [-1, -2, -1, -2])
            np.testing.assert_allclose(sess.run(ragged, {x: [1.0, 2.0]}), [1, 2])
        with pytest.raises(TypeError, match="bool"):
            dg.cond(dg.reduce_sum(x), lambda: x, lambda: x)
        with pytest.raises(TypeError, match="callable"):
            dg.cond(p, x, lambda: x)
        # compatible shapes relax to the most specific common shape
        y = dg.placeholder(dg.float32, [None])
        assert dg.cond(p, lambda: x, lambda: y).shape.as_list() == [None]
