import tensorflow as tf
import numpy as np

# Physics-informed network for u''(x) = -pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0
rng = np.random.default_rng(3)
sizes = [1, 16, 16, 1]
weights = [tf.Variable(rng.normal(size=(m, n)) * np.sqrt(1.0 / m), dtype=tf.float64)
           for m, n in zip(sizes[:-1], sizes[1:])]
biases = [tf.Variable(np.zeros(n), dtype=tf.float64) for n in sizes[1:]]
variables = weights + biases


def net(x):
    h = x
    for w, b in zip(weights[:-1], biases[:-1]):
        h = tf.tanh(tf.matmul(h, w) + b)
    return tf.matmul(h, weights[-1]) + biases[-1]


x_col = tf.constant(np.linspace(0.0, 1.0, 25)[:, None])
x_bnd = tf.constant([[0.0], [1.0]], dtype=tf.float64)


def residual(x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = net(x)
        u_x = inner.gradient(u, x)
    u_xx = outer.gradient(u_x, x)
    return u_xx + np.pi ** 2 * tf.sin(np.pi * x)


@tf.function
def loss_fn():
    r = residual(x_col)
    return tf.reduce_mean(tf.square(r)) + tf.reduce_mean(tf.square(net(x_bnd)))


optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = loss_fn()
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


for it in range(301):
    loss = train_step()
    if it % 100 == 0:
        print(f"iter {it:4d}  loss {loss.numpy():.6e}")

x_test = tf.constant([[0.25], [0.5], [0.75]], dtype=tf.float64)
print("u(x):", np.round(net(x_test).numpy().ravel(), 4))
print("exact:", np.round(np.sin(np.pi * x_test.numpy().ravel()), 4))
