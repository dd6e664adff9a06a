"""Numerical gradient checks in both modes (JAX-style random-direction tests).

For f: tensors -> tensor, a random cotangent u and direction v, the reverse-mode
value <grad of sum(u * f)(x), v> must equal the central difference of
sum(u * f) along v. Order 2 checks the gradient of that gradient the same way.
"""
from __future__ import annotations

from typing import Callable, List, Sequence

import numpy as np

import duograd as dg


def _random_like(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    out = rng.standard_normal(a.shape)
    if np.iscomplexobj(a):
        out = out + 1j * rng.standard_normal(a.shape)
    return out.astype(a.dtype)


def _vdot_real(a, b) -> float:
    return float(np.real(np.sum(np.conj(np.asarray(a)) * np.asarray(b))))


def scalarize(f: Callable, u: List[np.ndarray]) -> Callable:
    """x -> Re(sum(conj(u) * f(x))) as a dg scalar (f may return a list)."""
    def loss(*xs):
        ys = f(*xs)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        total = None
        for y, ui in zip(ys, u):
            if not y.dtype.is_differentiable:
                continue
            term = dg.reduce_sum(dg.math.real(dg.math.conj(dg.constant(ui)) * y)) \
                if y.dtype.is_complex else dg.reduce_sum(dg.constant(ui) * y)
            total = term if total is None else total + term
        return total
    return loss


def numeric_directional(loss_np: Callable, xs: Sequence[np.ndarray], vs: Sequence[np.ndarray],
                        eps: float) -> float:
    plus = [x + eps * v for x, v in zip(xs, vs)]
    minus = [x - eps * v for x, v in zip(xs, vs)]
    return (loss_np(plus) - loss_np(minus)) / (2 * eps)


def eager_grads(loss: Callable, xs: Sequence[np.ndarray]) -> List[np.ndarray]:
    ts = [dg.constant(x) for x in xs]
    with dg.GradientTape() as tape:
        tape.watch(ts)
        y = loss(*ts)
    grads = tape.gradient(y, ts, unconnected_gradients="zero")
    return [np.asarray(dg.convert_to_tensor(g)) for g in grads]


def graph_grads(loss: Callable, xs: Sequence[np.ndarray]) -> List[np.ndarray]:
    g = dg.Graph()
    with g.as_default():
        ps = [dg.placeholder(dg.as_dtype(x.dtype), x.shape) for x in xs]
        y = loss(*ps)
        grads = dg.gradients(y, ps, unconnected_gradients="zero")
        grads = [dg.convert_to_tensor(gr) for gr in grads]
        with dg.Session(graph=g) as sess:
            return [np.asarray(v) for v in sess.run(grads, dict(zip(ps, xs)))]


def eager_value(loss: Callable, xs: Sequence[np.ndarray]) -> float:
    return float(np.asarray(loss(*[dg.constant(x) for x in xs])))


def check_grads(f: Callable, xs: Sequence[np.ndarray], order: int = 2, eps: float = 1e-6,
                rtol: float = 2e-5, atol: float = 2e-6, seed: int = 0,
                modes: Sequence[str] = ("eager", "graph")) -> None:
    """Checks f's reverse-mode derivatives to `order` in both modes (float64 inputs)."""
    rng = np.random.default_rng(seed)
    xs = [np.asarray(x) for x in xs]
    ys = f(*[dg.constant(x) for x in xs])
    ys = ys if isinstance(ys, (list, tuple)) else [ys]
    u = [_random_like(rng, np.asarray(y)) if y.dtype.is_differentiable else None for y in ys]
    loss = scalarize(f, u)
    _check(loss, xs, order, eps, rtol, atol, rng, modes)


def _check(loss, xs, order, eps, rtol, atol, rng, modes) -> None:
    diff = [i for i, x in enumerate(xs) if x.dtype.kind in "fc"]
    vs = [_random_like(rng, x) if i in diff else np.zeros_like(x) for i, x in enumerate(xs)]
    expected = numeric_directional(lambda p: eager_value(loss, p), xs, vs, eps)
    for mode in modes:
        grads = (eager_grads if mode == "eager" else graph_grads)(loss, xs)
        got = sum(_vdot_real(grads[i], vs[i]) for i in diff)
        assert np.isclose(got, expected, rtol=rtol, atol=atol * max(1.0, abs(expected))), \
            f"{mode} mismatch at order {order}: reverse mode {got}, central difference {expected}"
    if order > 1:
        ws = [_random_like(rng, x) if i in diff else np.zeros_like(x) for i, x in enumerate(xs)]

        def grad_dot_w(*ts):
            with dg.GradientTape() as inner:
                inner.watch(ts)
                y = loss(*ts)
            grads = inner.gradient(y, list(ts), unconnected_gradients="zero")
            total = None
            for i in diff:
                g = dg.convert_to_tensor(grads[i])
                term = dg.reduce_sum(dg.math.real(dg.math.conj(dg.constant(ws[i])) * g)) \
                    if g.dtype.is_complex else dg.reduce_sum(dg.constant(ws[i]) * g)
                total = term if total is None else total + term
            return total

        _check(grad_dot_w, xs, order - 1, eps, rtol * 10, atol * 10, rng, modes)
