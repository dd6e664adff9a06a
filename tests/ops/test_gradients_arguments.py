"""dg.gradients takes its arguments as tf.gradients does (tensor, list or tuple), and
differentiates reductions of placeholders of unknown rank (values checked by hand)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def _graph():
    x = dg.placeholder(dg.float32, [3])
    y = x * 2.0
    return x, y, y * y


@pytest.mark.parametrize("wrap", [lambda t: t, lambda t: [t], lambda t: (t,)])
def test_every_argument_as_tensor_list_or_tuple(wrap):
    with dg.Graph().as_default():
        x, y, z = _graph()
        (stopped,) = dg.gradients(wrap(z), wrap(x), stop_gradients=wrap(y))
        (dx,) = dg.gradients(wrap(z), wrap(x), grad_ys=wrap(dg.constant([1.0, 2.0, 3.0])))
        with dg.Session() as sess:
            value = sess.run(dx, {x: [1.0, 1.0, 1.0]})
    assert stopped is None   # TF 2.21: [None] for a single stop tensor too
    np.testing.assert_allclose(value, [8.0, 16.0, 24.0])   # 8 x * grad_ys


def test_bad_arguments_raise_tensorflow_errors():
    with dg.Graph().as_default():
        x, y, z = _graph()
        with pytest.raises(ValueError, match="grad_ys"):
            dg.gradients([z, y], x, grad_ys=[dg.ones([3])])
        with pytest.raises(TypeError):
            dg.gradients(z, x, grad_ys=dg.ones([3], dg.int32))
        with pytest.raises(ValueError):
            dg.gradients(z, x, grad_ys=dg.ones([4]))
        assert dg.gradients(z, dg.constant(3.0)) == [None]   # TF 2.21: [None]


@pytest.mark.parametrize("reduce, expected", [
    (dg.reduce_sum, lambda v: np.ones_like(v)),
    (dg.reduce_mean, lambda v: np.full_like(v, 1.0 / v.size)),
    (dg.reduce_prod, lambda v: np.prod(v) / v),
    (dg.reduce_logsumexp, lambda v: np.exp(v) / np.exp(v).sum()),
])
def test_full_reductions_of_unknown_rank(reduce, expected):
    value = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with dg.Graph().as_default():
        u = dg.placeholder(dg.float32, None)
        (du,) = dg.gradients(reduce(u), u)
        (du_kept,) = dg.gradients(dg.reduce_sum(u, axis=[-1], keepdims=False), u)
        with dg.Session() as sess:
            got, kept = sess.run([du, du_kept], {u: value})
    assert du.shape.rank is None
    np.testing.assert_allclose(got, expected(value), rtol=1e-6)
    np.testing.assert_allclose(kept, np.ones_like(value))
