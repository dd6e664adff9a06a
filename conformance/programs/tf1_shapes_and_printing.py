import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

# What TF1 scripts print while they build a model: tensors, shapes, dimensions
images = tf.placeholder(tf.float32, [None, 28, 28, 1], name="images")
labels = tf.placeholder(tf.int64, [None], name="labels")
print(images)
print(images.get_shape(), images.shape.as_list())
flat_size = images.get_shape()[1].value * images.get_shape()[2].value
print("flat size:", flat_size, tf.dimension_value(images.get_shape()[0]))
flat = tf.reshape(images, [-1, flat_size])
print(flat.shape, repr(flat.shape))

with tf.variable_scope("fc"):
    w = tf.get_variable("w", [int(flat.shape[1]), 10],
                        initializer=tf.constant_initializer(0.001))
    b = tf.get_variable("b", [10], initializer=tf.zeros_initializer())
    logits = tf.nn.xw_plus_b(flat, w, b)
print(logits)
print(w)
print(tf.trainable_variables())
print("dims:", [tf.dimension_value(d) for d in logits.shape])
probs = tf.nn.softmax(logits, name="probs")
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
print(loss, probs.dtype, loss.op.type in ("Mean",))

data = np.linspace(0.0, 1.0, 2 * 28 * 28, dtype=np.float32).reshape(2, 28, 28, 1)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    p, l = sess.run([probs, loss], {images: data, labels: [3, 7]})
    print(p.shape, "loss %.6f" % l, p.argmax(axis=1))
    print(sess.run(tf.shape(flat), {images: data}))
