import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))
    return tf.math.log(1 + e), grad


@tf.custom_gradient
def clip_gradient_by_norm(x, norm=1.0):
    y = tf.identity(x)

    def grad_fn(dresult):
        return tf.clip_by_norm(dresult, norm)
    return y, grad_fn


x = tf.constant(100.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = log1pexp(x)
print("log1pexp(100) =", y.numpy(), "grad =", tape.gradient(y, x).numpy())

v = tf.Variable([3.0, 4.0])
with tf.GradientTape() as tape:
    out = tf.reduce_sum(clip_gradient_by_norm(v) * 10.0)
print("clipped grad:", tape.gradient(out, v).numpy())


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def smooth_abs(x):
    return tf.reduce_sum(tf.sqrt(x * x + 1e-2))


concrete = smooth_abs.get_concrete_function()
print("signature:", concrete.structured_input_signature)
data = tf.constant([-2.0, 0.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(data)
    s = smooth_abs(data)
print(f"smooth_abs = {s:.5f}")
print("grad:", tape.gradient(s, data).numpy())


@tf.function
def fib(n):
    a, b = tf.constant(0), tf.constant(1)
    for _ in tf.range(n):
        a, b = b, a + b
    return a


print("fib(10) =", fib(tf.constant(10)).numpy(), "fib(20) =", int(fib(tf.constant(20))))

with tf.GradientTape(persistent=True) as tape:
    z = tf.Variable(2.0)
    w = z ** 3
    u = tf.sin(w)
print("dw/dz =", tape.gradient(w, z).numpy(), "du/dz =", round(float(tape.gradient(u, z)), 6))
del tape
