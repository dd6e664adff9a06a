"""TF1's graph-training surface in duograd.compat.v1: deprecated argument names,
TF1 random ops and seeds, casts, session configuration, collections, queue-runner
coordination (issue 21 item 2). Messages and values recorded from TF 2.21's
tf.compat.v1 with v2 behaviour disabled."""
import numpy as np
import pytest

import duograd as dg

tf = dg.compat.v1


@pytest.fixture
def graph():
    g = dg.Graph()
    with g.as_default():
        yield g


def test_disable_v2_behavior_builds_graphs():
    tf.disable_v2_behavior()
    try:
        assert not dg.executing_eagerly()
        x = tf.placeholder(dg.float32, [None])
        with tf.Session() as sess:
            assert sess.run(tf.reduce_sum(x, reduction_indices=0), {x: [1., 2.]}) == 3.0
    finally:
        tf.enable_v2_behavior()
    assert dg.executing_eagerly()


def test_reductions_accept_tf1_argument_names(graph):
    x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    with tf.Session() as sess:
        np.testing.assert_array_equal(
            sess.run(tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)), [[6.], [15.]])
        assert sess.run(tf.reduce_mean(x, reduction_indices=None)) == 3.5
        np.testing.assert_array_equal(sess.run(tf.reduce_max(x, 0, keep_dims=False)), [4, 5, 6])
        np.testing.assert_array_equal(sess.run(tf.argmax(x, dimension=1)), [2, 2])
        np.testing.assert_array_equal(sess.run(tf.math.argmin(x, dimension=0)), [0, 0, 0])
    assert tf.reduce_sum(x, reduction_indices=[1], keep_dims=True).shape.as_list() == [2, 1]
    with pytest.raises(ValueError, match=r"^Cannot specify both 'reduction_indices' and 'axis'\.$"):
        tf.reduce_sum(x, axis=1, reduction_indices=1)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'keep_dims' and 'keepdims'\.$"):
        tf.reduce_sum(x, keepdims=True, keep_dims=True)
    with pytest.raises(ValueError, match=r"^Cannot specify both 'dimension' and 'axis'\.$"):
        tf.argmax(x, axis=1, dimension=1)


def test_casts_and_python2_div(graph):
    f = tf.to_float(tf.constant(1))
    assert f.dtype == dg.float32 and f.name == "ToFloat:0"
    assert tf.to_int64(tf.constant(1.7)).dtype == dg.int64
    assert tf.to_double(1).dtype == dg.float64 and tf.to_int32(2.0).dtype == dg.int32
    with tf.Session() as sess:
        assert sess.run(tf.div(tf.constant(7), tf.constant(2))) == 3     # TF: 3 (floor)
        assert sess.run(tf.div(tf.constant(-7), tf.constant(2))) == -4
        assert sess.run(tf.div(7., 2.)) == 3.5


def test_tf1_random_ops_repeat_run_after_run():
    def program():
        g = dg.Graph()
        with g.as_default():
            tf.set_random_seed(1234)
            ops = [tf.random_normal([3]), tf.random_uniform([2], 0, 10),
                   tf.truncated_normal([4], stddev=0.1), tf.random_shuffle(tf.range(6)),
                   tf.multinomial(tf.log([[0.5, 0.5]]), 4)]
            with tf.Session() as sess:
                return [sess.run(ops), sess.run(ops)]
    first, again = program(), program()
    for a, b in zip(first, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0][0], first[1][0])   # each run draws new numbers
    tf.set_random_seed(None)


def test_multinomial_draws_with_softmax_probabilities(graph):
    tf.set_random_seed(7)
    samples = tf.multinomial(tf.log([[0.1, 0.9], [0.7, 0.3]]), 4000)
    assert samples.dtype == dg.int64 and samples.shape.as_list() == [2, 4000]
    with tf.Session() as sess:
        drawn = sess.run(samples)
    tf.set_random_seed(None)
    assert set(np.unique(drawn)) <= {0, 1}
    np.testing.assert_allclose(drawn.mean(axis=1), [0.9, 0.3], atol=0.03)


def test_session_configuration_messages(graph):
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.5
    assert tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE).trace_level == 3
    with pytest.raises(ValueError, match=r'^Protocol message ConfigProto has no "foo" field\.$'):
        tf.ConfigProto(foo=1)
    with pytest.raises(ValueError, match="GPUOptions has no"):
        config.gpu_options.allow_grow = True
    with tf.Session(config=config) as sess:
        assert sess.run(tf.constant(2.0) * 3.0, options=tf.RunOptions(),
                        run_metadata=tf.RunMetadata()) == 6.0


def test_collections_and_graph_keys(graph):
    assert (tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.UPDATE_OPS,
            tf.GraphKeys.TABLE_INITIALIZERS) == ("variables", "update_ops", "table_initializer")
    a = tf.get_variable("a", [1], regularizer=lambda w: tf.reduce_sum(w * w))
    with tf.variable_scope("block"):
        b = tf.get_variable("b", [2])
    local = tf.Variable(1.0, collections=[tf.GraphKeys.LOCAL_VARIABLES], trainable=False)
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == [a, b]
    assert graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == [a, b]
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="block") == [b]
    assert tf.local_variables() == [local]
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 1
    ref = tf.get_collection_ref("mine")
    ref.append(1)
    tf.add_to_collection("mine", 2)
    tf.add_to_collections(["mine", "other"], 3)
    assert tf.get_collection("mine") == [1, 2, 3] and tf.get_collection("other") == [3]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer(),
                  tf.tables_initializer()])
        assert sess.run(local) == 1.0


def test_coordinator_and_queue_runners(graph):
    with pytest.raises(ValueError, match="No default session is registered"):
        tf.train.start_queue_runners()
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        assert threads == [] and not coord.should_stop()
        coord.request_stop()
        coord.join(threads)
        assert coord.should_stop()
    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        raise RuntimeError("input failed")
    assert coord.should_stop()
    with pytest.raises(RuntimeError, match="input failed"):
        coord.join([])


def test_softmax_cross_entropy_v1_and_v2_gradients(graph):
    labels = tf.constant([[0.2, 0.8]])
    logits = tf.constant([[1.0, 2.0]])
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    g2 = tf.gradients(v2, labels)[0]
    assert tf.gradients(v1, labels) == [None]      # TF1: no gradient into labels
    with tf.Session() as sess:
        a, b, grad = sess.run([v1, v2, g2])
    np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(grad, -np.log(np.exp([1., 2.]) / np.exp([1., 2.]).sum())[None],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits(labels, logits)


def test_dimension_helpers():
    shape = dg.TensorShape([None, 3])
    assert tf.dimension_value(shape[1]) == 3 and tf.dimension_value(shape[0]) is None
    assert tf.dimension_value(tf.Dimension(4)) == 4 and int(tf.Dimension(4)) == 4
    assert tf.dimension_at_index(shape, 1).value == 3
    assert tf.dimension_at_index(dg.TensorShape(None), 0).value is None
    assert str(tf.Dimension(None)) == "?" and repr(tf.Dimension(2)) == "Dimension(2)"
    with pytest.raises(ValueError):
        tf.Dimension(-1)


def test_disable_v2_behavior_gives_tf1_shapes():
    """TF 2.21 with v2 behaviour disabled prints these strings for the same program."""
    tf.disable_v2_behavior()
    try:
        x = tf.placeholder(dg.float32, [None, 3], name="x")
        assert str(x.shape) == "(?, 3)" and str(x) == 'Tensor("x:0", shape=(?, 3), dtype=float32)'
        assert repr(x.shape) == "TensorShape([Dimension(None), Dimension(3)])"
        assert x.shape[1].value == 3 and str(x.shape[1]) == "3"
        assert repr(x.shape[1]) == "Dimension(3)" and x.shape[1] * 2 == 6
        assert x.shape.as_list() == [None, 3] and x.shape[0] is not None
        w = tf.get_variable("w_tf1_shape", [x.shape[1], 2])
        assert w.shape.as_list() == [3, 2]
        assert str(tf.nn.xw_plus_b(x, w, tf.zeros([2])).shape) == "(?, 2)"
        assert repr(w) == "<tf.Variable 'w_tf1_shape:0' shape=(3, 2) dtype=float32_ref>"
        assert not tf.resource_variables_enabled()
    finally:
        tf.enable_v2_behavior()
    assert str(dg.TensorShape([None, 3])) == "(None, 3)"
    assert type(dg.TensorShape([3])[0]) is int and tf.resource_variables_enabled()


def test_disable_v2_behavior_unknown_dimension_is_dimension_none():
    """TF 2.21, v2 behaviour disabled: `shape[0]` of a [None, 3] placeholder is
    Dimension(None) (value None, comparisons None, arithmetic unknown, int() TypeError)."""
    tf.disable_v2_behavior()
    try:
        x = tf.placeholder(dg.float32, [None, 3])
        first, second = x.shape[0], x.shape[1]
        assert repr(first) == "Dimension(None)" and first.value is None and str(first) == "?"
        assert first is not None and (first == None) is None and (first == 3) is None  # noqa: E711
        assert str(first + 1) == "?" and second + 1 == 4 and (3 == second) is True
        assert [d.value for d in x.shape] == [None, 3]
        assert [repr(d) for d in x.shape] == ["Dimension(None)", "Dimension(3)"]
        assert tf.dimension_value(first) is None and tf.dimension_value(second) == 3
        with pytest.raises(TypeError, match="non-int"):
            int(first)
        # shapes built from it stay unknown there, and duograd's own code still reads None
        assert str(tf.placeholder(dg.float32, [first, 5]).shape) == "(?, 5)"
        assert str(tf.reshape(tf.layers.dense(x, 4), [-1, 2, 2]).shape) == "(?, 2, 2)"
    finally:
        tf.enable_v2_behavior()
    assert dg.TensorShape([None, 3])[0] is None
