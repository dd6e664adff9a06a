"""In a graph, a fetched reshape/slice/broadcast of a fed array must not alias the feed
(TF copies feeds into tensors). Before, Session.run returned a NumPy view of the caller's
array, so dg.test.compute_gradient's numerical Jacobian (which perturbs its buffer in
place between runs) came out all zeros for reshape, slice and broadcast_to."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def test_a_fetch_does_not_change_when_the_fed_array_is_written_later():
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float64, [3])
        fetches = [dg.reshape(p, [3, 1]), p, p[1:]]
        with dg.compat.v1.Session() as sess:
            fed = np.array([1.0, 2.0, 3.0])
            reshaped, same, sliced = sess.run(fetches, {p: fed})
            fed[:] = 9.0
            # TF 2.21 (tf.compat.v1.Session): [[1], [2], [3]], [9, 9, 9] (a fetched
            # placeholder is the fed array itself) and [2, 3]
            assert reshaped.tolist() == [[1.0], [2.0], [3.0]]
            assert same.tolist() == [9.0, 9.0, 9.0]
            assert sliced.tolist() == [2.0, 3.0]


CASES = {
    # (f of x given the captured graph constants, the Jacobian TF 2.21 reports)
    "reshape": (lambda x, c: dg.reshape(x, c["shape"]), np.eye(3)),
    "slice": (lambda x, c: dg.slice(x, c["begin"], c["size"]), np.array([[0.0, 1.0, 0.0]])),
    "broadcast_to": (lambda x, c: dg.broadcast_to(x, c["to"]), np.vstack([np.eye(3)] * 2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compute_gradient_in_a_graph_with_captured_shape_tensors(name):
    f, expected = CASES[name]
    with dg.Graph().as_default(), dg.compat.v1.Session():
        captured = {"shape": dg.constant([3, 1], dtype=dg.int64),
                    "begin": dg.constant([1], dtype=dg.int64),
                    "size": dg.constant([1], dtype=dg.int64),
                    "to": dg.constant([2, 3], dtype=dg.int32)}
        x = dg.constant([1.0, 2.0, 3.0], dtype=dg.float64)
        (theoretical,), (numerical,) = dg.test.compute_gradient(lambda v: f(v, captured), [x])
    np.testing.assert_allclose(theoretical, expected)
    np.testing.assert_allclose(numerical, expected, atol=1e-9)
