"""tf.compat.v1.losses: weights, reductions and the LOSSES collection. Values printed
by TF 2.21's tf.compat.v1.losses (v2 behaviour disabled) for the same inputs."""
import numpy as np
import pytest

import duograd as dg

tf = dg.compat.v1
L = tf.losses


def test_tf1_losses_match_tf():
    g = dg.Graph()
    with g.as_default():
        labels = tf.constant([[0., 1.], [1., 0.], [1., 1.]])
        preds = tf.constant([[0.1, 0.8], [0.7, 0.2], [0.6, 0.9]])
        w = tf.constant([[1.0], [0.0], [2.0]])
        cases = {
            "mse": (L.mean_squared_error(labels, preds), 0.05833333),
            "mse_w": (L.mean_squared_error(labels, preds, weights=w), 0.09749999),
            "mse_sum": (L.mean_squared_error(labels, preds, weights=w,
                                             reduction=L.Reduction.SUM), 0.38999996),
            "mse_mean": (L.mean_squared_error(labels, preds, weights=w,
                                              reduction=L.Reduction.MEAN), 0.06499999),
            "mse_batch": (L.mean_squared_error(labels, preds, weights=w,
                                               reduction=L.Reduction.SUM_OVER_BATCH_SIZE),
                          0.06499999),
            "mse_none": (L.mean_squared_error(labels, preds, weights=w,
                                              reduction=L.Reduction.NONE, loss_collection=None),
                         [[0.01, 0.04], [0., 0.], [0.31999996, 0.02000001]]),
            "abs": (L.absolute_difference(labels, preds), 0.21666668),
            "log": (L.log_loss(labels, preds), 0.25408462),
            "huber": (L.huber_loss(labels, preds, delta=0.5), 0.02916666),
            "hinge": (L.hinge_loss(labels, preds), 0.54999995),
            "sig": (L.sigmoid_cross_entropy(labels, preds, label_smoothing=0.1), 0.5384107),
            "soft": (L.softmax_cross_entropy(labels, preds, weights=[1., 2., 0.],
                                             label_smoothing=0.2), 0.76067007),
            "sparse": (L.sparse_softmax_cross_entropy([1, 0, 1], preds), 0.4772061),
            "cos": (L.cosine_distance(dg.nn.l2_normalize(labels, 1),
                                      dg.nn.l2_normalize(preds, 1), axis=1), 0.02187246),
        }
        assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == 13 == len(L.get_losses())
        tf.get_variable("v", [2], initializer=tf.ones_initializer(),
                        regularizer=lambda x: 0.1 * tf.reduce_sum(x * x))
        total, reg = L.get_total_loss(), L.get_regularization_loss()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for name, (tensor, expected) in cases.items():
                np.testing.assert_allclose(sess.run(tensor), expected, rtol=2e-6, err_msg=name)
            np.testing.assert_allclose(sess.run([total, reg]), [3.7239103, 0.2], rtol=2e-6)


def test_total_loss_errors_as_tf():
    g = dg.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="No losses found"):
            L.get_total_loss()
        assert dg.compat.v1.Session().run(L.get_regularization_loss()) == 0.0
        with pytest.raises(ValueError, match="Invalid Reduction Key"):
            L.mean_squared_error([1.0], [2.0], reduction="bad")


def test_eager_losses_are_not_collected():
    value = L.mean_squared_error([1.0, 2.0], [1.5, 2.0])
    assert value.numpy() == pytest.approx(0.125)
