"""`x[t]` with a Python int, eagerly and in a function: TF's StridedSlice with
shrink_axis_mask 1, the same values, gradients and errors. Eagerly, the begin, end
and strides vectors of Python ints are converted once per thread and reused."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import duograd as dg

X = np.arange(24, dtype=np.float32).reshape(4, 3, 2)


@pytest.mark.parametrize("t", [0, 2, 3, -1, -4])
def test_int_index_values_eager_and_in_a_function(t):
    x = dg.constant(X)
    eager = x[t]
    traced = dg.function(lambda v: v[t])(x)
    np.testing.assert_array_equal(eager.numpy(), X[t])
    np.testing.assert_array_equal(traced.numpy(), X[t])
    assert eager.dtype == dg.float32 and eager.shape == (3, 2)


def test_int_index_gradient_scatters_into_zeros():
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(x[1] * x[-1])
    g = tape.gradient(y, x).numpy()
    expected = np.zeros_like(X)
    expected[1] = X[-1]
    expected[-1] = X[1]
    np.testing.assert_array_equal(g, expected)


def test_int_index_second_order_under_nested_tapes():
    x = dg.constant(X)
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            y = dg.reduce_sum(x[2] ** 3)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x).numpy()
    expected = np.zeros_like(X)
    expected[2] = 6 * X[2]
    np.testing.assert_allclose(h, expected)


@pytest.mark.parametrize("t", [4, -5, 2**31, -2**40])
def test_out_of_range_int_index_is_invalid_argument(t):
    # TF 2.21: InvalidArgumentError "slice index 4 of dimension 0 out of bounds."
    x = dg.constant(X)
    with pytest.raises(dg.errors.InvalidArgumentError, match="out of bounds"):
        x[t]


def test_a_bool_index_is_a_boolean_mask_as_in_tf():
    # TF 2.21: x[True] raises ValueError "mask cannot be scalar."; a bool array or
    # tensor selects rows (boolean_mask)
    x = dg.constant(X)
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        x[True]
    mask = np.array([True, False, True, False])
    np.testing.assert_array_equal(x[mask].numpy(), X[mask])
    np.testing.assert_array_equal(x[dg.constant(mask)].numpy(), X[mask])


def test_a_loop_over_int_indices_reuses_nothing_it_should_not():
    # three passes over the same indices (the second and third find their index
    # vectors converted): each step's own values and the summed gradient
    x = dg.constant(X)
    for _ in range(3):
        with dg.GradientTape() as tape:
            tape.watch(x)
            parts = [x[t] * float(t + 1) for t in range(4)]
            y = dg.add_n([dg.reduce_sum(p) for p in parts])
        for t, p in enumerate(parts):
            np.testing.assert_array_equal(p.numpy(), X[t] * (t + 1))
        expected = np.broadcast_to(np.arange(1, 5, dtype=np.float32)[:, None, None], X.shape)
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)


def test_more_distinct_indices_than_are_kept_still_index_rightly():
    n = 5000   # beyond the 4,096 vectors a thread keeps
    x = dg.constant(np.arange(n, dtype=np.float64))
    got = [float(x[t].numpy()) for t in range(n)] + [float(x[-t].numpy()) for t in range(1, n)]
    assert got == [float(t) for t in range(n)] + [float(n - t) for t in range(1, n)]


def test_each_thread_indexes_with_its_own_vectors():
    x = dg.constant(X)
    results = {}

    def index(t):
        results[t] = [x[t].numpy() for _ in range(3)]
    threads = [threading.Thread(target=index, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for t in range(4):
        for value in results[t]:
            np.testing.assert_array_equal(value, X[t])


@pytest.mark.parametrize("key", [(1, None), (Ellipsis, 1), (-1, Ellipsis, None), (2, 0, 1),
                                 (None,), (Ellipsis,), (0, -1)])
def test_indices_of_ints_none_and_ellipsis_translated_once_give_numpy_values(key):
    """Such an index is translated to StridedSlice's vectors once per thread: the
    second and third use (from the cache) give the same values and gradients."""
    x = dg.constant(X)
    for _ in range(3):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = x[key]
            loss = dg.reduce_sum(y * y)
        np.testing.assert_array_equal(y.numpy(), X[key])
        expected = np.zeros_like(X)
        np.add.at(expected, key, 2 * X[key])
        np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), expected)


def test_a_bool_in_an_index_is_not_read_as_the_int_it_equals():
    """(True, 0) hashes and compares equal to (1, 0): the translated index of the one
    must not serve the other (a bool is not an index: TypeError, as before)."""
    x = dg.constant(X)
    np.testing.assert_array_equal(x[1, 0].numpy(), X[1, 0])
    with pytest.raises(TypeError, match="valid indices"):
        x[True, 0]
    np.testing.assert_array_equal(x[1, 0].numpy(), X[1, 0])


def test_out_of_range_int_index_raises_each_time():
    x = dg.constant(X)
    for _ in range(2):
        with pytest.raises(dg.errors.InvalidArgumentError):
            x[4]
        with pytest.raises(dg.errors.InvalidArgumentError):
            x[0, 3]
