"""dg.nn.crelu: relu of [x, -x] joined along `axis`, with TF 2.21's values and gradient."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

F = [[-1.0, 2.0], [3.0, -4.0]]


def test_values_along_last_and_first_axis():
    f = dg.constant(F)
    assert dg.nn.crelu(f).numpy().tolist() == [[0.0, 2.0, 1.0, 0.0], [3.0, 0.0, 0.0, 4.0]]
    assert dg.nn.crelu(f, axis=0).numpy().tolist() == [[0.0, 2.0], [3.0, 0.0], [1.0, 0.0],
                                                        [0.0, 4.0]]
    ints = dg.nn.crelu(dg.constant([-1, 2]))
    assert ints.dtype == dg.int32 and ints.numpy().tolist() == [0, 2, 1, 0]


def test_gradient_matches_tf_and_numeric():
    f = dg.constant(F)
    with dg.GradientTape() as tape:
        tape.watch(f)
        y = dg.nn.crelu(f) * dg.constant([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    assert tape.gradient(y, f).numpy().tolist() == [[-3.0, 2.0], [5.0, -8.0]]   # TF 2.21
    z = dg.constant([0.0, 1.0])
    with dg.GradientTape() as tape:
        tape.watch(z)
        y = dg.nn.crelu(z)
    assert tape.gradient(y, z).numpy().tolist() == [0.0, 1.0]   # TF 2.21: relu'(0) = 0
    (t,), (n,) = dg.test.compute_gradient(dg.nn.crelu, [np.array([[-1.5, 0.5], [2.0, -0.3]])])
    np.testing.assert_allclose(t, n, atol=1e-6)


def test_graph_shape_and_bad_axis():
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float32, [None, 3])
        assert dg.nn.crelu(p).shape.as_list() == [None, 6]
    with pytest.raises(dg.errors.InvalidArgumentError):   # TF 2.21: InvalidArgumentError
        dg.nn.crelu(dg.constant(F), axis=3)
