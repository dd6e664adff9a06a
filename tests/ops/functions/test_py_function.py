"""dg.py_function: Python code on eager tensors as an op, differentiable in both modes."""
import numpy as np
import pytest

import duograd as dg

X = np.array([0.3, -1.2, 2.0])


def _sin_times(a, b):
    return dg.sin(a) * b + float(np.asarray(b.numpy()).sum())  # .numpy(): eager inside


def test_eager_graph_and_function_give_the_same_values():
    expected = np.sin(X) * 2.0 + 6.0
    eager = dg.py_function(_sin_times, [dg.constant(X), dg.constant(np.full(3, 2.0))], dg.float64)
    np.testing.assert_allclose(eager.numpy(), expected)
    with dg.Graph().as_default():
        p = dg.placeholder(dg.float64, [3])
        out = dg.py_function(_sin_times, [p, dg.constant(np.full(3, 2.0))], dg.float64)
        assert out.op.type == "EagerPyFunc" and out.shape.rank is None
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(out, {p: X}), expected)
    f = dg.function(lambda x: dg.py_function(_sin_times, [x, dg.constant(np.full(3, 2.0))],
                                             dg.float64))
    np.testing.assert_allclose(f(dg.constant(X)).numpy(), expected)


def test_gradients_flow_through_in_every_setting():
    def cube(a):
        return a * a * a

    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(dg.py_function(cube, [x], dg.float64))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3 * X ** 2)

    with dg.Graph().as_default():
        p = dg.placeholder(dg.float64, [3])
        y = dg.reduce_sum(dg.reshape(dg.py_function(cube, [p], dg.float64), [3]))
        (dp,) = dg.gradients(y, [p])
        (d2p,) = dg.gradients(dg.reduce_sum(dp), [p])
        with dg.Session() as sess:
            first, second = sess.run([dp, d2p], {p: X})
    np.testing.assert_allclose(first, 3 * X ** 2)
    np.testing.assert_allclose(second, 6 * X)

    @dg.function
    def grad_in_function(v):
        with dg.GradientTape() as inner:
            inner.watch(v)
            out = dg.reduce_sum(dg.reshape(dg.py_function(cube, [v], dg.float64), [3]))
        return inner.gradient(out, v)

    np.testing.assert_allclose(grad_in_function(x).numpy(), 3 * X ** 2)


def test_multiple_outputs_none_tout_and_dtype_errors():
    a, b = dg.py_function(lambda t: (t + 1, t * 2), [dg.constant(3)], [dg.int32, dg.int32])
    assert (int(a), int(b)) == (4, 6)
    calls = []
    assert dg.py_function(lambda t: calls.append(int(t)), [dg.constant(5)], None) is None
    assert calls == [5]
    with pytest.raises(dg.errors.InvalidArgumentError, match="has dtype float32, expected int32"):
        dg.py_function(lambda t: dg.cast(t, dg.float32), [dg.constant(1)], dg.int32)
    with pytest.raises(TypeError, match="callable"):
        dg.py_function(3, [], dg.int32)


def test_py_function_runs_in_a_function_even_when_its_result_is_unused():
    seen = []

    @dg.function
    def f(x):
        dg.py_function(lambda t: seen.append(("none", float(t))), [x], None)
        dg.py_function(lambda t: seen.append(("unused", float(t))) or t, [x], dg.float32)
        return x + 1.0

    f(dg.constant(1.0))
    f(dg.constant(2.0))
    assert seen == [("none", 1.0), ("unused", 1.0), ("none", 2.0), ("unused", 2.0)]
