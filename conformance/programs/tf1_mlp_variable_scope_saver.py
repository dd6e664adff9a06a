import tensorflow.compat.v1 as tf
import numpy as np
import os

tf.disable_v2_behavior()

rng = np.random.RandomState(2)
data = rng.normal(size=(64, 4)).astype(np.float32)
target = (np.sin(data[:, :1]) + 0.5 * data[:, 1:2] ** 2).astype(np.float32)


def dense(inputs, units, name, activation=None):
    with tf.variable_scope(name):
        fan_in = int(inputs.get_shape()[1])
        init = np.random.RandomState(sum(map(ord, name))).uniform(
            -1.0 / np.sqrt(fan_in), 1.0 / np.sqrt(fan_in), (fan_in, units)).astype(np.float32)
        w = tf.get_variable("kernel", initializer=tf.constant(init))
        b = tf.get_variable("bias", [units], initializer=tf.zeros_initializer())
        out = tf.matmul(inputs, w) + b
        return activation(out) if activation else out


x = tf.placeholder(tf.float32, [None, 4], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
with tf.variable_scope("mlp"):
    hidden = dense(x, 16, "hidden1", tf.nn.tanh)
    hidden = dense(hidden, 16, "hidden2", tf.nn.relu)
    output = dense(hidden, 1, "output")
loss = tf.reduce_mean(tf.square(output - y))
global_step = tf.train.get_or_create_global_step()
train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)

print([v.name for v in tf.trainable_variables()])
print([v.get_shape().as_list() for v in tf.global_variables()])

saver = tf.train.Saver(max_to_keep=2)
os.makedirs("logs/run", exist_ok=True)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, 151):
        _, l = sess.run([train_op, loss], {x: data, y: target})
        if step % 50 == 0:
            path = saver.save(sess, "logs/run/model", global_step=step)
            print("step %d loss %.5f saved %s" % (step, l, path))
    final = sess.run(loss, {x: data, y: target})

latest = tf.train.latest_checkpoint("logs/run")
print("latest:", latest)
with tf.Session() as sess:
    saver.restore(sess, latest)
    print("restored step:", sess.run(global_step))
    print("restored loss equal:", abs(sess.run(loss, {x: data, y: target}) - final) < 1e-6)
print(sorted(os.listdir("logs/run"))[:1])
