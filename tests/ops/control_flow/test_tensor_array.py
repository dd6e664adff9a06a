"""dg.TensorArray: every method, element-shape checks, gradients in all modes and in loops."""
import numpy as np
import pytest

import duograd as dg
from cf_check import all_modes

X = np.array([0.3, -0.7, 1.1])


def in_loop(x):
    """Unstack / read / write / stack / gather / size inside and around a while_loop."""
    source = dg.TensorArray(dg.float64, size=3).unstack(x * 2.0)

    def body(i, acc, out):
        v = source.read(i)
        return i + 1, acc + v, out.write(i, dg.sin(v) * acc)

    _, acc, out = dg.while_loop(lambda i, a, o: i < source.size(), body,
                                (0, dg.constant(1.0, dg.float64),
                                 dg.TensorArray(dg.float64, size=3)))
    return (dg.reduce_sum(out.stack()) * acc + dg.reduce_sum(out.gather([0, 2]))
            + dg.cast(out.size(), dg.float64))


def scatter_concat(x):
    rows = dg.reshape(dg.concat([x, x * x], 0), [3, 2])
    ta = dg.TensorArray(dg.float64, size=4).scatter([3, 0, 1], rows)
    ta = ta.write(2, dg.exp(x[:2]))
    return dg.reduce_sum(ta.concat() * dg.constant(np.arange(8.0))) + dg.reduce_sum(ta.read(3))


def dynamic(x):
    ta = dg.TensorArray(dg.float64, size=0, dynamic_size=True)
    def body(i, t):
        return i + 1, t.write(i, x * dg.cast(i, dg.float64) + dg.sin(x))
    _, ta = dg.while_loop(lambda i, t: i < 4, body, (0, ta))
    return dg.reduce_sum(ta.stack() ** 2)


@pytest.mark.parametrize("fn", [in_loop, scatter_concat])
def test_values_and_gradients_all_modes(fn):
    all_modes(fn, X)


def test_dynamic_size_first_order_all_modes():
    # A growing buffer changes shape each iteration: first-order gradients only
    # (the second-order loop would have to stack values of different shapes).
    x = dg.constant(X)
    results = []
    for f in (dynamic, dg.function(dynamic)):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        results.append((y.numpy(), tape.gradient(y, x).numpy()))
    graph = dg.Graph()
    with graph.as_default():
        xp = dg.placeholder(dg.float64, [3])
        y = dynamic(xp)
        with dg.Session() as sess:
            results.append(tuple(sess.run([y, dg.gradients(y, xp)[0]], {xp: X})))
    expected = sum(np.sum((X * i + np.sin(X)) ** 2) for i in range(4))
    grad = sum(2 * (X * i + np.sin(X)) * (i + np.cos(X)) for i in range(4))
    for value, g in results:
        assert value == pytest.approx(expected)
        np.testing.assert_allclose(g, grad)


def test_element_shape_and_bounds_errors():
    ta = dg.TensorArray(dg.float32, size=2, element_shape=[2])
    with pytest.raises(ValueError, match="Incompatible shape"):
        ta.write(0, [1.0, 2.0, 3.0])
    with pytest.raises(dg.errors.InvalidArgumentError):  # TF 2.21 eagerly (graph: TypeError)
        ta.write(0, dg.constant([1, 2]))
    with pytest.raises(dg.errors.InvalidArgumentError):
        ta.write(5, [1.0, 2.0])
    with pytest.raises(dg.errors.OutOfRangeError):  # TF 2.21: reading past the end
        ta.read(5)
    with pytest.raises(ValueError, match="Size must be provided"):
        dg.TensorArray(dg.float32)
    np.testing.assert_allclose(ta.stack().numpy(), np.zeros((2, 2)))  # unwritten: zeros
    graph = dg.Graph()
    with graph.as_default():
        ta = dg.TensorArray(dg.float32, size=2, element_shape=[2])
        with pytest.raises(ValueError, match="Incompatible shape"):
            ta.write(0, [1.0, 2.0, 3.0])
        with pytest.raises(TypeError):
            ta.write(0, dg.constant([1, 2]))
        out = ta.write(3, [1.0, 2.0]).stack()
        with dg.Session() as sess:
            with pytest.raises(dg.errors.InvalidArgumentError, match="not resizeable"):
                sess.run(out)


def test_graph_stack_static_shape_and_eager_size():
    graph = dg.Graph()
    with graph.as_default():
        ta = dg.TensorArray(dg.float32, size=3, element_shape=[2]).unstack(dg.ones([3, 2]))
        assert ta.stack().shape.as_list() == [3, 2]
        assert ta.read(1).shape.as_list() == [2]
    ta = dg.TensorArray(dg.float32, size=0, dynamic_size=True)
    ta = ta.write(2, [1.0])
    assert ta.size().numpy() == 3
    np.testing.assert_allclose(ta.gather([2]).numpy(), [[1.0]])
