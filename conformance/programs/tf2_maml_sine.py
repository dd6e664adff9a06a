import tensorflow as tf
import numpy as np

# MAML on sine regression (synthetic tasks), second-order meta-gradients
rng = np.random.default_rng(21)


def sample_task():
    amplitude, phase = rng.uniform(0.1, 5.0), rng.uniform(0, np.pi)
    xs = rng.uniform(-5, 5, size=(10, 1)).astype(np.float32)
    return xs, (amplitude * np.sin(xs - phase)).astype(np.float32)


params = {
    "w1": tf.Variable(rng.normal(size=(1, 40)).astype(np.float32) * 0.5),
    "b1": tf.Variable(np.zeros(40, np.float32)),
    "w2": tf.Variable(rng.normal(size=(40, 1)).astype(np.float32) * 0.15),
    "b2": tf.Variable(np.zeros(1, np.float32)),
}


def forward(p, x):
    return tf.matmul(tf.nn.relu(tf.matmul(x, p["w1"]) + p["b1"]), p["w2"]) + p["b2"]


def mse(p, x, y):
    return tf.reduce_mean(tf.square(forward(p, x) - y))


inner_lr = 0.01
meta_optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
keys = sorted(params)

for meta_step in range(30):
    tasks = [sample_task() for _ in range(4)]
    with tf.GradientTape() as meta_tape:
        meta_loss = 0.0
        for x, y in tasks:
            with tf.GradientTape() as inner_tape:
                inner_loss = mse(params, x[:5], y[:5])
            grads = inner_tape.gradient(inner_loss, [params[k] for k in keys])
            adapted = {k: params[k] - inner_lr * g for k, g in zip(keys, grads)}
            meta_loss += mse(adapted, x[5:], y[5:])
        meta_loss /= len(tasks)
    meta_grads = meta_tape.gradient(meta_loss, [params[k] for k in keys])
    meta_optimizer.apply_gradients(zip(meta_grads, [params[k] for k in keys]))
    if meta_step % 10 == 0:
        norm = tf.linalg.global_norm(meta_grads)
        print(f"meta step {meta_step:3d}: loss {float(meta_loss):.5f} grad norm {float(norm):.5f}")

print("b2 after meta-training:", params["b2"].numpy().round(5))
