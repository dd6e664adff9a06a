"""GradientTape (eager/backprop.py, eager/imperative_grad.py, eager/tape.py)."""
from __future__ import annotations

import gc
import logging
import threading
import weakref

import numpy as np
import pytest

import duograd as dg


def _c(v):
    return dg.constant(np.asarray(v, np.float64))


def test_nested_tapes_second_and_third_order():
    x = _c(1.5)
    with dg.GradientTape() as t3:
        t3.watch(x)
        with dg.GradientTape() as t2:
            t2.watch(x)
            with dg.GradientTape() as t1:
                t1.watch(x)
                y = x ** 4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    np.testing.assert_allclose([float(d1), float(d2), float(d3)], [4 * 1.5 ** 3, 12 * 1.5 ** 2,
                                                                   24 * 1.5])


def test_output_gradients_and_multiple_targets():
    x = _c([1.0, 2.0])
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = 3.0 * x
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=_c([1.0, 0.5])).numpy(),
                                  [2.0, 2.0])
    np.testing.assert_array_equal(tape.gradient([y, z], x).numpy(), [5.0, 7.0])
    with pytest.raises(ValueError, match="output_gradients"):
        tape.gradient([y, z], x, output_gradients=[_c([1.0, 1.0])])


def test_sources_and_results_nest_alike_and_watch_nested():
    a, b, c = _c(1.0), _c([2.0, 3.0]), _c(4.0)
    with dg.GradientTape() as tape:
        tape.watch({"a": a, "rest": (b, [c])})
        y = a * dg.reduce_sum(b) * c
    grads = tape.gradient(y, {"a": a, "rest": (b, [c])})
    assert set(grads) == {"a", "rest"} and isinstance(grads["rest"], tuple)
    assert float(grads["a"]) == 20.0 and float(grads["rest"][1][0]) == 5.0
    np.testing.assert_array_equal(grads["rest"][0].numpy(), [4.0, 4.0])


def test_integer_sources_give_none_with_warning(caplog):
    i = dg.constant([1, 2])
    x = _c([1.0, 2.0])
    with caplog.at_level(logging.WARNING, logger="duograd"):
        with dg.GradientTape() as tape:
            tape.watch([x, i])
            y = dg.reduce_sum(x * dg.cast(i, dg.float64))
        dx, di = tape.gradient(y, [x, i])
    assert di is None
    np.testing.assert_array_equal(dx.numpy(), [1.0, 2.0])
    assert any("int32" in r.getMessage() for r in caplog.records)


def test_unconnected_zero_and_none():
    x, u = _c([1.0, 2.0]), _c([[1.0]])
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = dg.reduce_sum(x)
    assert tape.gradient(y, u) is None
    zero = tape.gradient(y, u, unconnected_gradients=dg.UnconnectedGradients.ZERO)
    assert zero.shape == [1, 1] and zero.dtype == dg.float64 and float(zero[0][0]) == 0.0


def test_stop_recording_and_reset():
    x = _c(2.0)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            hidden = x * x
        y = x * hidden
    assert float(tape.gradient(y, x)) == 4.0  # hidden treated as a constant
    with dg.GradientTape() as tape2:
        tape2.watch(x)
        y = x * x
        tape2.reset()
        z = x * 5.0
    assert tape2.gradient(z, x) is None  # the reset forgot the watch
    with pytest.raises(ValueError):
        with tape2.stop_recording():
            pass


def test_reset_keeps_recording_new_ops():
    x = _c(2.0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        _ = x * x
        tape.reset()
        tape.watch(x)
        z = x * 5.0
    assert float(tape.gradient(z, x)) == 5.0


def test_non_persistent_second_gradient_is_runtime_error():
    x = _c(2.0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.jacobian(y, x)


def test_tape_releases_intermediates_after_gradient():
    x = _c(np.ones(4))
    with dg.GradientTape() as tape:
        tape.watch(x)
        a = x * 2.0
        y = dg.reduce_sum(dg.sin(a))
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is not None  # the tape needs it: Sin's gradient reads its input
    tape.gradient(y, x)
    gc.collect()
    assert ref() is None


def test_persistent_tape_from_two_threads():
    x = _c(np.linspace(-1, 1, 50))
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = dg.reduce_sum(dg.sin(x) * x)
    expected = np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())
    errors = []

    def work():
        try:
            for _ in range(30):
                np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize("x_shape,fn", [
    ((3,), lambda x: dg.sin(x) * x),
    ((2, 3), lambda x: dg.matmul(x, dg.transpose(x))),
    ((4,), lambda x: dg.reduce_sum(x * x)),
    ((2, 2), lambda x: dg.exp(x) * 2.0),
])
def test_jacobian_against_finite_differences(x_shape, fn):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal(x_shape)
    x = _c(xv)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    jac = tape.jacobian(y, x).numpy()
    assert jac.shape == tuple(y.shape.as_list()) + x_shape
    eps = 1e-6
    numeric = np.zeros_like(jac)
    for idx in np.ndindex(*x_shape):
        d = np.zeros(x_shape)
        d[idx] = eps
        diff = (fn(_c(xv + d)).numpy() - fn(_c(xv - d)).numpy()) / (2 * eps)
        numeric[(Ellipsis,) + idx] = diff
    np.testing.assert_allclose(jac, numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("x_shape", [(3, 2), (2, 2, 2)])
def test_batch_jacobian_against_full_jacobian(x_shape):
    rng = np.random.default_rng(1)
    xv = rng.standard_normal(x_shape)
    x = _c(xv)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = dg.tanh(x) * dg.reduce_sum(x * x, axis=list(range(1, len(x_shape))), keepdims=True)
    batch = tape.batch_jacobian(y, x).numpy()
    full = tape.jacobian(y, x).numpy()
    n = x_shape[0]
    assert batch.shape == x_shape + x_shape[1:]
    for b in range(n):
        np.testing.assert_allclose(batch[b], full[b][(Ellipsis, b) + (slice(None),) *
                                                     (len(x_shape) - 1)], rtol=1e-12)


def test_jacobian_nested_sources_and_unconnected():
    x, u = _c([1.0, 2.0]), _c([3.0])
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * x
    jx, ju = tape.jacobian(y, [x, u])
    np.testing.assert_array_equal(jx.numpy(), [[2.0, 0.0], [0.0, 4.0]])
    assert ju is None
    (_, zu) = tape.jacobian(y, [x, u], unconnected_gradients="zero")
    np.testing.assert_array_equal(zu.numpy(), np.zeros((2, 1)))


def test_gradient_tape_hessian_equals_nested_tapes():
    rng = np.random.default_rng(2)
    xv, wv = rng.standard_normal(3), rng.standard_normal((3, 2))
    x, w = _c(xv), _c(wv)

    def f(x, w):
        return dg.reduce_sum(dg.tanh(dg.matmul(dg.reshape(x, [1, 3]), w)) ** 2)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = f(x, w)
    hx, hw = tape.hessian(y, [x, w])
    assert hx.shape == [3, 3] and hw.shape == [3, 2, 3, 2]
    with dg.GradientTape(persistent=True) as outer:
        outer.watch([x, w])
        with dg.GradientTape() as inner:
            inner.watch([x, w])
            y2 = f(x, w)
        gx, gw = inner.gradient(y2, [x, w])
    np.testing.assert_allclose(hx.numpy(), outer.jacobian(gx, x).numpy(), rtol=1e-12)
    np.testing.assert_allclose(hw.numpy(), outer.jacobian(gw, w).numpy(), rtol=1e-12)
    np.testing.assert_allclose(hx.numpy(), hx.numpy().T, rtol=1e-12)
    with dg.GradientTape() as plain:
        plain.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="persistent"):
        plain.hessian(y, x)


def test_eager_hessian_vector_product_takes_callable():
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    x, v = _c([1.0, -1.0]), _c([0.5, 2.0])
    (hv,) = dg.hessian_vector_product(
        lambda x: 0.5 * dg.reduce_sum(x * dg.reshape(dg.matmul(_c(a), dg.reshape(x, [2, 1])),
                                                      [2])), [x], [v])
    np.testing.assert_allclose(hv.numpy(), 0.5 * (a + a.T) @ np.array([0.5, 2.0]))
    with pytest.raises(TypeError, match="callable"):
        dg.hessian_vector_product(x * x, [x], [v])
