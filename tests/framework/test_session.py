"""Session.run: fetch structures, feeds, errors, plan caching, memory release."""
import gc
import weakref

import numpy as np
import pytest

import duograd as dg


@pytest.fixture
def graph():
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float32, [None, 2], name="x")
        y = x * 2.0
        z = dg.reduce_sum(y)
    return g, x, y, z


def test_nested_fetches(graph):
    g, x, y, z = graph
    feed = {x: np.ones((3, 2), np.float32)}
    with dg.Session(graph=g) as sess:
        out = sess.run({"a": [y, (z, y.op)], "b": z}, feed)
        assert set(out) == {"a", "b"}
        assert out["a"][1][1] is None and out["b"] == 12.0
        np.testing.assert_array_equal(out["a"][0], 2 * np.ones((3, 2)))
        assert isinstance(out["a"][1], tuple)
        assert sess.run("x:0", feed).shape == (3, 2)
        assert sess.run(z.name, feed) == 12.0


def test_feed_checks_name_the_placeholder(graph):
    g, x, y, z = graph
    sess = dg.Session(graph=g)
    with pytest.raises(ValueError, match="x:0"):
        sess.run(z, {x: np.ones((3, 3), np.float32)})
    with pytest.raises(ValueError, match="x:0"):  # TF 2.21: ValueError for strings
        sess.run(z, {x: np.full((1, 2), "a")})
    with pytest.raises(dg.errors.InvalidArgumentError, match="placeholder tensor 'x'"):
        sess.run(z)
    assert sess.run(z, {x: [[1, 2]]}) == 6.0  # ints convert to the placeholder's float32


def test_intermediate_can_be_fed(graph):
    g, x, y, z = graph
    assert dg.Session(graph=g).run(z, {y: np.full((2, 2), 5.0, np.float32)}) == 20.0


def test_kernel_errors_are_invalid_argument_naming_the_op():
    g = dg.Graph()
    with g.as_default():
        a = dg.placeholder(dg.float32, [None])
        b = dg.placeholder(dg.float32, [None])
        c = dg.add(a, b, name="my_add")
    with pytest.raises(dg.errors.InvalidArgumentError, match="my_add"):
        dg.Session(graph=g).run(c, {a: np.ones(2), b: np.ones(3)})


def test_eager_kernel_errors_are_invalid_argument():
    with pytest.raises(dg.errors.InvalidArgumentError, match="AddV2"):
        dg.constant([1.0, 2.0]) + dg.constant([1.0, 2.0, 3.0])


def test_plans_are_cached_per_fetches_and_feeds(graph):
    g, x, y, z = graph
    sess = dg.Session(graph=g)
    feed = {x: np.ones((1, 2), np.float32)}
    sess.run(z, feed)
    sess.run(z, feed)
    sess.run([z, y], feed)
    assert len(sess._plans) == 2


def test_intermediates_are_released_after_their_last_use():
    released = []

    class Watched(np.ndarray):
        pass

    def make(x):
        out = np.asarray(x * 3.0).view(Watched)
        weakref.finalize(out, released.append, True)
        return out

    from duograd.framework.op_def import declare_op
    from duograd.framework.registry import op_defs
    from duograd.ops.dispatch import apply_op
    from duograd.ops.shape_rules import same_as_input
    triple = declare_op("TestTripleForRelease", make, same_as_input)
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float64, [3])
        t = apply_op(triple, (x,))
        big = dg.reduce_sum(t)
        out = big + 1.0

        def check_released(value):
            gc.collect()
            assert released, "the intermediate was still alive when the next op ran"
            return value

        probe = declare_op("TestProbeRelease", check_released, same_as_input)
        result = apply_op(probe, (out,))
    try:
        assert dg.Session(graph=g).run(result, {x: np.ones(3)}) == 10.0
    finally:   # scratch ops: the op-table test checks that every declared op has a row
        op_defs.unregister("TestTripleForRelease")
        op_defs.unregister("TestProbeRelease")


def test_closed_session_and_context_manager(graph):
    g, x, y, z = graph
    with dg.Session(graph=g) as sess:
        assert dg.get_default_graph() is g
        assert z.eval({x: np.ones((1, 2))}) == 4.0
    with pytest.raises(RuntimeError):
        sess.run(z, {x: np.ones((1, 2))})


def test_plans_reuse_dead_ufunc_temporaries_in_place():
    """A chain of elementwise ops writes each result into the dead temporary before it
    (NumPy's temporary elision, decided when the plan is compiled): peak memory of a
    run is two arrays (the result, written over the chain's first temporary, and
    tanh(a)), where fresh results would make it three."""
    import tracemalloc
    g = dg.Graph()
    with g.as_default():
        a = dg.placeholder(dg.float64, [512, 512])
        out = dg.exp(dg.cos(dg.sin(a) * 2.0) + 1.0) - dg.tanh(a)
    session = dg.Session(graph=g)
    value = np.random.default_rng(0).standard_normal((512, 512))
    expected = np.exp(np.cos(np.sin(value) * 2.0) + 1.0) - np.tanh(value)
    session.run(out, {a: value})
    tracemalloc.start()
    try:
        got = session.run(out, {a: value})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(got, expected)
    assert peak < 2.5 * value.nbytes


def test_plans_never_reuse_a_temporary_another_kind_of_op_reads():
    """A reshape (a view) or a TensorArray may hold on to a temporary after its last
    use in the plan: such a temporary is never written in place."""
    g = dg.Graph()
    with g.as_default():
        a = dg.placeholder(dg.float64, [4])
        t = dg.sin(a)
        view = dg.reshape(t, [2, 2])
        doubled = t * 2.0
        later = dg.reshape(view, [4]) + doubled
    value = np.array([0.1, 0.2, 0.3, 0.4])
    got_view, got_later = dg.Session(graph=g).run([view, later], {a: value})
    np.testing.assert_array_equal(got_view, np.sin(value).reshape(2, 2))
    np.testing.assert_array_equal(got_later, np.sin(value) * 3.0)
