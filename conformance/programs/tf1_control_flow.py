import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

n = tf.placeholder(tf.int32, [], name="n")
x = tf.placeholder(tf.float32, [None], name="x")

# Sum of squares 1..n with a while loop
i0 = tf.constant(1)
s0 = tf.constant(0)
_, total = tf.while_loop(lambda i, s: i <= n, lambda i, s: (i + 1, s + i * i), [i0, s0])

# Newton iterations for sqrt(x)
def body(k, guess):
    return k + 1, 0.5 * (guess + x / guess)

_, root = tf.while_loop(lambda k, g: k < 6, body, [tf.constant(0), tf.ones_like(x)])

# cond picks a branch per run
mean = tf.reduce_mean(x)
branch = tf.cond(mean > 2.0, lambda: tf.reduce_max(x), lambda: tf.reduce_min(x))
d_root = tf.gradients(tf.reduce_sum(root), x)[0]
d_branch = tf.gradients(branch, x)[0]

with tf.Session() as sess:
    for value in (1, 4, 10):
        print("n =", value, "sum of squares =", sess.run(total, {n: value}))
    data = np.array([1.0, 4.0, 9.0], np.float32)
    print("sqrt:", sess.run(root, {x: data}))
    print("d sqrt:", sess.run(d_root, {x: data}))
    print("branch:", sess.run(branch, {x: data}), sess.run(branch, {x: data / 10}))
    print("d branch:", sess.run(d_branch, {x: data}), sess.run(d_branch, {x: data / 10}))
