"""Forward mode (and tapes) inside traced code see outer primals through their captures:
JVPs inside dg.vectorized_map and dg.function equal J v computed eagerly, never zeros or
None in silence. Duplicate primals are rejected and tangents die with their primals."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import duograd as dg

PRIMAL = np.array([0.1, 0.2, 0.3], np.float32)
TANGENTS = np.arange(6.0, dtype=np.float32).reshape(2, 3) - 2.0


def _f(x):
    return dg.sin(x) * dg.reduce_sum(x * x)


def _analytic_jvps():
    s = float(np.sum(PRIMAL ** 2))
    jac = np.diag(np.cos(PRIMAL) * s) + np.outer(np.sin(PRIMAL), 2 * PRIMAL)
    return TANGENTS @ jac.T


@pytest.mark.parametrize("wrap", ["plain", "function"])
def test_jvp_inside_vectorized_map_is_j_times_v(wrap):
    primal = dg.constant(PRIMAL)
    f = dg.function(_f) if wrap == "function" else _f

    def jvp_of(tangent):
        with dg.autodiff.ForwardAccumulator(primal, tangent) as acc:
            y = f(primal)
        return acc.jvp(y)

    got = dg.vectorized_map(jvp_of, dg.constant(TANGENTS))
    expected = _analytic_jvps()
    assert np.abs(expected).min() > 0.01   # zeros could not pass
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_jvp_and_tape_inside_function_follow_captured_primals():
    primal = dg.constant(PRIMAL)

    @dg.function
    def both(tangent):
        with dg.autodiff.ForwardAccumulator(primal, tangent) as acc:
            y = _f(primal)
        with dg.GradientTape() as tape:
            tape.watch(primal)
            z = dg.reduce_sum(dg.sin(primal) * tangent)
        return acc.jvp(y), acc.jvp(primal), tape.gradient(z, primal)

    jvp, own, grad = both(dg.constant(TANGENTS[1]))
    np.testing.assert_allclose(jvp.numpy(), _analytic_jvps()[1], rtol=1e-5)
    np.testing.assert_allclose(own.numpy(), TANGENTS[1])
    np.testing.assert_allclose(grad.numpy(), np.cos(PRIMAL) * TANGENTS[1], rtol=1e-6)


def test_tape_inside_vectorized_map_watches_outer_tensor():
    primal = dg.constant(PRIMAL)

    def grad_of(weights):
        with dg.GradientTape() as tape:
            tape.watch(primal)
            y = dg.reduce_sum(dg.sin(primal) * weights)
        return tape.gradient(y, primal)

    got = dg.vectorized_map(grad_of, dg.constant(TANGENTS))
    np.testing.assert_allclose(got.numpy(), np.cos(PRIMAL) * TANGENTS, rtol=1e-6)


def test_duplicate_primals_are_rejected():
    x = dg.constant(-2.0)
    with pytest.raises(ValueError, match="multiple times"):   # TF 2.21's message
        dg.autodiff.ForwardAccumulator([x, x], [1.0, 2.0])


def test_reentering_is_an_error():
    x = dg.constant(-2.0)
    with dg.autodiff.ForwardAccumulator(x, 1.5) as acc:
        with pytest.raises(ValueError, match="already recording"):
            with acc:
                pass


def test_tangents_do_not_outlive_their_primals():
    x = dg.ones([100])
    tangent = dg.constant(np.zeros([100], np.float32))
    x_ref, tangent_ref = weakref.ref(x), weakref.ref(tangent)
    with dg.autodiff.ForwardAccumulator(x, tangent) as acc:
        derived = dg.constant(2.0) * x
        del tangent
        np.testing.assert_array_equal(acc.jvp(x).numpy(), np.zeros([100]))
        del x
        gc.collect()
        assert x_ref() is None and tangent_ref() is None
        derived_ref = weakref.ref(derived)
        derived_tangent_ref = weakref.ref(acc.jvp(derived))
        del derived
        gc.collect()
        assert derived_ref() is None and derived_tangent_ref() is None


def test_accumulator_around_vectorized_map_and_nested_functions():
    primal = dg.constant(PRIMAL)
    ones = dg.constant(np.ones(3, np.float32))
    with dg.autodiff.ForwardAccumulator(primal, ones) as acc:
        mapped = dg.vectorized_map(lambda row: dg.sin(primal) * row, dg.constant(TANGENTS))
        nested = dg.function(lambda: dg.function(lambda: dg.sin(primal))())()
    np.testing.assert_allclose(acc.jvp(mapped).numpy(), np.cos(PRIMAL) * TANGENTS, rtol=1e-6)
    np.testing.assert_allclose(acc.jvp(nested).numpy(), np.cos(PRIMAL), rtol=1e-6)

    @dg.function
    def inside(tangent):
        with dg.autodiff.ForwardAccumulator(primal, tangent) as inner:
            y = dg.function(lambda: dg.sin(primal))()
        return inner.jvp(y)

    np.testing.assert_allclose(inside(ones).numpy(), np.cos(PRIMAL), rtol=1e-6)


def test_forward_over_back_hessian_in_map_fn_inside_a_function():
    """forwardprop_test's HessianTests.testHessian1D pattern: a tape and an accumulator in a
    while body (map_fn) inside dg.function, both about the function's own argument."""
    rng = np.random.RandomState([1, 2, 3])
    mat_value = rng.randn(4, 4).astype("float32")
    mat = dg.Variable(mat_value)

    def hvp(x, tangent):
        with dg.autodiff.ForwardAccumulator(x, tangent) as acc:
            with dg.GradientTape() as tape:
                tape.watch(x)
                y = dg.reduce_sum(x[:, None] * mat * x[None, :])
            grad = tape.gradient(y, x)
        return acc.jvp(grad)

    @dg.function
    def hessian(x):
        return dg.map_fn(lambda t: hvp(x, t), dg.eye(4), dtype=dg.float32)

    x = dg.constant(rng.randn(4).astype("float32"))
    expected = mat_value + mat_value.T
    np.testing.assert_allclose(hessian(x).numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dg.map_fn(lambda t: hvp(x, t), dg.eye(4)).numpy(), expected,
                               rtol=1e-5, atol=1e-5)
