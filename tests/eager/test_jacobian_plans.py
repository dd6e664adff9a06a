"""Compiled jacobian plans cached per tape structure (eager/jacobian_plans.py) and
first-order gradients replayed onto recording tapes (eager/gradient_replay.py).

Each structure is called at least three times with new values: the first call
takes the ordinary path, the second compiles a plan, the third reuses it. Every
result is checked against the Hessian/Jacobian known in closed form and against
a fresh trace (an empty cache), and the cache's counters prove the plan ran.
"""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from duograd.eager import context
from duograd.eager import jacobian_plans
from duograd.eager.jacobian_plans import JacobianPlanCache

RNG = np.random.default_rng(7)


@pytest.fixture
def cache(monkeypatch):
    """A fresh cache on this thread's context for the test."""
    fresh = JacobianPlanCache()
    monkeypatch.setattr(jacobian_plans.plans, "cache", fresh)
    return fresh


def _fresh(fn, *args):
    """fn(*args) with an empty cache: the ordinary trace-and-convert path."""
    saved = jacobian_plans.plans.cache
    jacobian_plans.plans.cache = JacobianPlanCache()
    try:
        return fn(*args)
    finally:
        jacobian_plans.plans.cache = saved


def _w3(x, a, b):
    n = x.shape[0]
    col = dg.reshape(x, [n, 1])
    quad = dg.reduce_sum(col * dg.matmul(b, col)) * 0.5
    return dg.reduce_sum(dg.square(dg.tanh(dg.matmul(a, col)))) + quad


def _w3_hessian(x, a, b):
    t = np.tanh(a @ x)
    h = 2 * (1 - t * t) * (1 - 3 * t * t)
    return a.T @ (h[:, None] * a) + (b + b.T) / 2


def _tape_hessian(f, x, *args):
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x, *args)
    return tape.hessian(y, x)


def _nested_hessian(f, x, *args):
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            y = f(x, *args)
        g = inner.gradient(y, x)
    return outer.jacobian(g, x)


def _exp_poly(x):
    return dg.reduce_sum(dg.exp(x) * x, axis=0) + dg.reduce_sum(x * x * x) / 3.0


def _exp_poly_hessian(x):
    return np.diag((2 + x) * np.exp(x) + 2 * x)


def _sin_grid(x, w):
    return dg.reduce_sum(dg.transpose(dg.sin(dg.reshape(x, [2, 3]))) * w)


def _sin_grid_hessian(x, w):
    return np.diag(-np.sin(x) * w.T.reshape(-1))


@pytest.mark.parametrize("variant", [_tape_hessian, _nested_hessian])
def test_repeated_hessians_give_new_correct_values(cache, variant):
    structures = [
        (_w3, _w3_hessian, lambda: (RNG.normal(size=5), RNG.normal(size=(4, 5)),
                                    RNG.normal(size=(5, 5)))),
        (_exp_poly, _exp_poly_hessian, lambda: (RNG.normal(size=4),)),
        (_sin_grid, _sin_grid_hessian, lambda: (RNG.normal(size=6), RNG.normal(size=(3, 2)))),
    ]
    for f, closed_form, draw in structures:
        before = cache.hits
        for _ in range(4):
            values = draw()
            x = dg.constant(values[0])
            args = [dg.constant(v) for v in values[1:]]
            h = variant(f, x, *args)
            np.testing.assert_allclose(h.numpy(), closed_form(*values), rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(h.numpy(), _fresh(variant, f, x, *args).numpy(),
                                       rtol=1e-12, atol=1e-13)
            assert h.dtype == dg.float64 and h.shape == (x.shape[0], x.shape[0])
        # calls 2-4 ran compiled plans: tape.hessian one plan of both passes; nested tapes
        # the replayed inner.gradient (recorded on the outer tape) and the jacobian plan
        plans = 1 if variant is _tape_hessian else 2
        assert cache.hits == before + 3 * plans
    assert cache.compiled == 3 * plans


def test_float_operands_are_fed_not_baked(cache):
    """A changing float multiplier (a recorded value) gives a new Jacobian each call."""
    for scale in (2.0, -3.0, 0.5, 7.0):
        x = dg.constant(np.arange(3.0))
        a = dg.constant(np.full(3, scale))
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = a * dg.sin(x)
        jac = tape.jacobian(y, x)
        np.testing.assert_allclose(jac.numpy(), np.diag(scale * np.cos(np.arange(3.0))))
    assert cache.hits == 3   # calls 2-4


def test_changed_shape_dtype_or_op_is_a_miss(cache):
    def hess(x, fn):
        return _tape_hessian(lambda v: dg.reduce_sum(fn(v)), x)

    cases = [(np.array([0.1, 0.2, 0.3]), dg.sin, lambda v: -np.sin(v)),
             (np.array([0.1, 0.2, 0.3, 0.4]), dg.sin, lambda v: -np.sin(v)),
             (np.array([0.1, 0.2, 0.3]), dg.cos, lambda v: -np.cos(v)),
             (np.array([0.1, 0.2, 0.3], np.float32), dg.sin, lambda v: -np.sin(v))]
    for _ in range(3):   # interleaved: each call must find its own plan
        for value, fn, second in cases:
            h = hess(dg.constant(value), fn)
            assert h.dtype == dg.as_dtype(value.dtype)
            np.testing.assert_allclose(h.numpy(), np.diag(second(value)), rtol=1e-6)
    assert cache.compiled == 4 and cache.hits == 8


def test_integer_values_are_part_of_the_key(cache):
    """Gather indices (a kept int32 input) decide the traced program: same shapes,
    other indices, must not reuse the plan of the first ones."""
    xv = np.array([0.1, 0.4, 0.9, 1.6])
    for _ in range(3):
        for indices in ([2, 0], [1, 3], [3, 3]):
            x = dg.constant(xv)
            with dg.GradientTape() as tape:
                tape.watch(x)
                y = dg.gather(dg.sin(x), dg.constant(indices))
            expected = np.zeros((2, 4))
            expected[[0, 1], indices] = np.cos(xv[indices])
            np.testing.assert_allclose(tape.jacobian(y, x).numpy(), expected)
    assert cache.compiled == 3 and cache.hits == 6


def test_jacobian_and_batch_jacobian_repeated(cache):
    for _ in range(3):
        xv = RNG.normal(size=(2, 3))
        av = RNG.normal(size=(4, 3))
        x, a = dg.constant(xv), dg.constant(av)
        with dg.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = dg.matmul(x, a, transpose_b=True) ** 2      # [2, 4]
            z = x * x * x                                   # [2, 3]
        jac = tape.jacobian(y, x).numpy()                   # [2, 4, 2, 3]
        expected = np.zeros((2, 4, 2, 3))
        for i in range(2):
            expected[i, :, i, :] = 2 * (xv[i] @ av.T)[:, None] * av
        np.testing.assert_allclose(jac, expected, rtol=1e-10)
        batch = tape.batch_jacobian(z, x).numpy()           # [2, 3, 3]
        np.testing.assert_allclose(batch, np.stack([np.diag(3 * r * r) for r in xv]))
    assert cache.compiled == 2 and cache.hits == 4


def test_unconnected_sources_stay_none_or_zero(cache):
    for _ in range(3):
        x, z = dg.constant([1.0, 2.0]), dg.constant([3.0])
        with dg.GradientTape(persistent=True) as tape:
            tape.watch([x, z])
            y = x * x
        jx, jz = tape.jacobian(y, [x, z])
        np.testing.assert_allclose(jx.numpy(), np.diag([2.0, 4.0]))
        assert jz is None
        zero = tape.jacobian(y, z, unconnected_gradients=dg.UnconnectedGradients.ZERO)
        np.testing.assert_array_equal(zero.numpy(), np.zeros((2, 1)))
    assert cache.hits == 4


def test_an_outer_recording_tape_still_sees_the_jacobian(cache):
    """Third order: `third` records the jacobian's converted ops, so no jacobian plan
    is used; `first.gradient` is replayed onto `second` and `third` from call 2 on
    (their records must be what the eager pass leaves: the third derivative proves it)."""
    for _ in range(3):
        x = dg.constant([0.5, -1.0])
        with dg.GradientTape() as third:
            third.watch(x)
            with dg.GradientTape() as second:
                second.watch(x)
                with dg.GradientTape() as first:
                    first.watch(x)
                    y = dg.reduce_sum(x * x * x * x)
                g = first.gradient(y, x)
            h = second.jacobian(g, x)                      # diag(12 x^2)
        t = third.gradient(h, x)                           # 24 x
        np.testing.assert_allclose(h.numpy(), np.diag(12 * x.numpy() ** 2))
        np.testing.assert_allclose(t.numpy(), 24 * x.numpy())
    assert cache.hits == 2 and cache.compiled == 1   # the replayed first.gradient


def test_custom_gradients_are_never_cached(cache):
    @dg.custom_gradient
    def twice(v):
        return v * 2.0, lambda dy: dy * 5.0     # a deliberately different gradient

    for _ in range(3):
        x = dg.constant([1.0, 2.0])
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = twice(x * x)
        np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag([10.0, 20.0]))
    assert cache.hits == 0


def test_the_cache_is_bounded(monkeypatch):
    small = JacobianPlanCache(max_entries=2)
    monkeypatch.setattr(jacobian_plans.plans, "cache", small)
    fns = [(dg.sin, np.cos), (dg.exp, np.exp), (dg.tanh, lambda v: 1 - np.tanh(v) ** 2)]
    for _ in range(3):
        for fn, derivative in fns:
            x = dg.constant([0.3, 0.7])
            with dg.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
            np.testing.assert_allclose(tape.jacobian(y, x).numpy(),
                                       np.diag(derivative(x.numpy())))
            assert len(small) <= 2
    tiny = JacobianPlanCache(max_bytes=0)     # no plan fits: each structure stays uncached
    monkeypatch.setattr(jacobian_plans.plans, "cache", tiny)
    for _ in range(3):
        _check_jacobian_of_sin_x_times_x()
    assert tiny.nbytes == 0


def _check_jacobian_of_sin_x_times_x():
    x = dg.constant([0.3, 0.7])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.sin(x) * x
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(),
                               np.diag(np.cos([0.3, 0.7]) * [0.3, 0.7] + np.sin([0.3, 0.7])))


def test_hessian_of_a_variable_follows_its_assignments(cache):
    v = dg.Variable([0.2, -0.4, 0.9], dtype=dg.float64)
    for value in ([0.2, -0.4, 0.9], [1.5, 0.1, -2.0], [0.0, 0.3, 0.6]):
        v.assign(value)
        with dg.GradientTape(persistent=True) as tape:
            y = dg.reduce_sum(dg.sin(v) * v)
        h = tape.hessian(y, v)
        w = np.array(value)
        np.testing.assert_allclose(h.numpy(), np.diag(2 * np.cos(w) - w * np.sin(w)))
    assert cache.hits == 2   # the reads are keyed as resources; their values are fed


def test_a_failing_plan_falls_back_to_the_ordinary_path(cache, monkeypatch):
    """A kernel error in the plan is not raised from the plan: the ordinary path runs
    (and raises at the op that caused it, if it fails too)."""
    from duograd.framework.errors import InvalidArgumentError

    def failing(plan, feeds, resources):
        raise InvalidArgumentError(None, None, "simulated kernel failure")

    monkeypatch.setattr(jacobian_plans, "run_plan", failing)
    for _ in range(3):
        _check_jacobian_of_sin_x_times_x()
    assert cache.compiled == 1 and cache.hits == 0


def test_hessian_blocks_of_several_sources(cache):
    """Blocks d2f/dx2 = diag(2 y), d2f/dy2 = 0 (the gradient in y does not depend on
    y), and an unreached source's zeros (the ordinary path: never cached)."""
    for _ in range(3):
        xv, yv = RNG.normal(size=3), RNG.normal(size=3)
        x, y, z = dg.constant(xv), dg.constant(yv), dg.constant([1.0, 2.0])
        with dg.GradientTape(persistent=True) as tape:
            tape.watch([x, y, z])
            f = dg.reduce_sum(x * x * y)
        hx, hy = tape.hessian(f, [x, y])
        np.testing.assert_allclose(hx.numpy(), np.diag(2 * yv))
        np.testing.assert_array_equal(hy.numpy(), np.zeros((3, 3)))
        hz = tape.hessian(f, z)
        np.testing.assert_array_equal(hz.numpy(), np.zeros((2, 2)))
    assert cache.hits == 2 and cache.compiled == 1   # [x, y]: calls 2 and 3


def test_a_persistent_tape_differentiates_its_own_replayed_gradient(cache):
    """A persistent tape computing a gradient inside its block records the gradient
    ops on itself (TF); replayed, they must still carry the second derivative."""
    for _ in range(4):
        xv = RNG.normal(size=3)
        x = dg.constant(xv)
        with dg.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = dg.reduce_sum(x * x * x)
            dy = tape.gradient(y, x)
        np.testing.assert_allclose(dy.numpy(), 3 * xv * xv)
        np.testing.assert_allclose(tape.gradient(dy, x).numpy(), 6 * xv)
    assert cache.hits == 3 and cache.compiled == 1


def test_plans_keep_no_recorded_value_alive(cache):
    """The compiling call's values are freed once the call is over (a plan holds only
    its program and constants), for each kind of plan."""
    import gc
    import weakref

    def nested(x):
        return _nested_hessian(_exp_poly, x)

    def hessian(x):
        return _tape_hessian(_exp_poly, x)

    for variant in (nested, hessian):
        refs = []
        for _ in range(3):
            x = dg.constant(RNG.normal(size=4))
            variant(x)
            refs.append(weakref.ref(x))
            del x
        gc.collect()
        assert all(ref() is None for ref in refs)
    assert cache.compiled == 3
