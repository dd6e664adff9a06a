"""dg.numpy_function: NumPy code as an op in both modes, differentiable with custom_gradient."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from gradcheck import check_grads

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def test_eager_single_output():
    calls = []

    def func(a):
        calls.append(type(a))
        return np.sin(a)

    y = dg.numpy_function(func, [dg.constant(X)], dg.float64)
    assert calls == [np.ndarray]
    assert y.dtype == dg.float64 and y.shape == (2, 3)
    np.testing.assert_array_equal(y.numpy(), np.sin(X))


def test_graph_outputs_have_unknown_shape_and_run_in_session():
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float64, [None, 3])
        s, n = dg.numpy_function(lambda a: (a.sum(axis=1), np.int32(a.shape[0])), [x],
                                 [dg.float64, dg.int32])
        assert s.shape.rank is None and n.shape.rank is None
        assert s.op.type == "PyFunc"
        with dg.Session(graph=g) as sess:
            s_value, n_value = sess.run([s, n], {x: X})
    np.testing.assert_array_equal(s_value, X.sum(axis=1))
    assert n_value == 2 and n_value.dtype == np.int32


def test_stateless_op_type_and_name():
    g = dg.Graph()
    with g.as_default():
        y = dg.numpy_function(np.cos, [dg.constant(X)], dg.float64, stateful=False, name="cosine")
    assert y.op.type == "PyFuncStateless"
    assert y.op.name == "cosine"


def test_result_is_cast_to_tout():
    y = dg.numpy_function(lambda a: a * 2, [dg.constant(np.array([1, 2], np.int32))], dg.int64)
    assert y.dtype == dg.int64
    np.testing.assert_array_equal(y.numpy(), [2, 4])


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_wrong_number_of_results_is_an_invalid_argument_error(mode):
    def call():
        return dg.numpy_function(lambda a: (a, a), [dg.constant(X)], dg.float64)
    if mode == "eager":
        with pytest.raises(dg.errors.InvalidArgumentError, match="returned 2 values"):
            call()
        return
    g = dg.Graph()
    with g.as_default():
        y = call()
        with dg.Session(graph=g) as sess, pytest.raises(dg.errors.InvalidArgumentError,
                                                        match="returned 2 values"):
            sess.run(y)


def test_wrong_result_dtype_is_an_invalid_argument_error():
    with pytest.raises(dg.errors.InvalidArgumentError, match="dtype"):
        dg.numpy_function(lambda a: a, [dg.constant(X)], dg.int32)


def test_stateful_function_runs_every_time():
    count = []

    def tick(a):
        count.append(1)
        return np.float64(len(count))

    g = dg.Graph()
    with g.as_default():
        y = dg.numpy_function(tick, [dg.constant(1.0)], dg.float64)
        with dg.Session(graph=g) as sess:
            assert [sess.run(y) for _ in range(3)] == [1.0, 2.0, 3.0]


def test_no_gradient_without_custom_gradient():
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.numpy_function(np.sin, [x], dg.float64)
    assert tape.gradient(y, x) is None


@dg.custom_gradient
def np_sin(x):
    """sin computed by NumPy; its gradient by another NumPy function (TF #32964)."""
    y = dg.numpy_function(np.sin, [x], dg.float64)
    if isinstance(y, dg.SymbolicTensor):   # graph mode: the op's output shape is unknown
        y.set_shape(x.shape)

    def grad(dy):
        return dy * dg.numpy_function(np.cos, [x], dg.float64)
    return y, grad


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_differentiable_with_custom_gradient(mode):
    check_grads(np_sin, [X], order=1, modes=[mode])


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_gradient_value(mode):
    if mode == "eager":
        x = dg.constant(X)
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(np_sin(x) * 3.0)
        got = tape.gradient(y, x).numpy()
    else:
        g = dg.Graph()
        with g.as_default():
            x = dg.placeholder(dg.float64, [None, 3])
            (dx,) = dg.gradients(dg.reduce_sum(np_sin(x) * 3.0), x)
            with dg.Session(graph=g) as sess:
                got = sess.run(dx, {x: X})
    np.testing.assert_allclose(got, 3.0 * np.cos(X), rtol=1e-12)
