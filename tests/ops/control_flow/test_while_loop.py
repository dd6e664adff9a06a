"""dg.while_loop: eager / graph / dg.function agree; gradients to order 2; errors."""
import collections
import time

import numpy as np
import pytest

import duograd as dg
from cf_check import all_modes

X = np.array([0.3, -0.7])


def power_loop(x):
    _, y = dg.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, dg.sin(y) * x + y), (0, x))
    return dg.reduce_sum(y)


def test_loop_values_and_gradients_all_modes():
    all_modes(power_loop, X)


def test_loop_invariant_capture_and_maximum_iterations():
    w = dg.constant(np.array([0.5, 1.5]))

    def f(x):
        i, y = dg.while_loop(lambda i, y: i < 100, lambda i, y: (i + 1, y * w + dg.tanh(x)),
                             [0, x], maximum_iterations=3)
        return dg.reduce_sum(y * y)

    results = all_modes(f, X)
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(w)
        y = dg.function(f)(x)
    gw_function = tape.gradient(y, w).numpy()
    with dg.GradientTape() as tape:
        tape.watch(w)
        y = f(x)
    np.testing.assert_allclose(gw_function, tape.gradient(y, w).numpy(), rtol=1e-12)
    assert results["eager"][0] == pytest.approx(results["graph"][0])


def test_nested_loops_and_nested_loop_vars():
    Pair = collections.namedtuple("Pair", "a b")

    def f(x):
        def outer_body(i, state):
            _, z = dg.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, dg.sin(z) * x + z),
                                 (0, state.a))
            return i + 1, Pair(z * state.b, state.b + x)
        _, out = dg.while_loop(lambda i, s: i < 3, outer_body, (0, Pair(x, x * 0.5)))
        return dg.reduce_sum(out.a + out.b)

    all_modes(f, X)


def test_loop_that_runs_zero_times():
    def f(x):
        return dg.reduce_sum(dg.while_loop(lambda i, y: i < 0, lambda i, y: (i + 1, y * y),
                                           (0, x))[1] * 3.0)
    all_modes(f, X)


def test_ten_thousand_iterations_differentiated():
    def f(x):
        _, y = dg.while_loop(lambda i, y: i < 10000,
                             lambda i, y: (i + 1, y * 0.9999 + dg.sin(y) * 1e-4 * x), (0, x))
        return y

    x = dg.constant(np.float64(0.5))
    start = time.perf_counter()
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.function(f)(x)
    g_function = tape.gradient(y, x).numpy()
    graph = dg.Graph()
    with graph.as_default():
        xp = dg.placeholder(dg.float64, [])
        yg = f(xp)
        (gg,) = dg.gradients(yg, xp)
        with dg.Session() as sess:
            y_graph, g_graph = sess.run([yg, gg], {xp: 0.5})
    assert time.perf_counter() - start < 30
    eps = 1e-6
    fast = dg.function(f)
    fd = (fast(dg.constant(np.float64(0.5 + eps))).numpy()
          - fast(dg.constant(np.float64(0.5 - eps))).numpy()) / (2 * eps)
    np.testing.assert_allclose(g_function, fd, rtol=1e-6)
    np.testing.assert_allclose([y_graph, g_graph], [y.numpy(), g_function], rtol=1e-12)


def test_backward_accumulates_only_what_it_reads():
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float64, [3])
        _, y = dg.while_loop(lambda i, y: i < 5,
                             lambda i, y: (i + 1, dg.sin(y) * x + dg.cos(x)), (0, x))
        (loop,) = [op for op in graph.get_operations() if op.type == "StatelessWhile"]
        assert len(loop.outputs) == 3  # i, y, iteration count: nothing accumulated yet
        (g,) = dg.gradients(dg.reduce_sum(y), x)
        # Sin's gradient reads y at each iteration start, Mul's reads sin(y); x and
        # cos(x) are loop-invariant inputs or not read: two stacks, nothing else.
        accumulated = loop.get_attr("body").outputs[2:]
        assert sorted(t.op.type for t in accumulated) == ["Placeholder", "Sin"]
        assert [t.shape.as_list() for t in loop.outputs[3:]] == [[None, 3], [None, 3]]
        with dg.Session() as sess:
            sess.run(g, {x: [0.1, 0.2, 0.3]})


def test_python_side_effects_traced_once_in_graphs():
    calls = []
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float32, [])
        out = dg.while_loop(lambda i, y: i < 3, lambda i, y: calls.append(1) or (i + 1, y * 2.0),
                            (0, x))
        with dg.Session() as sess:
            assert sess.run(out[1], {x: 1.5}) == 12.0
    assert len(calls) == 1


def test_shape_errors_and_invariants():
    with pytest.raises(ValueError, match="shape_invariants"):
        dg.while_loop(lambda y: dg.size(y) < 4, lambda y: dg.concat([y, y], 0),
                      [dg.constant([1.0])])
    # eager with a relaxed invariant: the shape may change
    (y,) = dg.while_loop(lambda y: dg.size(y) < 4, lambda y: [dg.concat([y, y], 0)],
                         [dg.constant([1.0])], shape_invariants=[dg.TensorShape([None])])
    assert y.shape.as_list() == [4]
    graph = dg.Graph()
    with graph.as_default():
        z = dg.constant([1.0])
        with pytest.raises(ValueError, match="after one iteration"):
            dg.while_loop(lambda y: dg.size(y) < 4, lambda y: dg.concat([y, y], 0), [z])
        out = dg.while_loop(lambda y: dg.size(y) < 4, lambda y: [dg.concat([y, y], 0)], [z],
                            shape_invariants=[dg.TensorShape([None])])
        with dg.Session() as sess:
            assert sess.run(out[0]).shape == (4,)
        with pytest.raises(TypeError, match="dtype"):
            dg.while_loop(lambda y: dg.reduce_sum(y) < 4, lambda y: dg.cast(y, dg.int32), [z])
        with pytest.raises(ValueError, match="structure"):
            dg.while_loop(lambda a, b: dg.reduce_sum(a) < 4, lambda a, b: a, [z, z])
        with pytest.raises(TypeError, match="scalar bool"):
            dg.while_loop(lambda y: y, lambda y: y, [z])
    with pytest.raises(TypeError, match="callable"):
        dg.while_loop(None, lambda y: y, [1.0])
