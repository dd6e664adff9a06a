"""The gradient checkers perturb the input whatever its NumPy memory layout.

A Fortran-ordered, strided or 0-d input must give the same Jacobians as its
C-ordered copy: rows and columns index elements in row-major order, as
TensorFlow's (values recorded from TF 2.21 on the same inputs).
"""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

WEIGHTS = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def _layouts():
    base = np.arange(6.0).reshape(2, 3)
    strided = (np.arange(12.0).reshape(2, 6) / 2.0)[:, ::2]   # [[0,1,2],[3,4,5]], a strided view
    return {"fortran": np.asfortranarray(base), "strided": strided}


def _cube(a):
    return a * a * a


def _weighted_sum(a):
    return dg.reduce_sum(a * WEIGHTS)


@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_eager_numeric_jacobian_follows_row_major_order(layout):
    x = _layouts()[layout]
    assert not x.flags["C_CONTIGUOUS"]
    (t,), (n,) = dg.test.compute_gradient(_cube, [x])
    # TF 2.21, Fortran input: diagonal [0, 3, 12, 27, 48, 75] on both sides
    expected = np.diag(3.0 * np.arange(6.0) ** 2)
    np.testing.assert_allclose(t, expected)
    np.testing.assert_allclose(n, expected, atol=1e-5)
    (t,), (n,) = dg.test.compute_gradient(_weighted_sum, [x])
    np.testing.assert_allclose(t, [WEIGHTS.ravel()])
    np.testing.assert_allclose(n, [WEIGHTS.ravel()], atol=1e-9)


@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_graph_numeric_jacobian_follows_row_major_order(layout):
    x = _layouts()[layout]
    with dg.Graph().as_default(), dg.Session().as_default():
        (t,), (n,) = dg.test.compute_gradient(_weighted_sum, [x])
    np.testing.assert_allclose(t, [WEIGHTS.ravel()])
    np.testing.assert_allclose(n, [WEIGHTS.ravel()], atol=1e-9)


def test_fortran_complex_input_counts_real_and_imaginary_parts():
    x = np.asfortranarray(np.arange(6.0).reshape(2, 3) + 1j * np.ones((2, 3)))
    (t,), (n,) = dg.test.compute_gradient(lambda a: a * a, [x])
    # recorded from TF 2.21: the top-left 4x4 block of both Jacobians
    block = [[0.0, -2.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, -2.0],
             [0.0, 0.0, 2.0, 2.0]]
    np.testing.assert_allclose(t[:4, :4], block)
    np.testing.assert_allclose(n[:4, :4], block, atol=1e-6)
    np.testing.assert_allclose(n, t, atol=1e-6)


def test_zero_d_input():
    (t,), (n,) = dg.test.compute_gradient(_cube, [np.array(2.0)])
    np.testing.assert_allclose(t, [[12.0]])
    np.testing.assert_allclose(n, [[12.0]], atol=1e-5)


@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_v1_checker_with_non_c_ordered_init_value(layout):
    x_init = _layouts()[layout]
    with dg.Graph().as_default(), dg.compat.v1.Session():
        p = dg.compat.v1.placeholder(dg.float64, [2, 3])
        t, n = dg.compat.v1.test.compute_gradient(p, [2, 3], p * p, [2, 3], x_init_value=x_init)
        s = dg.reduce_sum(p * WEIGHTS)
        tw, nw = dg.compat.v1.test.compute_gradient(p, [2, 3], s, [], x_init_value=x_init)
    # TF 2.21 (Fortran init value): diagonal [0, 2, 4, 6, 8, 10] on both sides
    np.testing.assert_allclose(t, np.diag(2.0 * np.arange(6.0)))
    np.testing.assert_allclose(n, np.diag(2.0 * np.arange(6.0)), atol=1e-9)
    np.testing.assert_allclose(tw, WEIGHTS.reshape(6, 1))
    np.testing.assert_allclose(nw, WEIGHTS.reshape(6, 1), atol=1e-9)


def test_v1_checker_zero_d():
    with dg.Graph().as_default(), dg.compat.v1.Session():
        p = dg.compat.v1.placeholder(dg.float64, [])
        t, n = dg.compat.v1.test.compute_gradient(p, [], p * p * p, [], x_init_value=np.array(2.0))
    np.testing.assert_allclose(t, [[12.0]])
    np.testing.assert_allclose(n, [[12.0]], atol=1e-5)


def test_bfloat16_jacobians_are_bfloat16_with_tensorflows_values():
    """TF 2.21: bfloat16 inputs perturbed in bfloat16, differences taken in float32, both
    Jacobians returned as bfloat16 (tf.test.compute_gradient; gradient_checker_v2_test's
    testBfloat16)."""
    import ml_dtypes
    x2 = dg.constant(3.0, dtype="bfloat16")
    theoretical, numerical = dg.test.compute_gradient(lambda a: dg.add(a, x2),
                                                      [dg.constant(2.0, dtype="bfloat16")],
                                                      delta=0.1)
    assert theoretical[0].dtype == ml_dtypes.bfloat16 == numerical[0].dtype
    assert theoretical[0].astype(float).tolist() == [[1.0]]
    assert numerical[0].astype(float).tolist() == [[0.9375]]
    x = dg.constant([[1.5, -2.0]], dtype="bfloat16")
    theoretical, numerical = dg.test.compute_gradient(lambda a: a * a, [x], delta=0.05)
    assert theoretical[0].astype(float).tolist() == [[3.0, 0.0], [0.0, -4.0]]
    assert numerical[0].astype(float).tolist() == [[2.8125, 0.0], [0.0, -3.75]]
