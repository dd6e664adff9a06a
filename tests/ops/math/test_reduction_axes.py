"""Reduction axes as TensorFlow 2.21 checks them: `axis=[]`, duplicates, rank-2
axis arguments, out-of-range axes (class and message), unknown-rank inputs.

Values and exception classes/messages recorded from TF 2.21.
"""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = [[-1.0, 0.0], [3.0, 4.0]]
DY = [[1.0, 2.0], [3.0, 4.0]]

# (function, value of f(X, axis=[]), its gradient with output_gradients=DY), from TF 2.21
EMPTY_AXIS = [
    (dg.reduce_sum, X, DY),
    (dg.reduce_mean, X, DY),
    (dg.reduce_prod, X, DY),
    (dg.reduce_max, X, DY),
    (dg.reduce_min, X, DY),
    (dg.reduce_logsumexp, X, DY),
    (dg.math.reduce_euclidean_norm, [[1.0, 0.0], [3.0, 4.0]], [[-1.0, np.nan], [3.0, 4.0]]),
    (dg.math.reduce_variance, [[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]),
]
REDUCERS = [dg.reduce_sum, dg.reduce_mean, dg.reduce_prod, dg.reduce_max, dg.reduce_min,
            dg.math.reduce_euclidean_norm]


@pytest.mark.parametrize("fn,value,grad", EMPTY_AXIS, ids=lambda v: getattr(v, "__name__", ""))
def test_empty_axis_reduces_nothing(fn, value, grad):
    x = dg.constant(X)
    for keepdims in (False, True):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = fn(x, axis=[], keepdims=keepdims)
        assert y.shape == (2, 2)
        np.testing.assert_allclose(y.numpy(), value)
        np.testing.assert_allclose(tape.gradient(y, x, output_gradients=dg.constant(DY)).numpy(),
                                   grad)


def test_empty_axis_keeps_integers_and_booleans():
    ints = dg.reduce_mean(dg.constant([[1, 2], [3, 4]]), axis=[])
    assert ints.dtype == dg.int32 and ints.numpy().tolist() == [[1, 2], [3, 4]]
    flags = dg.reduce_all(dg.constant([True, False]), axis=[])
    assert flags.numpy().tolist() == [True, False]
    scalar = dg.reduce_sum(dg.constant(1.0), axis=[])
    assert scalar.shape == () and scalar.numpy() == 1.0
    empty_tensor_axis = dg.reduce_sum(dg.constant([[1, 2]]), axis=dg.constant([], dg.int32))
    assert empty_tensor_axis.numpy().tolist() == [[1, 2]]


def test_empty_axis_in_a_graph():
    with dg.Graph().as_default():
        y = dg.reduce_sum(dg.constant(X), axis=[])
        assert y.shape == (2, 2)
        with dg.compat.v1.Session() as sess:
            np.testing.assert_allclose(sess.run(y), X)


def test_gradient_of_tiling_a_scalar_with_no_multiples():
    x = dg.constant(3.0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.tile(x, [])
    assert y.shape == () and y.numpy() == 3.0
    assert tape.gradient(y, x).numpy() == 1.0   # TF 2.21: 1.0


@pytest.mark.parametrize("fn", REDUCERS, ids=lambda f: f.__name__)
def test_duplicate_axes_are_an_eager_error(fn):
    op = {"reduce_sum": "Sum", "reduce_mean": "Mean", "reduce_prod": "Prod", "reduce_max": "Max",
          "reduce_min": "Min", "reduce_euclidean_norm": "EuclideanNorm"}[fn.__name__]
    x = dg.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match=rf"Axes contains duplicate dimension: 0 \[Op:{op}\]"):
        fn(x, axis=[0, 0])
    with pytest.raises(dg.errors.InvalidArgumentError, match="duplicate dimension: 1"):
        fn(x, axis=[1, -1])
    with pytest.raises(dg.errors.InvalidArgumentError, match="duplicate dimension: 0"):
        fn(x, axis=dg.constant([0, 0]))


def test_duplicate_axes_build_in_a_graph_and_fail_when_run():
    with dg.Graph().as_default():
        y = dg.reduce_sum(dg.constant([[1.0, 2.0], [3.0, 4.0]]), [0, 0])
        assert y.shape == (2,)   # TF 2.21's static shape
        flags = dg.reduce_all(dg.constant([[True, False], [True, True]]), [1, -1])
        p = dg.compat.v1.placeholder(dg.float32, None)
        z = dg.reduce_sum(p, [0, 0])
        with dg.compat.v1.Session() as sess:
            for fetch, feed in ((y, None), (flags, None), (z, {p: [[1.0]]})):
                with pytest.raises(dg.errors.InvalidArgumentError,
                                   match="Axes contains duplicate dimension"):
                    sess.run(fetch, feed)


def test_rank_two_axis_is_flattened_eagerly_and_rejected_in_a_graph():
    x = [[1.0, 2.0], [3.0, 4.0]]
    assert dg.reduce_sum(dg.constant(x), axis=[[0], [1]]).numpy() == 10.0   # TF 2.21 eager
    assert dg.reduce_max(dg.constant(x), axis=dg.constant([[0, 1]])).numpy() == 4.0
    with dg.Graph().as_default():
        for fn in (dg.reduce_sum, dg.reduce_mean, dg.reduce_max):
            with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
                fn(dg.constant(x), axis=[[0], [1]])
        with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
            dg.reduce_all(dg.constant([[True]]), axis=[[0]])


@pytest.mark.parametrize("fn", REDUCERS + [dg.reduce_logsumexp], ids=lambda f: f.__name__)
def test_out_of_range_axis_has_tf_class_and_message(fn):
    x = [[1.0, 2.0], [3.0, 4.0]]
    for axis in (2, -3):
        with pytest.raises(dg.errors.InvalidArgumentError,
                           match=rf"Invalid reduction dimension \({axis} for input with 2 "
                                 r"dimension\(s\)"):
            fn(dg.constant(x), axis=axis)
        with dg.Graph().as_default():
            with pytest.raises(ValueError, match=f"Invalid reduction dimension {axis} for input "
                                                 "with 2 dimensions."):
                fn(dg.constant(x), axis=axis)
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match=r"Invalid reduction dimension \(0 for input with 0 dimension\(s\)"):
        fn(dg.constant(1.0), axis=0)


def test_out_of_range_axis_on_an_unknown_rank_fails_when_run():
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float32, None)
        y = dg.reduce_sum(p, 2)
        with dg.compat.v1.Session() as sess:
            with pytest.raises(dg.errors.InvalidArgumentError,
                               match=r"Invalid reduction dimension \(2 for input with 2"):
                sess.run(y, {p: [[1.0]]})


@pytest.mark.parametrize("fn", [dg.reduce_sum, dg.reduce_mean, dg.reduce_max, dg.reduce_all,
                                dg.reduce_logsumexp], ids=lambda f: f.__name__)
def test_unknown_rank_full_reduction_is_a_scalar(fn):
    dtype = dg.bool if fn is dg.reduce_all else dg.float32
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dtype, None)
        assert fn(p).shape.as_list() == []            # TF 2.21: ()
        assert fn(p, keepdims=True).shape.rank is None   # TF 2.21: unknown
        assert fn(p, axis=0).shape.rank is None
        assert fn(p, axis=[]).shape.rank is None
        with dg.compat.v1.Session() as sess:
            value = np.array([[True, True]]) if fn is dg.reduce_all else [[1.0, 2.0]]
            assert np.shape(sess.run(fn(p), {p: value})) == ()
