"""dg.test.compute_gradient: theoretical vs numerical Jacobians, as tf.test."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def test_compute_gradient_shapes_and_agreement():
    x = np.array([[0.5, -1.0, 2.0]])
    w = np.array([[1.0], [0.5], [-0.25]])
    theoretical, numerical = dg.test.compute_gradient(lambda x, w: dg.tanh(dg.matmul(x, w)),
                                                      [x, w])
    assert [j.shape for j in theoretical] == [(3, 1), (3, 1)]
    assert [j.shape for j in numerical] == [(3, 1), (3, 1)]
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=1e-6, atol=1e-8)


def test_compute_gradient_elementwise_is_diagonal_and_float32_delta():
    x = np.array([0.1, 0.7, -0.3], np.float32)
    (t,), (n,) = dg.test.compute_gradient(dg.sin, [x])
    np.testing.assert_allclose(t, np.diag(np.cos(x)), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(n, t, atol=2e-3)
    assert t.dtype == np.float32


def test_compute_gradient_explicit_delta_and_unconnected_input():
    x, u = np.array([2.0]), np.array([1.0, 1.0])
    t, n = dg.test.compute_gradient(lambda x, u: x * x, [x, u], delta=1e-4)
    np.testing.assert_allclose(t[0], [[4.0]])
    np.testing.assert_allclose(n[0], [[4.0]], rtol=1e-8)
    assert not t[1].any() and not n[1].any() and t[1].shape == (2, 1)


def test_compute_gradient_needs_a_list():
    with pytest.raises(ValueError, match="list or tuple"):
        dg.test.compute_gradient(dg.sin, np.array([1.0]))
