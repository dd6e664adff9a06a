"""Gradients of reductions whose input has unknown rank (a placeholder of shape None, a
py_function without a shape): built with dynamic shapes, as TF does.

The expected values were recorded from TF 2.21 (tf.compat.v1 Session, and tf.function
with a GradientTape), for d/dx sum(reduce(x, axis) ** 2).
"""
import numpy as np
import pytest

import duograd as dg

v1 = dg.compat.v1
X = np.array([[1., 2., 3.], [4., -5., 6.]], np.float32)

TF_GRADIENTS = [  # (reduction, axis, value, gradient), TF 2.21
    (dg.reduce_prod, 0, [4., -10., 18.], [[32., 100., 216.], [8., -40., 108.]]),
    (dg.reduce_prod, -1, [6., -120.], [[72., 36., 24.], [7200., -5760., 4800.]]),
    (dg.reduce_prod, [0, 1], -720., [[1036800., 518400., 345600.],
                                     [259200., -207360., 172800.]]),
    (dg.reduce_sum, [0, 1], 11., [[22.] * 3] * 2),
    (dg.reduce_mean, [0, 1], 1.83333, [[0.61111] * 3] * 2),
    (dg.reduce_max, 0, [4., 2., 6.], [[0., 4., 0.], [8., 0., 12.]]),
    (dg.reduce_min, [0, 1], -5., [[0., 0., 0.], [0., -10., 0.]]),
    (dg.reduce_logsumexp, 0, [4.04859, 2.00091, 6.04859],
     [[0.38402, 3.99818, 0.57372], [7.71316, 0.00365, 11.52346]]),
]


@pytest.mark.parametrize("reduce, axis, value, gradient", TF_GRADIENTS)
def test_gradients_of_a_reduction_of_unknown_rank_in_a_session(reduce, axis, value, gradient):
    with dg.Graph().as_default():
        x = v1.placeholder(dg.float32, None)
        y = reduce(x, axis=axis)
        grad = dg.gradients(dg.reduce_sum(y * y), x)[0]
        with v1.Session() as sess:
            y_value, grad_value = sess.run([y, grad], {x: X})
    np.testing.assert_allclose(y_value, value, rtol=1e-5)
    np.testing.assert_allclose(grad_value, gradient, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis, gradient", [  # TF 2.21, x * py_function(x) then reduce_prod
    (0, [[1024., 20000., 139968.], [256., -8000., 69984.]]),
    (-1, [[5184., 2592., 1728.], [207360000., -165888000., 138240000.]]),
])
def test_tape_gradient_of_prod_over_a_py_function_output_in_a_function(axis, gradient):
    @dg.function
    def grad_of_prod(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_prod(dg.py_function(lambda a: a * 1.0, [x], dg.float32) * x, axis=axis)
            assert y.shape.rank is None
            loss = dg.reduce_sum(y * y)
        return tape.gradient(loss, x)
    np.testing.assert_allclose(grad_of_prod(dg.constant(X)).numpy(), gradient, rtol=1e-6)


@pytest.mark.parametrize("axis", [[0, 2], [2, 0], [-1, 1], [1]])
def test_prod_gradients_to_second_order_match_the_known_rank_ones(axis):
    """With a zero in x; the known-rank gradient is the one checked against TF elsewhere."""
    x_value = np.random.RandomState(0).uniform(-2, 2, [2, 3, 4])
    x_value[1, 2, 3] = 0.0
    results = []
    with dg.Graph().as_default():
        for shape in (None, [2, 3, 4]):
            x = v1.placeholder(dg.float64, shape)
            y = dg.reduce_prod(x, axis=axis)
            grad = dg.gradients(dg.reduce_sum(y * y), x)[0]
            grad2 = dg.gradients(dg.reduce_sum(grad * grad), x)[0]
            with v1.Session() as sess:
                results.append(sess.run([grad, grad2], {x: x_value}))
    (unknown, unknown2), (known, known2) = results
    np.testing.assert_allclose(unknown, known, rtol=1e-12)
    np.testing.assert_allclose(unknown2, known2, rtol=1e-12)
    assert np.any(unknown != 0) and np.any(unknown2 != 0)
