import tensorflow as tf
import numpy as np


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.keras.initializers.Constant(0.1)(shape=[in_features, out_features]),
                             name="w")
        self.b = tf.Variable(tf.keras.initializers.Zeros()(shape=[out_features]), name="b")

    def __call__(self, x):
        return tf.nn.sigmoid(tf.matmul(x, self.w) + self.b)


class Sequential(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


my_model = Sequential(name="the_model")
print("Model results:", my_model(tf.constant([[2.0, 2.0, 2.0]])))
print("Submodules:", len(my_model.submodules))
for var in my_model.variables:
    print(var.name, var.shape, var.dtype)

init = tf.keras.initializers.get("glorot_uniform")
print(type(init).__name__, tf.keras.initializers.serialize(init)["class_name"])
print(tf.keras.initializers.RandomNormal().get_config())
print(tf.initializers.Ones()(shape=(2,)))
sample = tf.keras.initializers.HeNormal(seed=1)(shape=(200, 100))
print("he_normal std ok:", abs(float(tf.math.reduce_std(sample)) - np.sqrt(2 / 200)) < 0.005)

y_true = tf.constant([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y_pred = tf.constant([[0.1, 0.8], [0.7, 0.2], [0.6, 0.9]])
for loss in [tf.keras.losses.MeanSquaredError(), tf.keras.losses.MeanAbsoluteError(),
             tf.keras.losses.BinaryCrossentropy(), tf.keras.losses.Huber(delta=0.5),
             tf.keras.losses.CategoricalCrossentropy(label_smoothing=0.1),
             tf.keras.losses.BinaryCrossentropy(from_logits=True, reduction="sum")]:
    print(f"{loss.name}: {loss(y_true, y_pred):.6f} "
          f"weighted: {loss(y_true, y_pred, sample_weight=[1.0, 0.5, 2.0]):.6f}")
print(tf.keras.losses.mse(y_true, y_pred))
print(tf.keras.losses.binary_crossentropy(y_true, y_pred, from_logits=True))
