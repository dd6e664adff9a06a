import tensorflow as tf
import numpy as np

# A tiny segmentation-style training loop: per-pixel sigmoid outputs trained with
# a Dice + focal objective, tracked by unnamed Keras metrics, as tutorials write it.
rng = np.random.RandomState(7)
images = rng.rand(16, 8, 8, 1).astype(np.float32)
masks = (images > 0.55).astype(np.float32)

kernel = tf.Variable(rng.uniform(-0.5, 0.5, [3, 3, 1, 1]).astype(np.float32), name="kernel")
bias = tf.Variable(tf.zeros([1]), name="bias")
dice = tf.keras.losses.Dice()
focal = tf.keras.losses.BinaryFocalCrossentropy(gamma=2.0, from_logits=True)
tversky = tf.keras.losses.Tversky(alpha=0.3, beta=0.7)
optimizer = tf.keras.optimizers.Adam(learning_rate=0.05)
auc_a = tf.keras.metrics.AUC()
auc_b = tf.keras.metrics.AUC(num_thresholds=50)
mean_loss = tf.keras.metrics.Mean()
print("metric names:", auc_a.name, auc_b.name, mean_loss.name)
print("metric variables:", [v.name for v in auc_b.variables], [v.path for v in mean_loss.variables])
print("configs:", dice.get_config(), tversky.get_config())
print("serialized:", tf.keras.losses.serialize(focal)["class_name"],
      tf.keras.losses.serialize(tf.keras.losses.logcosh)["config"])


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = tf.nn.conv2d(x, kernel, strides=1, padding="SAME") + bias
        probs = tf.sigmoid(logits)
        loss = dice(y, probs) + focal(y, logits)
    grads = tape.gradient(loss, [kernel, bias])
    optimizer.apply_gradients(zip(grads, [kernel, bias]))
    mean_loss.update_state(loss)
    auc_a.update_state(tf.reshape(y, [-1]), tf.reshape(probs, [-1]))
    auc_b.update_state(tf.reshape(y, [-1]), tf.reshape(probs, [-1]))
    return loss


for step in range(30):
    loss = train_step(images, masks)
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d}: loss {loss:.5f}  mean {mean_loss.result():.5f}  "
              f"auc {auc_a.result():.4f}/{auc_b.result():.4f}")

probs = tf.sigmoid(tf.nn.conv2d(images, kernel, strides=1, padding="SAME") + bias)
flat_true, flat_pred = tf.reshape(masks, [16, -1]), tf.reshape(probs, [16, -1])
print("tversky %.5f" % tversky(masks, probs).numpy())
print("dice:", np.round(tf.keras.losses.dice(masks, probs).numpy(), 5))
print("cosine %.5f" % tf.keras.losses.CosineSimilarity()(flat_true, flat_pred).numpy())
print("log-cosh %.5f" % tf.keras.losses.LogCosh()(flat_true, flat_pred).numpy())
print("squared hinge %.5f" % tf.keras.losses.SquaredHinge()(flat_true, flat_pred).numpy())
print("categorical focal %.5f" % tf.keras.losses.CategoricalFocalCrossentropy()(
    tf.one_hot([0, 2], 3), tf.constant([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])).numpy())
stft = tf.keras.initializers.STFT(window="hann")(shape=(8, 1, 5))
print("stft kernel", stft.shape, np.round(stft.numpy()[:, 0, 1], 5))
