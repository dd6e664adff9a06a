"""dg.random: TF's global/op seed rules, identical numbers in both modes, streams, dtypes."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import duograd as dg

rnd = dg.random


@pytest.fixture(autouse=True)
def _no_global_seed():
    rnd.set_seed(None)
    yield
    rnd.set_seed(None)


def _program():
    """One program: three random ops, two without an op seed."""
    return [rnd.normal([2, 3]), rnd.uniform([4], -2.0, 5.0, seed=9),
            rnd.uniform([3], 0, 100, dtype=dg.int64)]


def _graph_values(build, runs=1):
    g = dg.Graph()
    with g.as_default():
        outs = build()
        with dg.Session() as sess:
            return [sess.run(outs) for _ in range(runs)]


def test_seeded_program_draws_identical_numbers_in_eager_and_graph_mode():
    rnd.set_seed(42)
    eager = [np.asarray(t) for t in _program()]
    rnd.set_seed(42)
    (graph,) = _graph_values(_program)
    for e, g in zip(eager, graph):
        assert e.dtype == g.dtype
        np.testing.assert_array_equal(e, g)
    # A fresh graph repeats the program's numbers even without calling set_seed again.
    (again,) = _graph_values(_program)
    for e, g in zip(eager, again):
        np.testing.assert_array_equal(e, g)


def test_an_op_seed_alone_is_reproducible_in_both_modes():
    eager = np.asarray(rnd.normal([5], seed=3))
    (graph,) = _graph_values(lambda: rnd.normal([5], seed=3))
    np.testing.assert_array_equal(eager, graph)
    rnd.set_seed(None)
    np.testing.assert_array_equal(rnd.normal([5], seed=3), eager)


def test_repeated_eager_calls_give_new_numbers_until_set_seed():
    rnd.set_seed(1)
    a1, a2 = np.asarray(rnd.uniform([6])), np.asarray(rnd.uniform([6]))
    b1, b2 = np.asarray(rnd.uniform([6], seed=5)), np.asarray(rnd.uniform([6], seed=5))
    assert not np.array_equal(a1, a2) and not np.array_equal(b1, b2)
    rnd.set_seed(1)
    np.testing.assert_array_equal(rnd.uniform([6]), a1)
    np.testing.assert_array_equal(rnd.uniform([6]), a2)
    np.testing.assert_array_equal(rnd.uniform([6], seed=5), b1)
    np.testing.assert_array_equal(rnd.uniform([6], seed=5), b2)


def test_repeated_session_runs_give_new_numbers_and_a_new_session_restarts():
    rnd.set_seed(2)
    g = dg.Graph()
    with g.as_default():
        x = rnd.normal([4], seed=8)
        with dg.Session() as sess:
            first, second = sess.run(x), sess.run(x)
        with dg.Session() as sess:
            np.testing.assert_array_equal(sess.run(x), first)
    assert not np.array_equal(first, second)
    # The graph's runs follow the eager calls of the same seeded op.
    rnd.set_seed(2)
    np.testing.assert_array_equal(rnd.normal([4], seed=8), first)
    np.testing.assert_array_equal(rnd.normal([4], seed=8), second)


def test_two_graph_ops_with_one_op_seed_each_draw_their_own_stream():
    rnd.set_seed(3)
    (values,) = _graph_values(lambda: [rnd.uniform([3], seed=1), rnd.uniform([3], seed=1)])
    np.testing.assert_array_equal(values[0], values[1])


def test_unseeded_ops_are_not_repeatable():
    assert not np.array_equal(rnd.normal([8]), rnd.normal([8]))
    runs = _graph_values(lambda: rnd.normal([8]), runs=2)
    assert not np.array_equal(runs[0], runs[1])


def test_global_seed_is_per_thread():
    rnd.set_seed(7)
    expected = np.asarray(rnd.normal([3]))
    seen = {}

    def other():
        seen["seed"] = dg.random.normal([3], seed=None)

    thread = threading.Thread(target=other)
    rnd.set_seed(7)
    thread.start()
    thread.join()
    np.testing.assert_array_equal(rnd.normal([3]), expected)


@pytest.mark.parametrize("dtype", [dg.float16, dg.float32, dg.float64])
def test_float_dtypes_ranges_and_statistics(dtype):
    x = np.asarray(rnd.normal([20000], mean=3.0, stddev=2.0, dtype=dtype, seed=1))
    assert x.dtype == dtype.as_numpy_dtype
    assert abs(x.astype(np.float64).mean() - 3) < 0.1 and abs(x.astype(np.float64).std() - 2) < 0.1
    u = np.asarray(rnd.uniform([20000], -1.0, 3.0, dtype=dtype, seed=2))
    assert u.dtype == dtype.as_numpy_dtype
    assert u.min() >= -1 and u.max() < 3 and abs(u.astype(np.float64).mean() - 1) < 0.1
    unit = np.asarray(rnd.uniform([20000], dtype=dtype, seed=3))
    assert unit.min() >= 0 and unit.max() < 1


@pytest.mark.parametrize("dtype", [dg.int32, dg.int64])
def test_integer_uniform(dtype):
    x = np.asarray(rnd.uniform([1000], -3, 4, dtype=dtype, seed=1))
    assert x.dtype == dtype.as_numpy_dtype
    assert set(np.unique(x)) == set(range(-3, 4))


def test_argument_errors_match_tf():
    with pytest.raises(ValueError, match="maxval"):
        rnd.uniform([2], dtype=dg.int32)
    with pytest.raises(dg.errors.InvalidArgumentError, match="RandomUniformInt"):
        rnd.uniform([2], 5, 5, dtype=dg.int32)
    with pytest.raises(ValueError):
        rnd.normal([2], dtype=dg.int32)
    with pytest.raises(dg.errors.InvalidArgumentError, match="RandomStandardNormal"):
        rnd.normal(dg.constant([[2, 3]]))
    g = dg.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="RandomUniform"):
            rnd.uniform(dg.placeholder(dg.int32, [2, 2]))
        with pytest.raises(TypeError, match="RandomStandardNormal"):
            rnd.normal(dg.placeholder(dg.float32, [2]))


def test_static_shapes():
    g = dg.Graph()
    with g.as_default():
        assert rnd.normal([2, 3]).shape.as_list() == [2, 3]
        dims = dg.placeholder(dg.int32, [3])
        assert rnd.uniform(dims).shape.as_list() == [None, None, None]
        x = dg.placeholder(dg.float32, [None, 4])
        assert rnd.uniform(dg.shape(x)).shape.as_list() == [None, 4]
        with dg.Session() as sess:
            assert sess.run(rnd.normal(dims), {dims: [1, 2, 3]}).shape == (1, 2, 3)


def test_random_ops_are_not_differentiable_but_mean_and_stddev_are():
    mean = dg.constant(1.0)
    stddev = dg.constant(2.0)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([mean, stddev])
        x = rnd.normal([5], mean=mean, stddev=stddev, seed=4)
        total = dg.reduce_sum(x)
    dmean, dstd = tape.gradient(total, [mean, stddev])
    assert float(dmean) == 5.0
    np.testing.assert_allclose(float(dstd), np.sum((np.asarray(x) - 1.0) / 2.0), rtol=1e-5)
    g = dg.Graph()
    with g.as_default():
        shape = dg.constant([3])
        raw = rnd.uniform(shape, seed=1)
        assert raw.op.type == "RandomUniform"
        assert dg.get_gradient_function(raw.op) is None
        assert dg.gradients(raw, [shape]) == [None]
