import tensorflow as tf
import numpy as np

# Synthetic data: y = 3x + 2 with noise
rng = np.random.default_rng(7)
x = rng.normal(size=200).astype(np.float32)
y = 3.0 * x + 2.0 + rng.normal(scale=0.5, size=200).astype(np.float32)


class MyModel(tf.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


def loss(target_y, predicted_y):
    return tf.reduce_mean(tf.square(target_y - predicted_y))


model = MyModel()
print("Variables:", model.variables)
print(model.w)
print("Starting loss:", loss(y, model(x)).numpy())


def train(model, x, y, learning_rate):
    with tf.GradientTape() as t:
        current_loss = loss(y, model(x))
    dw, db = t.gradient(current_loss, [model.w, model.b])
    model.w.assign_sub(learning_rate * dw)
    model.b.assign_sub(learning_rate * db)


weights, biases = [], []
for epoch in range(10):
    train(model, x, y, learning_rate=0.1)
    weights.append(model.w.numpy())
    biases.append(model.b.numpy())
    current_loss = loss(y, model(x))
    print(f"Epoch {epoch:2d}:")
    print("    ", f"W = {weights[-1]:1.2f}, b = {biases[-1]:1.2f}, loss={current_loss:2.5f}")

print(f"final loss {loss(y, model(x)):.4f}")
print(tf.constant([1.0, 2.0]), tf.constant(3))
print(model.w.dtype, model.w.shape, tf.TensorShape([None, 3]))
print(repr(tf.constant([[1, 2], [3, 4]])))
