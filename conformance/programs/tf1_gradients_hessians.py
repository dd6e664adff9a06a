import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

x = tf.placeholder(tf.float64, shape=[3], name="x")
a = tf.constant([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], tf.float64)
quadratic = 0.5 * tf.reduce_sum(x * tf.linalg.matvec(a, x)) + tf.reduce_sum(tf.sin(x))
grad = tf.gradients(quadratic, x)[0]
hess = tf.hessians(quadratic, x)[0]

y = tf.stop_gradient(x * 2.0) + x ** 3
grad_y = tf.gradients(y, [x])

v = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)
loss = tf.reduce_sum(tf.square(v - x))
dv = tf.gradients(loss, v)[0]
update = tf.assign_sub(v, 0.25 * dv)
with tf.control_dependencies([update]):
    after = tf.identity(loss)

unconnected = tf.gradients(tf.reduce_sum(a), x)
zeros = tf.gradients(tf.reduce_sum(a), x, unconnected_gradients=tf.UnconnectedGradients.ZERO)

feed = {x: np.array([0.5, -1.0, 2.0])}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print("f:", sess.run(quadratic, feed))
    print("grad:", sess.run(grad, feed))
    print("hessian:\n", sess.run(hess, feed))
    print("grad of stop_gradient expr:", sess.run(grad_y, feed))
    for _ in range(3):
        print("loss:", "%.8f" % sess.run(after, feed), "v:", sess.run(v))
    print("unconnected:", unconnected, sess.run(zeros, feed))
