"""A fed placeholder used as a control dependency keeps its feed in a Session
(TF 2.21: the fed op is replaced by its feed, control edges included)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def test_scan_and_map_fn_under_control_dependencies_on_fed_placeholders():
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float32, [3])
        q = dg.compat.v1.placeholder(dg.float32, [])
        with dg.control_dependencies([p]):
            s = dg.scan(lambda a, x: a + x, p)
        with dg.control_dependencies([q]):
            s2 = dg.scan(lambda a, x: a + x * q, dg.constant([1.0, 2.0, 3.0]))
            m = dg.map_fn(lambda x: x * 2, dg.constant([1.0, 2.0]))
            c = dg.cond(dg.constant(True), lambda: dg.constant(1.0), lambda: dg.constant(2.0))
            ident = dg.identity(dg.constant(4.0))
        feed = {p: [1.0, 2.0, 3.0], q: 2.0}
        with dg.compat.v1.Session() as sess:
            # recorded from TF 2.21
            np.testing.assert_allclose(sess.run(s, feed), [1.0, 3.0, 6.0])
            np.testing.assert_allclose(sess.run(s2, feed), [1.0, 5.0, 11.0])
            np.testing.assert_allclose(sess.run(m, feed), [2.0, 4.0])
            assert sess.run(c, feed) == 1.0 and sess.run(ident, feed) == 4.0


def test_an_unfed_placeholder_control_dependency_still_asks_for_its_feed():
    with dg.Graph().as_default():
        q = dg.compat.v1.placeholder(dg.float32, [])
        with dg.control_dependencies([q]):
            ident = dg.identity(dg.constant(4.0))
        with dg.compat.v1.Session() as sess:
            with pytest.raises(dg.errors.InvalidArgumentError, match="must feed a value"):
                sess.run(ident)
