"""dg.compat.v1.train.Saver in a Session: TF1's file numbering, max_to_keep, state
file, exact restores, exception types recorded from TF 2.21, resumed training."""
import os

import numpy as np
import pytest

import duograd as dg

Saver = dg.compat.v1.train.Saver


def _graph_with_variables(v_value=(1.0, 2.0), w_value=3.0, w_name="scope/w"):
    g = dg.Graph()
    with g.as_default():
        v = dg.Variable(np.float32(v_value), name="v")
        w = dg.Variable(np.float32(w_value), name=w_name)
    return g, v, w


def test_save_numbers_keeps_max_to_keep_and_records_state(tmp_path):
    g, v, w = _graph_with_variables()
    with g.as_default():
        saver = Saver(max_to_keep=2)
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            paths = [saver.save(sess, str(tmp_path / "model"), global_step=i * 10)
                     for i in range(4)]
            plain = saver.save(sess, str(tmp_path / "plain"))
    # TF 2.21 names model-0 ... model-30, keeps the newest two, and "plain" unnumbered.
    assert [os.path.basename(p) for p in paths] == ["model-0", "model-10", "model-20", "model-30"]
    assert os.path.basename(plain) == "plain"
    assert saver.last_checkpoints == [paths[3], plain]
    assert not os.path.exists(paths[1] + ".index") and os.path.exists(paths[3] + ".index")
    assert dg.compat.v1.train.latest_checkpoint(str(tmp_path)) == plain
    # TF 2.21: [('scope/w', []), ('v', [2])]
    assert dg.compat.v1.train.list_variables(paths[3]) == [("scope/w", []), ("v", [2])]


def test_restore_into_a_new_graph_is_exact(tmp_path):
    g, v, w = _graph_with_variables((np.pi, -1e-30), np.e)
    with g.as_default():
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            path = Saver().save(sess, str(tmp_path / "m"))
    g2, v2, w2 = _graph_with_variables((0.0, 0.0), 0.0)
    with g2.as_default(), dg.Session() as sess:
        Saver().restore(sess, path)
        got_v, got_w = sess.run([v2, w2])
    assert np.array_equal(got_v, np.float32([np.pi, -1e-30])) and got_w == np.float32(np.e)


def test_restore_errors_are_tf_types(tmp_path):
    g, v, w = _graph_with_variables()
    with g.as_default(), dg.Session() as sess:
        sess.run(dg.global_variables_initializer())
        path = Saver().save(sess, str(tmp_path / "m"), global_step=5)
        with pytest.raises(ValueError, match="Can't load save_path when it is None"):
            Saver().restore(sess, None)
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            Saver().restore(sess, str(tmp_path / "zz"))
    g_int = dg.Graph()
    with g_int.as_default():
        dg.Variable(np.int32([1, 2]), name="v")
        dg.Variable(np.float32(3.0), name="scope/w")
    cases = [  # (graph, error, message); the first two as TF 2.21 raises them
        (_graph_with_variables(w_name="scope/x")[0], dg.errors.NotFoundError, "scope/x"),
        (g_int, dg.errors.InvalidArgumentError, "dtype int32"),
        # TF 2.21's TF1 variables accept a shape mismatch silently; we refuse it clearly.
        (_graph_with_variables(v_value=(1.0, 2.0, 3.0))[0], dg.errors.InvalidArgumentError,
         r"shape \(3,\).*shape \(2,\)"),
    ]
    for graph, error, message in cases:
        with graph.as_default(), dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            before = sess.run(dg.global_variables())
            with pytest.raises(error, match=message):
                Saver().restore(sess, path)
            after = sess.run(dg.global_variables())
            assert all(np.array_equal(a, b) for a, b in zip(before, after))  # nothing written


def test_constructor_and_eager_rules():
    with dg.Graph().as_default(), pytest.raises(ValueError, match="No variables to save"):
        Saver()
    with pytest.raises(RuntimeError, match="var_list"):
        Saver()  # eager mode needs an explicit var_list


def test_eager_saver_with_var_list_and_variable_global_step(tmp_path):
    v = dg.Variable([1.0, 2.0], name="v")
    step = dg.Variable(np.int64(42), name="global_step")
    saver = Saver([v, step])
    path = saver.save(None, str(tmp_path / "e"), global_step=step)
    assert os.path.basename(path) == "e-42"
    v.assign([0.0, 0.0])
    saver.restore(None, path)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def _sgd_graph():
    """A graph-mode least-squares model trained by hand-built SGD-with-momentum ops."""
    rng = np.random.default_rng(3)
    x_data = rng.normal(size=(8, 2))
    y_data = x_data @ np.array([[2.0], [-1.0]])
    g = dg.Graph()
    with g.as_default():
        w = dg.Variable(np.zeros((2, 1)), name="w")
        velocity = dg.Variable(np.zeros((2, 1)), name="w/Momentum", trainable=False)
        loss = dg.reduce_mean(dg.square(dg.matmul(dg.constant(x_data), w) - y_data))
        (grad,) = dg.gradients(loss, [w])
        new_velocity = velocity.assign(velocity * 0.9 + grad)
        with dg.control_dependencies([new_velocity]):
            train = w.assign_sub(0.1 * velocity.read_value())
        saver = Saver()
        init = dg.global_variables_initializer()
    return g, loss, train, init, saver


def test_resumed_graph_training_matches_uninterrupted_bit_for_bit(tmp_path):
    g, loss, train, init, saver = _sgd_graph()
    with g.as_default(), dg.Session() as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(train)
        path = saver.save(sess, str(tmp_path / "sgd"), global_step=3)
        uninterrupted = [sess.run([loss, train])[0] for _ in range(4)]
    g2, loss2, train2, init2, saver2 = _sgd_graph()
    with g2.as_default(), dg.Session() as sess:
        saver2.restore(sess, dg.compat.v1.train.latest_checkpoint(str(tmp_path)))
        resumed = [sess.run([loss2, train2])[0] for _ in range(4)]
    assert resumed == uninterrupted and uninterrupted[-1] < uninterrupted[0]
