"""Runs one scalar function of one float64 tensor in eager mode, inside dg.function
and in a graph; returns value, gradient and a Hessian-vector product for each,
plus central differences, so control-flow tests compare all of them."""
from __future__ import annotations

from typing import Callable, Dict, Tuple

import numpy as np

import duograd as dg


def eager_run(fn: Callable, xv: np.ndarray, v: np.ndarray) -> Tuple:
    x = dg.constant(xv)
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        g = inner.gradient(y, x)
        gv = dg.reduce_sum(g * dg.constant(v))
    h = outer.gradient(gv, x, unconnected_gradients="zero")
    return y.numpy(), g.numpy(), h.numpy()


def graph_run(fn: Callable, xv: np.ndarray, v: np.ndarray) -> Tuple:
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float64, xv.shape)
        y = fn(x)
        (g,) = dg.gradients(y, x)
        (h,) = dg.gradients(dg.reduce_sum(g * dg.constant(v)), x, unconnected_gradients="zero")
        with dg.Session() as sess:
            return tuple(sess.run([y, g, h], {x: xv}))


def function_graph_run(fn: Callable, xv: np.ndarray, v: np.ndarray) -> Tuple:
    """dg.gradients inside a dg.function body."""
    @dg.function
    def body(x):
        y = fn(x)
        (g,) = dg.gradients(y, x)
        (h,) = dg.gradients(dg.reduce_sum(g * dg.constant(v)), x, unconnected_gradients="zero")
        return y, g, h
    return tuple(t.numpy() for t in body(dg.constant(xv)))


def central_difference(fn: Callable, xv: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    flat = xv.reshape(-1)
    out = np.zeros_like(flat)
    for i in range(flat.size):
        e = np.zeros_like(flat)
        e[i] = eps
        plus = fn(dg.constant((flat + e).reshape(xv.shape))).numpy()
        minus = fn(dg.constant((flat - e).reshape(xv.shape))).numpy()
        out[i] = (plus - minus) / (2 * eps)
    return out.reshape(xv.shape)


def all_modes(fn: Callable, xv: np.ndarray, seed: int = 0) -> Dict[str, Tuple]:
    """{mode: (value, gradient, Hessian @ v)} for eager, function (tape), graph,
    and dg.gradients inside a function; checked against central differences."""
    v = np.random.default_rng(seed).standard_normal(xv.shape)
    results = {
        "eager": eager_run(fn, xv, v),
        "function": eager_run(dg.function(fn), xv, v),
        "graph": graph_run(fn, xv, v),
        "function_graph": function_graph_run(fn, xv, v),
    }
    ref = results["eager"]
    for mode, got in results.items():
        for a, b in zip(got, ref):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=mode)
    np.testing.assert_allclose(ref[1], central_difference(fn, xv), rtol=1e-5, atol=1e-7)
    grad_fn = lambda x: _grad_dot(fn, x, v)  # noqa: E731
    np.testing.assert_allclose(ref[2], central_difference(grad_fn, xv), rtol=1e-5, atol=1e-6)
    return results


def _grad_dot(fn: Callable, x, v: np.ndarray):
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return dg.reduce_sum(tape.gradient(y, x) * dg.constant(v))
