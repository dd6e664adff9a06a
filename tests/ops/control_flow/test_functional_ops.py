"""dg.map_fn and dg.scan as tf.map_fn and tf.scan (values recorded from TF 2.21)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = np.arange(6.0).reshape(3, 2)


def test_values_and_dense_gradients_eagerly():
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        squares = dg.map_fn(lambda r: r * r, x)
        products = dg.scan(lambda a, e: a * e, x, initializer=dg.constant([1.0, 1.0], dg.float64))
        suffix_sums = dg.scan(lambda a, e: a + e, x, reverse=True)
        pair = dg.map_fn(lambda p: (p[0] * 2.0, dg.reduce_sum(p[1])), (x, x),
                         fn_output_signature=(dg.float64, dg.float64))
        loss = (dg.reduce_sum(squares) + dg.reduce_sum(products) + dg.reduce_sum(suffix_sums)
                + dg.reduce_sum(pair[1]))
    grad = tape.gradient(loss, x)
    # recorded from TF 2.21
    np.testing.assert_allclose(squares.numpy(), [[0, 1], [4, 9], [16, 25]])
    np.testing.assert_allclose(products.numpy(), [[0, 1], [0, 3], [0, 15]])
    np.testing.assert_allclose(suffix_sums.numpy(), [[6, 9], [6, 8], [4, 5]])
    np.testing.assert_allclose(pair[1].numpy(), [1, 5, 9])
    assert isinstance(grad, dg.Tensor)   # dense, as TF's
    np.testing.assert_allclose(grad.numpy(), [[13, 23], [7, 15], [12, 17]])


def test_graph_mode_shapes_and_gradients():
    with dg.Graph().as_default():
        p = dg.placeholder(dg.float32, [None, 2])
        y = dg.map_fn(lambda r: dg.reduce_sum(r * r), p)
        z = dg.scan(lambda a, e: a + e, dg.random.uniform([6]), initializer=dg.ones([3, 4]))
        (g,) = dg.gradients(y, p)
        assert y.shape.as_list() == [None] and z.shape.as_list() == [6, 3, 4]   # as TF
        with dg.Session() as sess:
            values, grads = sess.run([y, g], {p: [[1.0, 2.0], [3.0, 4.0]]})
    np.testing.assert_allclose(values, [5.0, 25.0])
    np.testing.assert_allclose(grads, [[2.0, 4.0], [6.0, 8.0]])


def test_scalar_elems_are_rejected():
    with pytest.raises(ValueError, match="1\\+ dimensional"):
        dg.map_fn(lambda v: v, dg.constant(1.0))


def test_map_fn_back_prop_false_stops_gradients_in_graphs_only():
    """TF 2.21: back_prop=False gives no gradient in a graph or tf.function; eagerly it is
    ignored (d/dx sum(x*x) = [2, 4])."""
    x = dg.constant([1.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.map_fn(lambda v: v * v, x, back_prop=False)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])
    squares = dg.function(lambda v: dg.map_fn(lambda r: r * r, v, back_prop=False))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = squares(x)
    assert tape.gradient(y, x) is None
    with dg.Graph().as_default():
        p = dg.placeholder(dg.float32, [2])
        first, _ = dg.map_fn(lambda v: (v[0] * v[0], v[1]), (p, p), back_prop=False)
        assert dg.gradients(first, p) == [None]
        assert dg.gradients(dg.map_fn(lambda v: v * v, p), p)[0] is not None


def test_map_fn_arguments_are_checked():
    # TF 2.21 fails later with an AttributeError on the int; ours names the problem.
    with pytest.raises(TypeError, match="fn must be callable"):
        dg.map_fn(3, dg.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="structure of fn's output"):
        dg.map_fn(lambda v: (v, v), dg.constant([1.0, 2.0]))
