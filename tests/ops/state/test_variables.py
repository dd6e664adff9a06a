"""dg.Variable in both modes: values, assignments, scatters, errors, gradients."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def _graph_run(build):
    """Builds, initialises, then runs each fetch of `build()` in turn."""
    g = dg.Graph()
    with g.as_default():
        fetches = build()
        with dg.Session(graph=g) as sess:
            sess.run(dg.global_variables_initializer())
            return [sess.run(f) for f in fetches]


# -- eager ------------------------------------------------------------------
def test_eager_properties_and_conversion():
    v = dg.Variable([1.0, 2.0], name="v", trainable=False)
    assert (v.name, v.shape, v.dtype, v.trainable) == ("v:0", dg.TensorShape([2]), dg.float32,
                                                       False)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    np.testing.assert_array_equal((v * 2.0).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal((3.0 - v).numpy(), [2.0, 1.0])
    np.testing.assert_array_equal(dg.convert_to_tensor(v).numpy(), [1.0, 2.0])
    assert dg.Variable(3, dtype=dg.float64).dtype == dg.float64
    assert dg.Variable(lambda: dg.ones([2, 2])).shape == [2, 2]
    with pytest.raises(ValueError, match="Incompatible type conversion"):
        dg.convert_to_tensor(v, dtype=dg.int32)


def test_eager_assign_family_and_old_reads_unchanged():
    v = dg.Variable([1.0, 2.0, 3.0])
    before = v.read_value()
    assert v.assign([4.0, 5.0, 6.0]) is v
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0, 3.0])
    v.assign_add([1.0, 1.0, 1.0])
    v.assign_sub(dg.constant([0.5, 0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [4.5, 5.5, 6.5])
    assert v.assign([0.0, 0.0, 0.0], read_value=False) is None
    v.scatter_add(dg.IndexedSlices(dg.constant([1.0, 2.0, 4.0]), dg.constant([0, 2, 0])))
    np.testing.assert_array_equal(v.numpy(), [5.0, 0.0, 2.0])
    v.scatter_sub(dg.IndexedSlices(dg.constant([1.0]), dg.constant([1])))
    np.testing.assert_array_equal(v.numpy(), [5.0, -1.0, 2.0])


def test_eager_assign_errors():
    v = dg.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="requested dtype float32"):
        v.assign(dg.constant([1, 2]))
    with pytest.raises(dg.errors.InvalidArgumentError, match="out of range"):
        v.scatter_add(dg.IndexedSlices(dg.constant([1.0]), dg.constant([5])))


# -- graph ------------------------------------------------------------------
def test_graph_uninitialized_read_is_failed_precondition_naming_variable():
    g = dg.Graph()
    with g.as_default():
        v = dg.Variable([1.0], name="weights")
        y = v * 2.0
        with dg.Session() as sess:
            with pytest.raises(dg.errors.FailedPreconditionError, match="weights"):
                sess.run(y)
            assert not sess.run(v.is_initialized())
            sess.run(dg.variables_initializer([v]))
            assert sess.run(v.is_initialized())
            np.testing.assert_array_equal(sess.run(y), [2.0])


def test_graph_names_properties_and_numpy_refused():
    g = dg.Graph()
    with g.as_default():
        a = dg.Variable(1.0, name="a")
        b = dg.Variable(1.0, name="a")
        assert (a.name, b.name) == ("a:0", "a_1:0")
        assert a.handle.dtype == dg.resource and a.op.type == "VarHandleOp"
        assert dg.global_variables() == [a, b]
        with pytest.raises(NotImplementedError):
            a.numpy()
    with pytest.raises(TypeError, match="created in a graph"):
        a.read_value()


def test_graph_assign_family_returns_groupable_values():
    def build():
        v = dg.Variable([1.0, 2.0, 3.0])
        a = v.assign([4.0, 5.0, 6.0])
        with dg.control_dependencies([a]):
            b = v.assign_add([1.0, 1.0, 1.0])
        with dg.control_dependencies([b]):
            c = v.assign_sub([0.5, 0.5, 0.5])
        with dg.control_dependencies([c]):
            d = v.scatter_add(dg.IndexedSlices(dg.constant([1.0, 1.0]), dg.constant([0, 0])))
        with dg.control_dependencies([d]):
            e = v.scatter_sub(dg.IndexedSlices(dg.constant([2.0]), dg.constant([2])))
        op = v.assign([0.0, 0.0, 0.0], read_value=False)
        assert isinstance(op, dg.Operation)
        dg.group(a, op)
        return [e, v]
    e, v = _graph_run(build)
    np.testing.assert_array_equal(e, [6.5, 5.5, 4.5])
    np.testing.assert_array_equal(v, [6.5, 5.5, 4.5])


def test_graph_values_live_in_each_session():
    g = dg.Graph()
    with g.as_default():
        v = dg.Variable(1.0)
        inc = v.assign_add(1.0)
        init = dg.global_variables_initializer()
    with dg.Session(graph=g) as s1, dg.Session(graph=g) as s2:
        s1.run(init)
        s2.run(init)
        s1.run(inc)
        s1.run(inc)
        assert (s1.run(v), s2.run(v)) == (3.0, 1.0)


def test_graph_runtime_shape_error_is_invalid_argument():
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float32, [None])
        v = dg.Variable([1.0, 2.0])
        a = v.assign(p)
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            with pytest.raises(dg.errors.InvalidArgumentError, match="AssignVariableOp"):
                sess.run(a, {p: [1.0, 2.0, 3.0]})


def test_variables_in_session_fetches_and_feeds():
    g = dg.Graph()
    with g.as_default():
        v = dg.Variable([[1.0, 2.0]])
        w = dg.Variable(3.0)
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            out = sess.run({"v": v, "pair": (w, v * w)})
            np.testing.assert_array_equal(out["v"], [[1.0, 2.0]])
            np.testing.assert_array_equal(out["pair"][1], [[3.0, 6.0]])
            np.testing.assert_array_equal(sess.run(v, {v: [[7.0, 8.0]]}), [[7.0, 8.0]])
            np.testing.assert_array_equal(sess.run(v), [[1.0, 2.0]])  # a feed is per run
            assert v.eval(session=sess).tolist() == [[1.0, 2.0]]


def test_eager_initializer_functions_return_none():
    v = dg.Variable(1.0)
    assert dg.global_variables_initializer() is None
    assert dg.variables_initializer([v]) is None


# -- mixing modes -----------------------------------------------------------
def test_eager_variable_read_in_graph_sees_live_value_and_is_differentiable():
    v = dg.Variable([1.0, 2.0])
    g = dg.Graph()
    with g.as_default():
        y = dg.reduce_sum(v * v)
        (dv,) = dg.gradients(y, [v])
        inc = v.assign_add([1.0, 1.0])
        with dg.Session() as sess:
            assert sess.run(y) == 5.0
            np.testing.assert_array_equal(sess.run(dv), [2.0, 4.0])
            sess.run(inc)
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


def test_graph_variable_in_another_graph_is_an_error():
    g1, g2 = dg.Graph(), dg.Graph()
    with g1.as_default():
        v = dg.Variable(1.0)
    with g2.as_default():
        with pytest.raises(ValueError, match="same graph"):
            v + 1.0


# -- gradients ----------------------------------------------------------------
def test_graph_gradients_wrt_variables():
    g = dg.Graph()
    with g.as_default():
        w = dg.Variable([[1.0, 2.0], [3.0, 4.0]])
        b = dg.Variable([0.5, -0.5])
        unused = dg.Variable([1.0, 1.0, 1.0])
        x = dg.constant([[1.0, 1.0]])
        loss = dg.reduce_sum(dg.square(dg.matmul(x, w) + b)) + dg.reduce_sum(w)
        dw, db, du = dg.gradients(loss, [w, b, unused])
        assert du is None
        (dz,) = dg.gradients(loss, [unused], unconnected_gradients="zero")
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            dw_v, db_v, dz_v = sess.run([dw, db, dz])
    z = np.array([[1.0, 1.0]]) @ np.array([[1.0, 2.0], [3.0, 4.0]]) + [0.5, -0.5]
    np.testing.assert_allclose(db_v, 2 * z[0])
    np.testing.assert_allclose(dw_v, np.ones((2, 1)) @ (2 * z) + 1)
    assert dz_v.shape == (3,) and dz_v.dtype == np.float32 and not dz_v.any()


@pytest.mark.parametrize("watch_accessed", [True, False])
def test_tape_watches_variables_on_read(watch_accessed):
    v = dg.Variable([1.0, 2.0])
    frozen = dg.Variable([3.0, 4.0], trainable=False)
    with dg.GradientTape(watch_accessed_variables=watch_accessed) as tape:
        y = dg.reduce_sum(v * v * frozen)
    dv, df = tape.gradient(y, [v, frozen])
    assert df is None
    if watch_accessed:
        np.testing.assert_array_equal(dv.numpy(), [6.0, 16.0])
        assert tape.watched_variables() == (v,)
    else:
        assert dv is None and tape.watched_variables() == ()


def test_tape_explicit_watch_of_variable_and_second_order():
    v = dg.Variable(3.0, trainable=False)
    with dg.GradientTape(watch_accessed_variables=False) as outer:
        outer.watch(v)
        with dg.GradientTape() as inner:
            inner.watch(v)
            y = v * v * v
        dy = inner.gradient(y, v)
    assert dy.numpy() == 27.0
    assert outer.gradient(dy, v).numpy() == 18.0
    assert outer.watched_variables() == (v,)


def test_tape_variable_gradient_after_assign_and_zero_policy():
    v = dg.Variable(2.0)
    other = dg.Variable([1.0, 2.0])
    with dg.GradientTape() as tape:
        a = v * 1.0
        v.assign(5.0)
        y = a * v
    dv, do = tape.gradient(y, [v, other], unconnected_gradients="zero")
    assert dv.numpy() == 7.0  # d(v1 * v2) through both reads: v2 + v1
    np.testing.assert_array_equal(do.numpy(), [0.0, 0.0])


def test_graph_tape_and_gradients_agree_on_variables():
    w0 = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)

    def loss_of(w):
        return dg.reduce_sum(dg.tanh(dg.matmul(w, w)))
    w = dg.Variable(w0)
    with dg.GradientTape() as tape:
        loss = loss_of(w)
    eager = tape.gradient(loss, w).numpy()
    g = dg.Graph()
    with g.as_default():
        wg = dg.Variable(w0)
        (grad,) = dg.gradients(loss_of(wg), [wg])
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            np.testing.assert_allclose(sess.run(grad), eager, rtol=1e-6)
