import tensorflow.compat.v1 as tf
import numpy as np

# TF1 scripts read the batch dimension of a placeholder statically (it is unknown:
# Dimension(None)) and fall back to tf.shape when `.value` is None.
tf.disable_v2_behavior()
inputs = tf.placeholder(tf.float32, [None, 4, 3], name="inputs")
batch_dim, steps_dim = inputs.shape[0], inputs.get_shape()[1]
print("static:", batch_dim, steps_dim, repr(batch_dim), batch_dim.value, steps_dim.value)
print("is None?", batch_dim.value is None, batch_dim is None, batch_dim == None)  # noqa: E711
print("dims:", [d.value for d in inputs.shape], inputs.shape.as_list(), inputs.shape.ndims)
print("arithmetic:", batch_dim + 1, steps_dim * 2, steps_dim + 1)
batch = batch_dim.value if batch_dim.value is not None else tf.shape(inputs)[0]
flat = tf.reshape(inputs, [batch, steps_dim.value * inputs.shape[2].value])
print("flat:", flat.shape, repr(flat.shape))
weights = tf.get_variable("weights", [flat.shape[1].value, 2],
                          initializer=tf.constant_initializer(0.25))
outputs = tf.matmul(flat, weights)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    values = sess.run(outputs, {inputs: np.arange(24, dtype=np.float32).reshape(2, 4, 3)})
    print("outputs:", values.tolist())
try:
    int(batch_dim)
except TypeError as error:
    print("int(Dimension(None)):", type(error).__name__)
