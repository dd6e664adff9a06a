import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

# A two-class classifier trained with tf.losses and evaluated with tf.metrics
rng = np.random.RandomState(9)
X_train = rng.normal(size=(120, 3)).astype(np.float32)
y_train = (X_train[:, 0] - X_train[:, 2] > 0).astype(np.int64)
X_test = rng.normal(size=(40, 3)).astype(np.float32)
y_test = (X_test[:, 0] - X_test[:, 2] > 0).astype(np.int64)

features = tf.placeholder(tf.float32, [None, 3], name="features")
labels = tf.placeholder(tf.int64, [None], name="labels")

with tf.variable_scope("model"):
    w = tf.get_variable("w", initializer=tf.constant(np.full((3, 2), 0.1, np.float32)),
                        regularizer=lambda t: 1e-3 * tf.nn.l2_loss(t))
    b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
    logits = tf.matmul(features, w) + b

xent = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
onehot = tf.one_hot(labels, 2)
smoothed = tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.1,
                                           loss_collection=None)
total_loss = tf.losses.get_total_loss()
print("losses in collection:", len(tf.losses.get_losses()),
      "regularization:", len(tf.losses.get_regularization_losses()))

train_op = tf.train.GradientDescentOptimizer(0.5).minimize(total_loss)
predictions = tf.argmax(logits, axis=1)
accuracy, accuracy_update = tf.metrics.accuracy(labels, predictions)
mean_loss, mean_loss_update = tf.metrics.mean(xent)
print("metric variables:", [v.name for v in tf.local_variables()])

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(60):
        _, l = sess.run([train_op, total_loss], {features: X_train, labels: y_train})
        if step % 20 == 0:
            print("step %d total loss %.5f" % (step, l))
    sess.run(tf.local_variables_initializer())
    for start in range(0, 40, 10):
        batch = {features: X_test[start:start + 10], labels: y_test[start:start + 10]}
        sess.run([accuracy_update, mean_loss_update], batch)
    acc, loss_value = sess.run([accuracy, mean_loss])
    print("test accuracy %.3f mean loss %.4f" % (acc, loss_value))
    print("smoothed xent: %.5f" % sess.run(smoothed, {features: X_test, labels: y_test}))
    print("weights:", np.round(sess.run(w), 3).tolist())
