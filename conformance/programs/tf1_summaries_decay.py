import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

rng = np.random.RandomState(3)
features = rng.normal(size=(40, 3)).astype(np.float32)
labels = (features @ np.array([[1.5], [-2.0], [0.7]], np.float32) + 0.3).astype(np.float32)

with tf.name_scope("input"):
    x = tf.placeholder(tf.float32, [None, 3], name="x-input")
    y_ = tf.placeholder(tf.float32, [None, 1], name="y-input")

with tf.name_scope("layer"):
    weights = tf.Variable(tf.constant([[0.1], [0.1], [0.1]]), name="weights")
    biases = tf.Variable(tf.constant([0.0]), name="biases")
    y = tf.matmul(x, weights) + biases
    tf.summary.histogram("weights", weights)

with tf.name_scope("loss"):
    loss = tf.reduce_mean(tf.square(y - y_))
    tf.summary.scalar("loss", loss)

global_step = tf.Variable(0, trainable=False, name="global_step")
learning_rate = tf.train.exponential_decay(0.1, global_step, 10, 0.9, staircase=True)
tf.summary.scalar("learning_rate", learning_rate)
train_step = tf.train.MomentumOptimizer(learning_rate, 0.9).minimize(loss, global_step=global_step)

merged = tf.summary.merge_all()
print("summaries:", len(tf.get_collection(tf.GraphKeys.SUMMARIES)))

with tf.Session() as sess:
    writer = tf.summary.FileWriter("logs/train", sess.graph)
    sess.run(tf.global_variables_initializer())
    for i in range(40):
        summary, _, l, lr = sess.run([merged, train_step, loss, learning_rate],
                                     feed_dict={x: features, y_: labels})
        writer.add_summary(summary, i)
        if i % 10 == 9:
            print("step %2d: loss %.6f lr %.5f" % (i, l, lr))
    writer.close()
    print("weights:", np.round(sess.run(weights).ravel(), 4))
    print("global step:", tf.train.global_step(sess, global_step))
