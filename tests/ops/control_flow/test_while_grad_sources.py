"""A while_loop's gradient builds only what the gradients() call asks for: the
outer values not between the ys and the xs (the input sequence, when only the
weights are sources) are skipped; every requested gradient is the same as the
Python loop's, whichever subset of sources is asked for."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def _loss(x, w, h, steps, body):
    for t in range(steps):
        h = body(x[t], h, w)
    return dg.reduce_sum(h * h)


def _cell(x_t, h, w):
    return dg.tanh(dg.matmul(dg.concat([x_t, h], 1), w))


def _graph_loss(x, w, h0):
    steps = dg.shape(x)[0]
    _, h = dg.while_loop(lambda t, h: t < steps, lambda t, h: (t + 1, _cell(x[t], h, w)),
                         (dg.constant(0), h0))
    return dg.reduce_sum(h * h)


@pytest.mark.parametrize("sources", [("w",), ("x",), ("h0",), ("w", "x", "h0"), ("x", "w")])
def test_each_subset_of_sources_gets_the_python_loops_gradients(sources):
    rng = np.random.default_rng(0)
    values = {"x": rng.standard_normal((6, 3, 2)), "w": rng.standard_normal((5, 3)) * 0.5,
              "h0": rng.standard_normal((3, 3))}
    eager = {k: dg.constant(v) for k, v in values.items()}
    with dg.GradientTape() as tape:
        tape.watch(list(eager.values()))
        loss = _loss(eager["x"], eager["w"], eager["h0"], 6, _cell)
    want = tape.gradient(loss, [eager[k] for k in sources])

    @dg.function
    def tape_grads(x, w, h0):
        named = {"x": x, "w": w, "h0": h0}
        with dg.GradientTape() as tape:
            tape.watch([named[k] for k in sources])
            loss = _graph_loss(x, w, h0)
        return tape.gradient(loss, [named[k] for k in sources])
    got = tape_grads(*(eager[k] for k in ("x", "w", "h0")))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)

    graph = dg.Graph()
    with graph.as_default():
        holders = {k: dg.compat.v1.placeholder(dg.float64, v.shape) for k, v in values.items()}
        loss = _graph_loss(holders["x"], holders["w"], holders["h0"])
        grads = dg.gradients(loss, [holders[k] for k in sources])
        with dg.Session(graph=graph) as session:
            got = session.run(grads, {holders[k]: v for k, v in values.items()})
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def _calls_in_backward_loops(graph):
    """The functions the backward loops' bodies call, with the body functions."""
    found = []
    for op in graph.get_operations():
        if op.type in ("While", "StatelessWhile") and op.name.endswith("while_grad"):
            body = op.get_attr("body")
            for inner in body.graph.get_operations():
                if inner.type in ("PartitionedCall", "StatefulPartitionedCall"):
                    found.append(inner.get_attr("f"))
    return found


def test_the_backward_loop_passes_only_the_forward_values_its_gradient_reads():
    # x[t] packs its begin/end per iteration (accumulated for x's gradient); with only
    # w as a source, the backward body neither gathers nor passes them
    rng = np.random.default_rng(1)
    x, w, h0 = rng.standard_normal((5, 3, 2)), rng.standard_normal((5, 3)), np.zeros((3, 3))
    graph = dg.Graph()
    with graph.as_default():
        xs = dg.compat.v1.placeholder(dg.float64, x.shape)
        ws = dg.compat.v1.placeholder(dg.float64, w.shape)
        loss = _graph_loss(xs, ws, dg.constant(h0))
        (grad_w,) = dg.gradients(loss, [ws])
        calls = _calls_in_backward_loops(graph)
        assert calls
        for fn in calls:
            assert fn.used_inputs() == tuple(range(len(fn.inputs)))
        with dg.compat.v1.Session(graph=graph) as session:
            got = session.run(grad_w, {xs: x, ws: w})
    eager_w = dg.constant(w)
    with dg.GradientTape() as tape:
        tape.watch(eager_w)
        want = tape.gradient(_loss(dg.constant(x), eager_w, dg.constant(h0), 5, _cell), eager_w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _nested_cell(x_t, h, w):
    def inner(k, acc):
        return k + 1, acc + dg.sin(acc * w + x_t[k])
    _, s = dg.while_loop(lambda k, acc: k < 3, inner, (dg.constant(0), h))
    return dg.tanh(s * w)


def _nested_graph_loss(x, w):
    _, h = dg.while_loop(lambda t, h: t < 4, lambda t, h: (t + 1, _nested_cell(x[t], h, w)),
                         (dg.constant(0), dg.constant(0.1, dg.float64)), maximum_iterations=10)
    return h * h


def _nested_eager_loss(x, w):
    h = dg.constant(0.1, dg.float64)
    for t in range(4):
        acc = h
        for k in range(3):
            acc = acc + dg.sin(acc * w + x[t][k])
        h = dg.tanh(acc * w)
    return h * h


def _second_order(loss, x, w):
    with dg.GradientTape() as outer:
        outer.watch(w)
        with dg.GradientTape() as inner:
            inner.watch(w)
            y = loss(x, w)
        g = inner.gradient(y, w)
    return y, g, outer.gradient(g, w)


def test_second_order_through_nested_loops_with_pruned_backward_inputs():
    x = dg.constant(np.random.default_rng(3).standard_normal((4, 3)))
    want = _second_order(_nested_eager_loss, x, dg.constant(0.7, dg.float64))
    run = dg.function(lambda x, w: _second_order(_nested_graph_loss, x, w))
    got = run(x, dg.constant(0.7, dg.float64))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(float(g), float(w), rtol=1e-10)
    # the second derivative against central differences of the first
    step = 1e-5
    slope = (float(run(x, dg.constant(0.7 + step, dg.float64))[1])
             - float(run(x, dg.constant(0.7 - step, dg.float64))[1])) / (2 * step)
    np.testing.assert_allclose(float(got[2]), slope, rtol=1e-5)
