import tensorflow as tf
import numpy as np

# A small classifier trained with a custom loop, as in TF's "custom training" guide
rng = np.random.default_rng(11)
centers = rng.normal(size=(3, 4)).astype(np.float32) * 2.0
labels = rng.integers(0, 3, size=240)
features = centers[labels] + rng.normal(size=(240, 4)).astype(np.float32)
labels = labels.astype(np.int64)

w1 = tf.Variable(rng.normal(size=(4, 16)).astype(np.float32) * 0.3, name="w1")
b1 = tf.Variable(tf.zeros([16]), name="b1")
w2 = tf.Variable(rng.normal(size=(16, 3)).astype(np.float32) * 0.3, name="w2")
b2 = tf.Variable(tf.zeros([3]), name="b2")
params = [w1, b1, w2, b2]


def model(x):
    return tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2


loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
train_loss = tf.keras.metrics.Mean(name="train_loss")
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = loss_object(y, logits)
    gradients = tape.gradient(loss, params)
    optimizer.apply_gradients(zip(gradients, params))
    train_loss(loss)
    train_accuracy(y, logits)


for epoch in range(5):
    train_loss.reset_state()
    train_accuracy.reset_state()
    for start in range(0, 240, 40):
        train_step(features[start:start + 40], labels[start:start + 40])
    print(f"Epoch {epoch + 1}, Loss: {train_loss.result():.4f}, "
          f"Accuracy: {train_accuracy.result() * 100:.2f}")

print("iterations:", int(optimizer.iterations.numpy()))
print("final loss:", round(float(loss_object(labels, model(features))), 4))
