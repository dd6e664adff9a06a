import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()
tf.set_random_seed(42)

with tf.variable_scope("encoder"):
    w1 = tf.get_variable("w1", [4, 3], initializer=tf.constant_initializer(0.5),
                         regularizer=lambda w: 0.01 * tf.nn.l2_loss(w))
    b1 = tf.get_variable("b1", [3], initializer=tf.zeros_initializer())
with tf.variable_scope("decoder"):
    w2 = tf.get_variable("w2", [3, 4], initializer=tf.ones_initializer())
counter = tf.Variable(0, trainable=False, name="counter",
                      collections=[tf.GraphKeys.LOCAL_VARIABLES])

print("trainable:", [v.name for v in tf.trainable_variables()])
print("global:", [v.name for v in tf.global_variables()])
print("local:", [v.name for v in tf.local_variables()])
print("encoder scope:", [v.name for v in tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES,
                                                           scope="encoder")])
reg_losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
print("regularization losses:", len(reg_losses))

tf.add_to_collection("my_tensors", w1)
tf.add_to_collection("my_tensors", w2)
print("my_tensors:", [t.name for t in tf.get_collection("my_tensors")])

noise = tf.random_normal([2, 4], stddev=0.1)
sample = tf.random_uniform([5], maxval=10, dtype=tf.int32)
print("random shapes:", noise.get_shape().as_list(), sample.get_shape().as_list(), sample.dtype)

x = tf.placeholder_with_default(tf.ones([2, 4]), shape=[None, 4])
code = tf.nn.relu(tf.matmul(x, w1) + b1)
recon = tf.matmul(code, w2)
increment = tf.assign_add(counter, 1)
total_reg = tf.add_n(reg_losses)

config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
config.gpu_options.allow_growth = True
with tf.Session(config=config) as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer(),
              tf.tables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    step = 0
    while not coord.should_stop():
        step = sess.run(increment)
        if step >= 3:
            coord.request_stop()
    coord.join(threads)
    print("steps run:", step)
    print("recon (default input):", sess.run(recon))
    print("recon (fed):", sess.run(recon, {x: np.full((1, 4), 2.0, np.float32)}))
    print("regularization:", "%.6f" % sess.run(total_reg))
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    print("traced run:", sess.run(tf.reduce_sum(recon), options=options, run_metadata=metadata))
