"""softmax / log_softmax with a tensor `axis`, and out-of-range axes, as TF 2.21."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = [[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]
# recorded from TF 2.21
SOFTMAX_AXIS0 = [[0.5, 0.73105854, 0.880797], [0.5, 0.26894143, 0.11920291]]
LOG_SOFTMAX_AXIS0 = [[-0.6931472, -0.31326166, -0.12692805], [-0.6931472, -1.3132616, -2.126928]]


def test_eager_tensor_axis():
    x = dg.constant(X)
    np.testing.assert_allclose(dg.nn.softmax(x, axis=dg.constant(0)).numpy(), SOFTMAX_AXIS0,
                               rtol=1e-6)
    np.testing.assert_allclose(dg.nn.log_softmax(x, axis=dg.constant(0)).numpy(),
                               LOG_SOFTMAX_AXIS0, rtol=1e-6)
    last = dg.nn.softmax(x, axis=dg.constant(-1, dg.int64)).numpy()
    np.testing.assert_allclose(last, [[0.09003057, 0.24472848, 0.6652409], [1 / 3] * 3], rtol=1e-6)


def test_gradient_through_a_tensor_axis():
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.nn.softmax(x, axis=dg.constant(0)) * dg.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),   # TF 2.21
                               [[-0.75, -0.5898357, -0.31498078], [0.75, 0.5898358, 0.31498072]],
                               rtol=1e-5)


def test_constant_tensor_axis_in_a_graph():
    with dg.Graph().as_default():
        y = dg.nn.softmax(dg.constant(X), axis=dg.constant(0))
        assert y.shape == (2, 3)
        with dg.compat.v1.Session() as sess:
            np.testing.assert_allclose(sess.run(y), SOFTMAX_AXIS0, rtol=1e-6)


def test_tensor_axis_inside_a_function_is_refused_as_tf():
    @dg.function
    def f(x, a):
        return dg.nn.softmax(x, axis=a)

    with pytest.raises(dg.errors.OperatorNotAllowedInGraphError):   # TF 2.21
        f(dg.constant(X), dg.constant(0))


@pytest.mark.parametrize("axis", [2, -3, dg.constant(5)])
def test_out_of_range_axis(axis):
    dim = int(axis) if not isinstance(axis, dg.Tensor) else 5
    message = (r"`dim` must be in the range \[-2, 2\) where 2 is the number of dimensions in "
               rf"the input. Received: dim={dim}")
    with pytest.raises(dg.errors.InvalidArgumentError, match=message):
        dg.nn.softmax(dg.constant(X), axis=axis)
    if not isinstance(axis, dg.Tensor):
        with dg.Graph().as_default():
            with pytest.raises(dg.errors.InvalidArgumentError, match=message):
                dg.nn.log_softmax(dg.constant(X), axis=axis)


def test_float_axis_is_invalid_argument():
    # TF 2.21 feeds the axis to a Range op, whose kernel rejects a float
    for axis in (0.5, dg.constant(3.0)):
        with pytest.raises(dg.errors.InvalidArgumentError):
            dg.nn.softmax(dg.constant(X), axis=axis)
    with pytest.raises(ValueError):   # a non-scalar tensor: TF's truth test, ValueError
        dg.nn.softmax(dg.constant(X), axis=dg.constant([[1, 2], [3, 4]]))
