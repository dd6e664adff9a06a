"""dg.recompute_grad: the same gradients as plain f, without keeping f's activations."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import duograd as dg

MODES = ["eager", "graph"]
RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
W1 = RNG.standard_normal((5, 6))
W2 = RNG.standard_normal((6, 5))


def block(x, w1, w2, scale=None):
    h = dg.tanh(dg.matmul(x, w1))
    out = dg.sin(dg.matmul(h, w2)) * x
    return out * scale if scale is not None else out


def _loss(fn, ts, n_positional, names):
    kwargs = dict(zip(names, ts[n_positional:]))
    return dg.reduce_sum(dg.square(fn(*ts[:n_positional], **kwargs)))


def grads(mode, fn, values, kwargs=None):
    kwargs = kwargs or {}
    names = list(kwargs)
    if mode == "eager":
        ts = [dg.constant(v) for v in list(values) + [kwargs[k] for k in names]]
        with dg.GradientTape() as tape:
            tape.watch(ts)
            y = _loss(fn, ts, len(values), names)
        return [np.asarray(g) for g in tape.gradient(y, ts)]
    g = dg.Graph()
    with g.as_default():
        ts = [dg.constant(v) for v in list(values) + [kwargs[k] for k in names]]
        y = _loss(fn, ts, len(values), names)
        with dg.Session(graph=g) as sess:
            return sess.run(dg.gradients(y, ts))


@pytest.mark.parametrize("mode", MODES)
def test_gradients_equal_plain_ones(mode):
    plain = grads(mode, block, [X, W1, W2])
    again = grads(mode, dg.recompute_grad(block), [X, W1, W2])
    for p, r in zip(plain, again):
        np.testing.assert_allclose(r, p, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_keyword_tensor_gets_its_gradient(mode):
    kwargs = {"scale": np.array(1.7)}
    plain = grads(mode, block, [X, W1, W2], kwargs)
    again = grads(mode, dg.recompute_grad(block), [X, W1, W2], kwargs)
    assert len(again) == 4
    for p, r in zip(plain, again):
        np.testing.assert_allclose(r, p, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_variables_read_inside_get_gradients(mode):
    def run(recompute):
        g = None if mode == "eager" else dg.Graph()
        ctx = g.as_default() if g is not None else _null()
        with ctx:
            w = dg.Variable(W1)

            def f(x):
                return dg.tanh(dg.matmul(x, w))
            f2 = dg.recompute_grad(f) if recompute else f
            x = dg.constant(X)
            if g is None:
                with dg.GradientTape() as tape:
                    tape.watch(x)
                    y = dg.reduce_sum(f2(x) ** 2)
                return [np.asarray(t) for t in tape.gradient(y, [x, w])]
            y = dg.reduce_sum(f2(x) ** 2)
            out = dg.gradients(y, [x, w])
            with dg.Session(graph=g) as sess:
                sess.run(dg.global_variables_initializer())
                return sess.run(out)
    for p, r in zip(run(False), run(True)):
        np.testing.assert_allclose(r, p, rtol=1e-12, atol=1e-12)


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


def test_eager_forward_activations_are_not_kept():
    kept = []

    def f(x):
        h = dg.tanh(x * 2.0)
        kept.append(weakref.ref(h))
        return dg.sin(h)

    x = dg.constant(X)
    for fn, alive in ((f, True), (dg.recompute_grad(f), False)):
        kept.clear()
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(fn(x))
            gc.collect()
            assert (kept[0]() is not None) == alive
        tape.gradient(y, x)


def test_graph_gradient_does_not_read_forward_activations():
    def f(x):
        return dg.sin(dg.tanh(x * 2.0))

    for fn, used in ((f, True), (dg.recompute_grad(f), False)):
        g = dg.Graph()
        with g.as_default():
            x = dg.constant(X)
            y = dg.reduce_sum(fn(x))
            forward = set(g.get_operations())
            dg.gradients(y, x)
            tanh = [op for op in forward if op.type == "Tanh"][0]
            readers = {op for op in tanh.outputs[0].consumers() if op not in forward}
            assert bool(readers) == used


def test_eager_second_order_equals_plain():
    def f(x):
        return dg.sin(x) * dg.exp(x)

    def second(fn):
        x = dg.constant(np.array([0.3, -1.2]))
        with dg.GradientTape() as outer:
            outer.watch(x)
            with dg.GradientTape() as inner:
                inner.watch(x)
                y = dg.reduce_sum(fn(x))
            dx = inner.gradient(y, x)
        return np.asarray(outer.gradient(dx, x))

    np.testing.assert_allclose(second(dg.recompute_grad(f)), second(f), rtol=1e-12)


def test_nested_structure_output_and_wraps():
    def pair(x):
        """Two outputs."""
        return dg.sin(x), dg.cos(x)

    fn = dg.recompute_grad(pair)
    assert fn.__name__ == "pair" and fn.__doc__ == "Two outputs."
    x = dg.constant(np.array([0.5, 1.5]))
    with dg.GradientTape() as tape:
        tape.watch(x)
        a, b = fn(x)
        y = dg.reduce_sum(a * 2.0 + b)
    np.testing.assert_allclose(tape.gradient(y, x), 2 * np.cos([0.5, 1.5]) - np.sin([0.5, 1.5]),
                               rtol=1e-12)


def test_forward_mode_through_recompute_grad_raises_tensorflows_error():
    """TF 2.21 refuses a JVP through recompute_grad (forwardprop_test's
    testExceptionCustomGradientRecomputeGradForward), with this message; an accumulator
    that does not watch the inputs changes nothing."""
    @dg.recompute_grad
    def f(x):
        return dg.reduce_prod(dg.tanh(x) ** 2)

    x = dg.constant([1.0])
    with pytest.raises(NotImplementedError,
                       match="^recompute_grad tried to transpose grad of f. Consider not using "
                             "recompute_grad in forward modeautodiff$"):
        with dg.autodiff.ForwardAccumulator(x, dg.constant([1.0])):
            f(x)
    with dg.autodiff.ForwardAccumulator(dg.constant(2.0), dg.constant(1.0)) as acc:
        y = f(x)
    assert acc.jvp(y) is None
    np.testing.assert_allclose(y.numpy(), np.tanh(1.0) ** 2, rtol=1e-6)
