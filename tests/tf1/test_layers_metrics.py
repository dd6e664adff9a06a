"""tf.compat.v1.layers and tf.compat.v1.metrics (issue 21 item 2). TF 2.21 cannot run
tf.compat.v1.layers without the tf_keras package, so layer names and shapes follow
TF1's documented behaviour and values are checked against NumPy; the metrics'
values, variable and op names were printed by TF 2.21 for the same program."""
import numpy as np
import pytest

import duograd as dg

tf = dg.compat.v1


def test_layers_build_tf1_variables_and_shapes():
    g = dg.Graph()
    with g.as_default():
        tf.set_random_seed(7)   # fixed kernels: an unseeded one may start a dead ReLU channel
        x = tf.placeholder(dg.float32, [None, 8, 8, 1])
        training = tf.placeholder_with_default(False, [])
        h = tf.layers.conv2d(x, 4, 3, padding="same", activation=dg.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.batch_normalization(h, training=training)
        h = tf.layers.average_pooling2d(h, 2, 2)
        h = tf.layers.flatten(h)
        h = tf.layers.dense(h, 16, activation=dg.nn.relu)
        h = tf.layers.dropout(h, 0.3, training=training)
        logits = tf.layers.dense(h, 3)
        assert [v.name for v in tf.global_variables()] == [
            "conv2d/kernel:0", "conv2d/bias:0", "batch_normalization/gamma:0",
            "batch_normalization/beta:0", "batch_normalization/moving_mean:0",
            "batch_normalization/moving_variance:0", "dense/kernel:0", "dense/bias:0",
            "dense_1/kernel:0", "dense_1/bias:0"]
        assert len(tf.trainable_variables()) == 8
        assert logits.shape.as_list() == [None, 3] and h.shape.as_list() == [None, 16]
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert len(updates) == 2
        loss = tf.reduce_mean(tf.square(logits))
        with tf.control_dependencies(updates):   # slots made here ignore these deps, as TF
            train = tf.train.AdamOptimizer(0.01).minimize(loss)
        data = np.random.RandomState(0).rand(5, 8, 8, 1).astype(np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([train, loss], {x: data, training: True})[1] for _ in range(5)]
            moving = [v for v in tf.global_variables() if "moving_mean" in v.name][0]
            # updated by UPDATE_OPS (a channel's mean is 0 only if its ReLU is dead)
            assert np.all(sess.run(moving) != 0)
            assert losses[-1] < losses[0]


def test_dense_matches_numpy_and_reuses_by_name():
    g = dg.Graph()
    with g.as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        kernel = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
        y = tf.layers.dense(x, 4, kernel_initializer=tf.constant_initializer(kernel),
                            bias_initializer=tf.constant_initializer(0.5), name="fc")
        y2 = tf.layers.dense(x, 4, name="fc", reuse=True)
        assert len(tf.trainable_variables()) == 2
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            expected = np.arange(6, dtype=np.float32).reshape(2, 3) @ kernel + 0.5
            np.testing.assert_allclose(sess.run(y), expected, rtol=1e-6)
            np.testing.assert_allclose(sess.run(y2), expected, rtol=1e-6)


def test_dropout_only_while_training_and_batch_norm_inference():
    g = dg.Graph()
    with g.as_default():
        x = tf.ones([4, 10])
        assert tf.layers.dropout(x, 0.5, training=False) is not None
        dropped = tf.layers.dropout(x, 0.5, training=True, seed=1)
        normed = tf.layers.batch_normalization(tf.constant([[1.0], [3.0]]), training=False)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(dropped)
            assert set(np.unique(values)) <= {0.0, 2.0}
            np.testing.assert_allclose(sess.run(normed), [[1.0 / np.sqrt(1.001)],
                                                          [3.0 / np.sqrt(1.001)]], rtol=1e-6)


def test_metrics_accuracy_and_mean_as_tf():
    g = dg.Graph()
    with g.as_default():
        labels = tf.placeholder(dg.int64, [None])
        preds = tf.placeholder(dg.int64, [None])
        acc, acc_op = tf.metrics.accuracy(labels, preds)
        as_float = tf.cast(preds, dg.float32)
        mean, mean_op = tf.metrics.mean(as_float, weights=tf.ones_like(as_float) * 2)
        assert [v.name for v in tf.local_variables()] == [
            "accuracy/total:0", "accuracy/count:0", "mean/total:0", "mean/count:0"]
        assert len(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)) == 4
        assert (acc.name, acc_op.name, mean.name) == \
            ("accuracy/value:0", "accuracy/update_op:0", "mean/value:0")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(acc) == 0.0
            assert sess.run(acc_op, {labels: [1, 2, 3], preds: [1, 2, 0]}) == \
                pytest.approx(0.6666667)
            sess.run([acc_op, mean_op], {labels: [1, 1], preds: [0, 1]})
            result = sess.run([acc, mean])
            assert result == [pytest.approx(0.6), pytest.approx(0.5)]
            assert type(result[0]) is np.float32          # TF: NumPy scalars, not 0-d arrays
            sess.run(tf.local_variables_initializer())
            assert sess.run(acc) == 0.0


# tf.compat.v1.nn.fused_batch_norm(x, ones, zeros, is_training=True) in TF 2.21 on
# FUSED_INPUT gives these batch variances: the unbiased n/(n-1) ones, which TF1's fused
# batch_normalization layer feeds to its moving variance (decay 1 - momentum).
FUSED_INPUT = np.arange(48, dtype=np.float32).reshape(4, 2, 2, 3) ** 1.5 / 10
TF_FUSED_VARIANCE = [98.3921127319336, 103.36109161376953, 108.2391357421875]
TF_FUSED_OUTPUT_HEAD = [-1.2784130573272705, -1.3054046630859375, -1.3263577222824097,
                        -1.2243109941482544]


@pytest.mark.parametrize("axis, layout", [(-1, lambda a: a),
                                          (1, lambda a: a.transpose(0, 3, 1, 2))])
def test_batch_norm_moving_variance_is_unbiased_as_the_fused_kernel(axis, layout):
    g = dg.Graph()
    with g.as_default():
        x = tf.placeholder(dg.float32, layout(FUSED_INPUT).shape)
        out = tf.layers.batch_normalization(x, axis=axis, training=True, scale=False,
                                            center=False)
        moving_variance = [v for v in tf.global_variables() if "moving_variance" in v.name][0]
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            step = tf.identity(out)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(step, {x: layout(FUSED_INPUT)})
            expected = 1.0 - (1.0 - np.array(TF_FUSED_VARIANCE)) * (1.0 - 0.99)
            np.testing.assert_allclose(sess.run(moving_variance), expected, rtol=1e-6)
    if axis == -1:  # the output itself is normalised with the biased variance, as the kernel
        np.testing.assert_allclose(values.ravel()[:4], TF_FUSED_OUTPUT_HEAD, rtol=1e-5)


def test_batch_norm_of_dense_features_keeps_the_biased_variance():
    # 2-D inputs never take TF1's fused kernel: moments' biased variance feeds the average
    g = dg.Graph()
    with g.as_default():
        x = tf.constant([[1.0], [3.0]])
        tf.layers.batch_normalization(x, training=True)
        moving_variance = [v for v in tf.global_variables() if "moving_variance" in v.name][0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
            # biased variance 1.0 keeps it at 1.0 (the unbiased 2.0 would give 1.01)
            np.testing.assert_allclose(sess.run(moving_variance), [1.0], rtol=1e-7)
