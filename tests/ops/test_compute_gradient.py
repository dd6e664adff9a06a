"""dg.test.compute_gradient (TF2's checker) and dg.compat.v1.test's (TF1's), as TensorFlow's.

Expected values are mathematics or recorded from TensorFlow 2.21.
"""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def test_compute_gradient_is_y_size_by_x_size_and_agrees():
    x = np.array([[1.0, 2.0, 3.0]])
    w = np.array([[1.0], [2.0], [3.0]])
    theoretical, numerical = dg.test.compute_gradient(
        lambda x, w: dg.matmul(x, w) * dg.matmul(x, w), [x, w])
    # recorded from TF 2.21: ([[28, 56, 84]], [[28, 56, 84]]) for both inputs
    assert isinstance(theoretical, tuple) and isinstance(numerical, tuple)
    for jac in theoretical + numerical:
        np.testing.assert_allclose(jac, [[28.0, 56.0, 84.0]], rtol=1e-6)


def test_rows_are_outputs_and_columns_are_inputs():
    x = np.array([0.5, -1.0], np.float64)
    (t,), (n,) = dg.test.compute_gradient(lambda x: dg.stack([x[0] * x[1], x[0], x[1] * 3.0]),
                                          [x])
    expected = [[-1.0, 0.5], [1.0, 0.0], [0.0, 3.0]]
    np.testing.assert_allclose(t, expected)
    np.testing.assert_allclose(n, expected, atol=1e-9)


def test_elementwise_is_diagonal_float32_default_delta():
    x = np.array([0.1, 0.7, -0.3], np.float32)
    (t,), (n,) = dg.test.compute_gradient(dg.sin, [x])
    np.testing.assert_allclose(t, np.diag(np.cos(x)), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(n, t, atol=2e-3)
    assert t.dtype == np.float32 and n.dtype == np.float32


def test_complex_counts_as_two_reals():
    c = dg.constant(1 + 2j, dtype=dg.complex64)
    x = dg.constant([3 + 4j], dtype=dg.complex64)
    (t,), (n,) = dg.test.compute_gradient(lambda x: c * x, [x])
    # recorded from TF 2.21
    np.testing.assert_allclose(t, [[1.0, -2.0], [2.0, 1.0]])
    np.testing.assert_allclose(n, [[1.0, -2.0], [2.0, 1.0]], atol=1e-3)
    assert t.dtype == np.float32


def test_gather_slices_scatter_into_rows():
    params = np.arange(6.0).reshape(3, 2)
    (t,), (n,) = dg.test.compute_gradient(lambda p: dg.gather(p, [2, 0, 2]), [params])
    assert t.shape == (6, 6)
    np.testing.assert_allclose(t, n, atol=1e-9)
    assert t[0, 4] == 1.0 and t[4, 4] == 1.0 and t[2, 0] == 1.0


def test_unconnected_input_gives_zeros():
    t, n = dg.test.compute_gradient(lambda x, u: x * x, [np.array([2.0]), np.array([1.0, 1.0])])
    np.testing.assert_allclose(t[0], [[4.0]])
    assert t[1].shape == (1, 2) and not t[1].any() and not n[1].any()


def test_empty_output_shapes_and_errors():
    x = np.array([[1.0, 2.0, 3.0]])
    (t,), (n,) = dg.test.compute_gradient(lambda x: dg.matmul(x, dg.zeros([3, 0], dg.float64)),
                                          [x])
    assert t.shape == (0, 3) and n.shape == (0, 3)   # TF 2.21: (0, 3)

    @dg.custom_gradient
    def nonzero_grad(x):
        return dg.zeros([0]), lambda dy: dg.ones([2])

    with pytest.raises(ValueError, match="Empty tensor with nonzero gradients"):
        dg.test.compute_gradient(nonzero_grad, [np.zeros([2], np.float32)])

    @dg.custom_gradient
    def misshapen_grad(x):
        return dg.zeros([0]), lambda dy: dg.zeros([3])

    with pytest.raises(ValueError, match="Empty gradient has wrong shape"):
        dg.test.compute_gradient(misshapen_grad, [np.zeros([2], np.float32)])


def test_needs_a_list_or_tuple_and_a_float_dtype():
    with pytest.raises(ValueError, match="list or tuple"):
        dg.test.compute_gradient(dg.sin, np.array([1.0]))
    with pytest.raises(AssertionError, match="unsupported type int32"):
        dg.test.compute_gradient(lambda x: x * 2, [np.array([1], np.int32)])


def test_graph_mode_uses_the_default_session():
    with dg.Graph().as_default(), dg.Session().as_default():
        x = dg.constant([1.0, 2.0], dtype=dg.float64)
        (t,), (n,) = dg.test.compute_gradient(lambda x: x * x * 3.0, (x,))
    np.testing.assert_allclose(t, [[6.0, 0.0], [0.0, 12.0]])
    np.testing.assert_allclose(n, t, atol=1e-6)


def test_graph_mode_without_a_session_is_an_error():
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match="default Session"):
            dg.test.compute_gradient(dg.sin, [dg.constant([1.0])])


def _v1_graph():
    x = dg.compat.v1.placeholder(dg.float64, [2])
    y = dg.stack([x[0] * x[1], dg.sin(x[0]) * 3.0, x[1]])
    return x, y


def test_v1_compute_gradient_is_x_size_by_y_size():
    with dg.Graph().as_default(), dg.compat.v1.Session():
        x, y = _v1_graph()
        t, n = dg.compat.v1.test.compute_gradient(x, [2], y, [3], x_init_value=np.array([1.0, 2.0]))
        error = dg.compat.v1.test.compute_gradient_error(x, [2], y, [3],
                                                         x_init_value=np.array([1.0, 2.0]))
        pairs = dg.compat.v1.test.compute_gradient([x], [[2]], y, [3],
                                                   x_init_value=[np.array([1.0, 2.0])])
    # recorded from TF 2.21 (tf.compat.v1.test.compute_gradient)
    expected = [[2.0, 3 * np.cos(1.0), 0.0], [1.0, 0.0, 1.0]]
    np.testing.assert_allclose(t, expected)
    np.testing.assert_allclose(n, expected, atol=1e-6)
    assert error < 1e-6
    assert isinstance(pairs, list) and len(pairs) == 1
    np.testing.assert_allclose(pairs[0][0], expected)


def test_v1_spelling_through_dg_test_and_random_init():
    with dg.Graph().as_default(), dg.compat.v1.Session():
        x, y = _v1_graph()
        t, n = dg.test.compute_gradient(x, [2], y, [3])    # TF1's signature: TF1's checker
        assert dg.test.compute_gradient_error(x, [2], y, [3]) < 1e-6
    assert t.shape == (2, 3)
    np.testing.assert_allclose(t, n, atol=1e-6)


def test_graph_mode_segment_prod_gradient_needs_bool_fills():
    """TF's math_grad_test SegmentProd case in graph mode (bool ones_like of a dynamic shape)."""
    with dg.Graph().as_default(), dg.Session().as_default() as sess:
        data = dg.constant([[0, 2, 3, 4], [0, 0, 2, 0], [5, 0, 7, 0]], dtype=dg.float32)
        ids = dg.constant([0, 0, 1], dtype=dg.int64)
        t, n = dg.test.compute_gradient(lambda x: dg.math.segment_prod(x, ids), [data])
        p = dg.placeholder(dg.float32, [None])
        ones, zeros = sess.run([dg.ones_like(p, dtype=dg.bool), dg.zeros(dg.shape(p), dg.bool)],
                               {p: [1.0, 2.0]})
    assert max(abs(t[0] - n[0]).ravel()) < 2e-4
    assert ones.tolist() == [True, True] and zeros.tolist() == [False, False]
