import tensorflow as tf
import numpy as np

print("GPUs:", tf.config.list_physical_devices("GPU"))
print("CPUs:", len(tf.config.list_physical_devices("CPU")))

rng = np.random.default_rng(5)
X = rng.normal(size=(300, 2)).astype(np.float32)
y = ((X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=300)) > 0).astype(np.float32)[:, None]

w = tf.Variable(tf.zeros([2, 1]))
b = tf.Variable(tf.zeros([1]))
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)
opt = tf.keras.optimizers.SGD(learning_rate=0.5, momentum=0.5)
acc = tf.keras.metrics.BinaryAccuracy()
auc = tf.keras.metrics.AUC(num_thresholds=50)
mean_loss = tf.keras.metrics.Mean()

for epoch in range(4):
    for metric in (acc, auc, mean_loss):
        metric.reset_state()
    for i in range(0, 300, 60):
        xb, yb = X[i:i + 60], y[i:i + 60]
        with tf.GradientTape() as tape:
            logits = tf.matmul(xb, w) + b
            loss = loss_fn(yb, logits)
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        probs = tf.sigmoid(logits)
        acc.update_state(yb, probs)
        auc.update_state(yb, probs)
        mean_loss.update_state(loss)
    print(f"epoch {epoch}: loss={mean_loss.result():.4f} acc={acc.result():.4f} "
          f"auc={auc.result():.4f}")

print("w:", np.round(w.numpy().ravel(), 3), "b:", np.round(b.numpy(), 3))
