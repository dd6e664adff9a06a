import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

rng = np.random.RandomState(5)
X_data = rng.normal(size=(32, 5)).astype(np.float32)
true_w = np.array([[1.0], [-1.0], [2.0], [0.5], [0.0]], np.float32)
Y_data = X_data @ true_w + 0.05 * rng.normal(size=(32, 1)).astype(np.float32)

X = tf.placeholder(tf.float32, [None, 5])
Y = tf.placeholder(tf.float32, [None, 1])
W = tf.Variable(tf.zeros([5, 1]), name="W")
b = tf.Variable(0.0, name="b")
pred = tf.matmul(X, W) + b
loss = tf.reduce_mean(tf.squared_difference(Y, pred))

global_step = tf.train.get_or_create_global_step()
lr = tf.train.exponential_decay(0.05, global_step, decay_steps=20, decay_rate=0.5)
optimizer = tf.train.MomentumOptimizer(lr, momentum=0.9, use_nesterov=True)
grads_and_vars = optimizer.compute_gradients(loss, var_list=[W, b])
grads, variables = zip(*grads_and_vars)
clipped, global_norm = tf.clip_by_global_norm(grads, 1.0)
train_op = optimizer.apply_gradients(zip(clipped, variables), global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(60):
        _, l, norm = sess.run([train_op, loss, global_norm], {X: X_data, Y: Y_data})
        if step % 15 == 0:
            print("step %d loss %.6f grad norm %.5f lr %.6f" % (step, l, norm, sess.run(lr)))
    print("W:", np.round(sess.run(W).ravel(), 3), "b: %.4f" % sess.run(b))
    print("slots:", sorted(optimizer.get_slot_names()))
    print("global step:", sess.run(global_step))
