"""dg.compat.v1 as tf.compat.v1 for graph-mode programs (messages and names from TF 2.21)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

v1 = dg.compat.v1


def test_variable_scope_sharing_rules_and_names():
    with dg.Graph().as_default():
        with v1.variable_scope("foo"):
            a = v1.get_variable("v", [2], initializer=v1.constant_initializer(3.0))
            with pytest.raises(ValueError, match="Variable foo/v already exists, disallowed"):
                v1.get_variable("v", [2])
        with v1.variable_scope("foo", reuse=True):
            assert v1.get_variable("v", [2]) is a
            with pytest.raises(ValueError, match="Variable foo/w does not exist"):
                v1.get_variable("w", [2])
            with pytest.raises(ValueError, match=r"specified shape \(3,\) and found shape \(2,\)"):
                v1.get_variable("v", [3])
            with v1.variable_scope("inner") as inner:
                assert inner.name == "foo/inner" and inner.reuse is True
        with v1.variable_scope("foo", reuse=v1.AUTO_REUSE):
            w = v1.get_variable("w", [2], dtype=dg.float64)
            assert v1.get_variable("w", [2], dtype=dg.float64) is w
            with pytest.raises(ValueError, match="specified dtype float32 and found dtype float64"):
                v1.get_variable("w", [2])
        with v1.variable_scope("bar", initializer=v1.ones_initializer()) as bar:
            d = v1.get_variable("d", [2])
            with dg.name_scope("ns"):
                e = v1.get_variable("e", [1])
                assert dg.identity(e).name == "bar/ns/Identity:0"
        with v1.variable_scope(bar, reuse=True):
            assert v1.get_variable("d") is d
        with v1.variable_scope(None, default_name="dflt") as s1:
            pass
        with v1.variable_scope(None, default_name="dflt") as s2:
            pass
        f = v1.get_variable("f", initializer=dg.constant([1.0, 2.0]))
        with pytest.raises(ValueError, match="must be specified"):
            v1.get_variable("h")
        assert (a.name, w.name, d.name, e.name, f.name) == \
            ("foo/v:0", "foo/w:0", "bar/d:0", "bar/e:0", "f:0")
        assert (s1.name, s2.name) == ("dflt", "dflt_1")
        assert v1.get_variable("i", [2, 2]).dtype == dg.float32
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            got = sess.run([a, d, f])
    np.testing.assert_array_equal(got[0], [3.0, 3.0])
    np.testing.assert_array_equal(got[1], [1.0, 1.0])
    np.testing.assert_array_equal(got[2], [1.0, 2.0])


def test_eager_get_variable_always_creates():
    x = v1.get_variable("x_eager", [1])
    y = v1.get_variable("x_eager", [1])
    assert x is not y and x.name == y.name == "x_eager:0"
    bound = 6 ** 0.5 / 2 ** 0.5   # glorot_uniform default: |x| <= sqrt(6 / (1 + 1))
    assert abs(float(x.numpy()[0])) <= bound


def test_graph_program_ports_with_one_substitution():
    with dg.Graph().as_default():
        x = v1.placeholder(dg.float32, [1, 2])
        with v1.variable_scope("layer"):
            w = v1.get_variable("w", [2, 1], initializer=v1.constant_initializer([[1.0], [2.0]]))
        loss = dg.reduce_sum(dg.matmul(x, w) ** 2)
        (dw,) = v1.gradients(loss, [w])
        (h,) = v1.hessians(loss, [x])
        step = v1.assign_sub(w, 0.1 * dw)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            grad, hess = sess.run([dw, h], {x: [[1.0, 1.0]]})
            sess.run(step, {x: [[1.0, 1.0]]})
            after = sess.run(w)
    np.testing.assert_allclose(grad, [[6.0], [6.0]])         # 2 * (x w) * x = 2 * 3 * 1
    np.testing.assert_allclose(hess.reshape(2, 2), [[2.0, 4.0], [4.0, 8.0]])  # 2 w w^T
    np.testing.assert_allclose(after, [[0.4], [1.4]])


def test_interactive_session_and_eager_switch():
    sess = v1.InteractiveSession()
    try:
        c = dg.constant(2.0) * 3.0
        assert dg.get_default_session() is sess and c.eval() == 6.0
    finally:
        sess.close()
    assert dg.executing_eagerly() and dg.get_default_session() is None
    v1.disable_eager_execution()
    try:
        assert not dg.executing_eagerly()
        p = v1.placeholder(dg.float32, [])
        with v1.Session() as s:
            assert s.run(p * 2.0, {p: 4.0}) == 8.0
    finally:
        v1.enable_eager_execution()
    assert dg.executing_eagerly()


def test_compat_namespaces_fall_back_to_dg():
    assert v1.matmul is dg.matmul and v1.nn.relu is dg.nn.relu
    assert dg.compat.v2.GradientTape is dg.GradientTape
    assert v1.test.compute_gradient is not dg.test.compute_gradient
    with pytest.raises(AttributeError):
        v1.no_such_name  # noqa: B018
    assert "get_variable" in dir(v1) and "reduce_sum" in dir(v1)
