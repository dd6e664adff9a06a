"""TensorFlow: eager (GradientTape) and graph (tf.function; tf.gradients for W4)."""
from __future__ import annotations

import time
from typing import Any, Callable, List


import tensorflow as tf

from ..floor import chain
from ..harness import Variant
from ..pinning import single_threaded
from ..tf_style_models import model_variants

if single_threaded():
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)


def _chain_grad(x: Any, n_ops: int):
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = tf.reduce_sum(chain(x, n_ops, tf.sin, tf.tanh))
    return value, tape.gradient(value, x)


def chain_eager(data: dict) -> Callable[[], Any]:
    x = tf.constant(data["x"])
    return lambda: _chain_grad(x, data["n_ops"])


def chain_function(data: dict) -> Callable[[], Any]:
    x = tf.constant(data["x"])
    fn = tf.function(lambda x: _chain_grad(x, data["n_ops"]))
    return lambda: fn(x)


def chain_function_oneshot(data: dict) -> Any:
    return chain_function(data)()


def _mlp_loss(x, labels, params):
    w1, b1, w2, b2, w3, b3 = params
    h1 = tf.tanh(tf.matmul(x, w1) + b1)
    h2 = tf.tanh(tf.matmul(h1, w2) + b2)
    logits = tf.matmul(h2, w3) + b3
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))


def _mlp_grad(x, labels, params):
    with tf.GradientTape() as tape:
        tape.watch(params)
        loss = _mlp_loss(x, labels, params)
    return loss, tape.gradient(loss, params)


def _mlp_args(data: dict):
    return (tf.constant(data["x"]), tf.constant(data["labels"]),
            [tf.constant(p) for p in data["params"]])


def mlp_eager(data: dict) -> Callable[[], Any]:
    x, labels, params = _mlp_args(data)
    return lambda: _mlp_grad(x, labels, params)


def mlp_function(data: dict) -> Callable[[], Any]:
    x, labels, params = _mlp_args(data)
    fn = tf.function(_mlp_grad)
    return lambda: fn(x, labels, params)


def _hessian_f(x, a, b):
    col = tf.reshape(x, [-1, 1])
    return tf.reduce_sum(tf.tanh(a @ col) ** 2) + tf.reduce_sum(col * (b @ col)) / 2


def _nested_jacobian(x, a, b):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            f = _hessian_f(x, a, b)
        g = inner.gradient(f, x)
    return outer.jacobian(g, x)


def _consts(data: dict):
    return tf.constant(data["A"]), tf.constant(data["B"]), tf.constant(data["x"])


def hessian_eager(data: dict) -> Callable[[], Any]:
    a, b, x = _consts(data)
    return lambda: _nested_jacobian(x, a, b)


def hessian_function_jacobian(data: dict) -> Callable[[], Any]:
    a, b, x = _consts(data)
    fn = tf.function(lambda x: _nested_jacobian(x, a, b))
    return lambda: fn(x)


def hessian_function_hessians(data: dict) -> Callable[[], Any]:
    a, b, x = _consts(data)
    fn = tf.function(lambda x: tf.hessians(_hessian_f(x, a, b), x)[0])
    return lambda: fn(x)


def gradients_call(data: dict) -> dict:
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float64, data["x"].shape)
        t0 = time.perf_counter()
        value = tf.reduce_sum(chain(x, data["n_ops"], tf.sin, tf.tanh))
        t1 = time.perf_counter()
        grad = tf.compat.v1.gradients(value, x)[0]
        t2 = time.perf_counter()
        with tf.compat.v1.Session(graph=graph) as session:
            result = session.run([value, grad], {x: data["x"]})
    return {"gradients_s": t2 - t1, "forward_s": t1 - t0, "result": result}


def variants() -> List[Variant]:
    v = Variant
    out = [v("W1", "TF eager", "step", chain_eager),
           v("W1", "TF graph (tf.function)", "step", chain_function),
           v("W2", "TF eager", "step", mlp_eager),
           v("W2", "TF graph (tf.function)", "step", mlp_function)]
    for n in (500, 100):
        out += [v(f"W3 n={n}", "TF eager (nested tapes, jacobian)", "step", hessian_eager),
                v(f"W3 n={n}", "TF graph (tf.hessians in tf.function)", "step",
                  hessian_function_hessians, heavy=n == 500, note="n=500: minutes to trace"),
                v(f"W3 n={n}", "TF graph (jacobian in tf.function)", "step",
                  hessian_function_jacobian)]
    out += [v("W4", "TF graph (tf.gradients)", "w4", gradients_call),
            v("W5", "TF eager", "step", chain_eager),
            v("W5", "TF graph (tf.function, trace + run)", "oneshot", chain_function_oneshot,
              heavy=True, note="issue: not done in 120 s"),
            v("W6", "TF eager", "memory", chain_eager),
            v("W6", "TF graph (tf.function)", "memory", chain_function)]
    return out + model_variants(tf, "TF", "tf.function", "Session")



