"""dg.gather with batch_dims (once silently ignored: a wrong answer) and TF's checks
of its axis, batch_dims and scalar params; values and classes from TF 2.21."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

P = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
I = [[0, 2], [1, 1]]
# recorded from TF 2.21
AXIS1 = [[[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]],
         [[16.0, 17.0, 18.0, 19.0], [16.0, 17.0, 18.0, 19.0]]]
AXIS2 = [[[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]], [[13.0, 13.0], [17.0, 17.0], [21.0, 21.0]]]


@pytest.mark.parametrize("kwargs,expected", [
    ({"axis": 1, "batch_dims": 1}, AXIS1),
    ({"batch_dims": 1}, AXIS1),                 # axis defaults to batch_dims
    ({"axis": 1, "batch_dims": -1}, AXIS1),     # -1 + rank(indices)
    ({"axis": 2, "batch_dims": 1}, AXIS2),
    ({"axis": -1, "batch_dims": 1}, AXIS2),
])
def test_batch_dims_values(kwargs, expected):
    out = dg.gather(dg.constant(P), dg.constant(I), **kwargs)
    np.testing.assert_array_equal(out.numpy(), expected)
    with dg.Graph().as_default():
        g = dg.gather(dg.constant(P), dg.constant(I), **kwargs)
        assert g.shape == np.shape(expected)
        with dg.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(g), expected)


def test_batch_dims_gradients():
    x = dg.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.gather(x, [[2, 0], [1, 1]], axis=1, batch_dims=1) * dg.constant([[1.0, 2.0],
                                                                             [3.0, 4.0]])
    assert tape.gradient(y, x).numpy().tolist() == [[2.0, 0.0, 1.0], [0.0, 7.0, 0.0]]
    p = dg.constant(P)
    with dg.GradientTape() as tape:
        tape.watch(p)
        y = dg.gather(p, [[0, 3, 3], [1, 1, 2]], axis=2, batch_dims=1)
        s = dg.reduce_sum(y * dg.reshape(dg.range(18.0), [2, 3, 3]))
    assert tape.gradient(s, p).numpy().tolist() == [   # TF 2.21
        [[0.0, 0.0, 0.0, 3.0], [3.0, 0.0, 0.0, 9.0], [6.0, 0.0, 0.0, 15.0]],
        [[0.0, 19.0, 11.0, 0.0], [0.0, 25.0, 14.0, 0.0], [0.0, 31.0, 17.0, 0.0]]]
    (t,), (n,) = dg.test.compute_gradient(
        lambda q: dg.gather(q, [[2, 0], [1, 1]], axis=1, batch_dims=1),
        [np.arange(6.0).reshape(2, 3)])
    np.testing.assert_allclose(t, n, atol=1e-6)


def test_bad_batch_dims_and_axes():
    p = dg.constant(P)
    cases = [
        (dict(indices=I, axis=2, batch_dims=3), r"Expected batch_dims in the range \[-2, 2\], "
                                                "but got 3"),
        (dict(indices=[[0], [1], [2]], axis=1, batch_dims=1),
         r"params.shape\[0\]: 2 should be equal to indices.shape\[0\]: 3"),
        (dict(indices=[0], axis=5), "Shape must be at least rank 6 but is rank 3"),
        (dict(indices=[0], axis=-4), "Shape must be at least rank 4 but is rank 3"),
        (dict(indices=[[5], [0]], axis=1, batch_dims=1), "does not index into"),
    ]
    for kwargs, message in cases:
        with pytest.raises(dg.errors.InvalidArgumentError, match=message):
            dg.gather(p, **kwargs)
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be at least rank 6 but is rank 3"):
            dg.gather(dg.constant(P), [0], axis=5)


def test_scalar_params():
    for axis in (0, 1, -1):
        with pytest.raises(dg.errors.InvalidArgumentError,
                           match="params must be at least 1 dimensional"):
            dg.gather(dg.constant(3.0), [0], axis=axis)
        with dg.Graph().as_default():
            with pytest.raises(ValueError, match="params must be at least 1 dimensional"):
                dg.gather(dg.constant(3.0), [0], axis=axis)
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float32, None)
        y = dg.gather(p, [0], axis=0)
        with dg.compat.v1.Session() as sess:
            with pytest.raises(dg.errors.InvalidArgumentError,
                               match="params must be at least 1 dimensional"):
                sess.run(y, {p: 3.0})
