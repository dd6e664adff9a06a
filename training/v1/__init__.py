"""TF1's `tf.compat.v1.train` optimizers, global step and learning-rate decay."""
