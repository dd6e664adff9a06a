"""Max pooling whose windows tile the input (ksize == strides, issue 25's fast path):
values, first-maximum routing of ties, NaN gradients and the second order, against
Python loops and values recorded from TF 2.21, eagerly and in graphs."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from modes import run_graph
import nn_reference as ref

nn = dg.nn

TILE_CASES = [  # (input shape, window = stride, padding)
    ((2, 6, 6, 3), 2, "VALID"),
    ((2, 7, 5, 3), 2, "VALID"),     # the last row and column belong to no window
    ((1, 6, 4, 2), 2, "SAME"),      # divisible: SAME pads nothing
    ((1, 5, 5, 2), 2, "SAME"),      # SAME pads: the general path
    ((2, 9, 9, 1), 3, "VALID"),
    ((1, 4, 6, 2), (2, 3), "VALID"),
]


def _tie_heavy(shape, seed):
    """Small integers: most windows hold ties, as ReLU outputs (zeros) do."""
    return np.random.default_rng(seed).integers(-2, 3, size=shape).astype(np.float64)


@pytest.mark.parametrize("shape,window,padding", TILE_CASES)
def test_tiled_max_pool_and_gradient_match_loops(shape, window, padding):
    k = (window, window) if isinstance(window, int) else window
    x = _tie_heavy(shape, 5)
    expected = ref.max_pool2d(x, k, k, padding)
    np.testing.assert_array_equal(nn.max_pool2d(x, list(k), list(k), padding), expected)
    np.testing.assert_array_equal(run_graph(lambda a: nn.max_pool2d(a, list(k), list(k), padding),
                                            x), expected)
    dy = np.random.default_rng(6).standard_normal(expected.shape)
    want = ref.max_pool_grad(x, dy, k, k, padding)

    def grad(a, d):
        return dg.gradients(nn.max_pool2d(a, list(k), list(k), padding), a, grad_ys=d)[0]
    ts = dg.constant(x)
    with dg.GradientTape() as tape:
        tape.watch(ts)
        y = nn.max_pool2d(ts, list(k), list(k), padding)
    np.testing.assert_array_equal(tape.gradient(y, ts, output_gradients=dg.constant(dy)), want)
    np.testing.assert_array_equal(run_graph(grad, x, dy), want)


@pytest.mark.parametrize("shape,window,padding", TILE_CASES)
def test_tiled_max_pool_second_order_is_the_adjoint_of_the_routing(shape, window, padding):
    """d/d(dy) <MaxPoolGrad(x, dy), v> gathers v at each window's first maximum."""
    k = (window, window) if isinstance(window, int) else window
    x = _tie_heavy(shape, 7)
    rng = np.random.default_rng(8)
    dy = dg.constant(rng.standard_normal(ref.max_pool2d(x, k, k, padding).shape))
    v = rng.standard_normal(shape)
    with dg.GradientTape() as outer:
        outer.watch(dy)
        xs = dg.constant(x)
        with dg.GradientTape() as inner:
            inner.watch(xs)
            y = nn.max_pool2d(xs, list(k), list(k), padding)
        g = inner.gradient(y, xs, output_gradients=dy)
        total = dg.reduce_sum(g * v)
    gathered = np.asarray(outer.gradient(total, dy))
    probe = rng.standard_normal(dy.shape)
    np.testing.assert_allclose(np.sum(ref.max_pool_grad(x, probe, k, k, padding) * v),
                               np.sum(probe * gathered), rtol=1e-12)


def test_a_nan_gradient_stays_in_its_window():
    x = _tie_heavy((1, 4, 4, 1), 9)
    dy = np.array([np.nan, 1.0, 2.0, np.inf]).reshape(1, 2, 2, 1)
    ts = dg.constant(x)
    with dg.GradientTape() as tape:
        tape.watch(ts)
        y = nn.max_pool2d(ts, 2, 2, "VALID")
    got = np.asarray(tape.gradient(y, ts, output_gradients=dg.constant(dy)))[0, :, :, 0]
    want = ref.max_pool_grad(x, dy, (2, 2), (2, 2), "VALID")[0, :, :, 0]
    np.testing.assert_array_equal(got, want)   # NaN and inf at one tap each, 0 elsewhere
    assert np.isnan(got).sum() == 1 and np.isinf(got).sum() == 1


def test_ties_and_a_nan_input_route_as_tf_does():
    """Recorded from TF 2.21: tf.nn.max_pool2d(x, 2, 2, 'VALID') and its gradient for
    dy = [[1, 2], [3, 4]]. The gradient of a window holding NaN goes to the NaN (TF and
    duograd); its value is NaN here (a NaN stays NaN) where TF's kernel returns 3."""
    x = np.array([[0, 0, 1, 1], [0, 0, 1, 0], [2, -1, np.nan, 3], [2, 2, 0, 3]],
                 np.float32).reshape(1, 4, 4, 1)
    dy = np.array([[1, 2], [3, 4]], np.float32).reshape(1, 2, 2, 1)
    tf_grad = [[1, 0, 2, 0], [0, 0, 0, 0], [3, 0, 4, 0], [0, 0, 0, 0]]
    ts = dg.constant(x)
    with dg.GradientTape() as tape:
        tape.watch(ts)
        y = nn.max_pool2d(ts, 2, 2, "VALID")
    assert y.dtype == dg.float32
    np.testing.assert_array_equal(np.asarray(y)[0, :, :, 0], [[0, 1], [2, np.nan]])
    grad = tape.gradient(y, ts, output_gradients=dg.constant(dy))
    assert grad.dtype == dg.float32
    np.testing.assert_array_equal(np.asarray(grad)[0, :, :, 0], tf_grad)
    graph_grad = run_graph(lambda a, d: dg.gradients(nn.max_pool2d(a, 2, 2, "VALID"), a,
                                                     grad_ys=d)[0], x, dy)
    np.testing.assert_array_equal(graph_grad[0, :, :, 0], tf_grad)
