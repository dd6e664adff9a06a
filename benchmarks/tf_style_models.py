"""The model workloads W7-W11 written once against TensorFlow's API, run by TensorFlow
(benchmarks/peers/tf_peer.py) and by duograd (benchmarks/dg_workloads.py): `tf` is
either module. Eager steps use GradientTape; graph steps the same code in
`tf.function`; W9 also as a TF1 graph (placeholders, tf.gradients, Session).
"""
from __future__ import annotations

from typing import Any, Callable, List

import numpy as np

from .harness import Variant


def _consts(tf: Any, values: List[np.ndarray]) -> List[Any]:
    return [tf.constant(v) for v in values]


def _step(tf: Any, grads: Callable, args: List[Any], graph: bool) -> Callable[[], Any]:
    """grads(*args) eagerly, or through tf.function(grads) (traced on the first call)."""
    if not graph:
        return lambda: grads(*args)
    fn = tf.function(grads)
    return lambda: fn(*args)


# -- W7: CNN step ---------------------------------------------------------------------
def cnn_step(tf: Any, data: dict, graph: bool) -> Callable[[], Any]:
    def grads(x, labels, *params):
        w1, b1, w2, b2, w3, b3 = params
        with tf.GradientTape() as tape:
            tape.watch(params)
            h = tf.nn.relu(tf.nn.conv2d(x, w1, 1, "SAME") + b1)
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
            h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(h, w2, 1, "SAME") + b2), 2, 2, "VALID")
            logits = tf.matmul(tf.reshape(h, [tf.shape(h)[0], -1]), w3) + b3
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
        return loss, tape.gradient(loss, list(params))
    return _step(tf, grads, _consts(tf, [data["x"], data["labels"]] + data["params"]), graph)


# -- W8: LSTM and GRU -------------------------------------------------------------------
def _lstm_cell(tf, x_t, h, c, w, b):
    i, f, g, o = tf.split(tf.matmul(tf.concat([x_t, h], 1), w) + b, 4, axis=1)
    c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
    return tf.sigmoid(o) * tf.tanh(c), c


def _gru_cell(tf, x_t, h, c, wzr, bzr, wn, bn):
    z, r = tf.split(tf.sigmoid(tf.matmul(tf.concat([x_t, h], 1), wzr) + bzr), 2, axis=1)
    n = tf.tanh(tf.matmul(tf.concat([x_t, r * h], 1), wn) + bn)
    return (1 - z) * n + z * h, c


def _python_loop(tf, cell, x, readout, params):
    h = c = tf.zeros_like(readout)
    for t in range(x.shape[0]):
        h, c = cell(tf, x[t], h, c, *params)
    return tf.reduce_sum(h * readout)


def _while_loop(tf, cell, x, readout, params):
    steps = tf.shape(x)[0]

    def body(t, h, c):
        h, c = cell(tf, x[t], h, c, *params)
        return t + 1, h, c
    zero = tf.zeros_like(readout)
    _, h, _ = tf.while_loop(lambda t, h, c: t < steps, body, (tf.constant(0), zero, zero))
    return tf.reduce_sum(h * readout)


def rnn_step(tf: Any, data: dict, graph: bool) -> Callable[[], Any]:
    """graph: tf.while_loop inside tf.function; eager: a Python loop under a tape."""
    cell = _lstm_cell if data["cell"] == "lstm" else _gru_cell
    loop = _while_loop if graph else _python_loop

    def grads(x, readout, *params):
        with tf.GradientTape() as tape:
            tape.watch(params)
            loss = loop(tf, cell, x, readout, list(params))
        return loss, tape.gradient(loss, list(params))
    return _step(tf, grads, _consts(tf, [data["x"], data["readout"]] + data["params"]), graph)


# -- W9: MAML-style meta-gradient ---------------------------------------------------------
def _task_loss(tf, w, x, y):
    r = tf.matmul(x, w) - y
    return tf.reduce_mean(r * r)


def _meta_loss(tf, w, xs, ys, xq, yq, alpha, inner_gradient):
    """map_fn over tasks: one inner gradient step from w, then the query loss."""
    def per_task(task):
        x_s, y_s, x_q, y_q = task
        grad = inner_gradient(lambda: _task_loss(tf, w, x_s, y_s), w)
        return _task_loss(tf, w - alpha * grad, x_q, y_q)
    return tf.reduce_mean(tf.map_fn(per_task, (xs, ys, xq, yq), fn_output_signature=w.dtype))


MAML_KEYS = ("w", "xs", "ys", "xq", "yq")


def maml_function_step(tf: Any, data: dict) -> Callable[[], Any]:
    """The meta-loss and its second-order gradient in tf.function (tapes inside map_fn)."""
    alpha = data["alpha"]

    def tape_gradient(loss_fn, w):
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = loss_fn()
        return tape.gradient(loss, w)

    def grads(w, xs, ys, xq, yq):
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = _meta_loss(tf, w, xs, ys, xq, yq, alpha, tape_gradient)
        return loss, tape.gradient(loss, w)
    return _step(tf, grads, _consts(tf, [data[k] for k in MAML_KEYS]), True)


def maml_session_step(tf: Any, data: dict) -> Callable[[], Any]:
    """The same as a TF1 program: placeholders, tf.gradients inside map_fn, Session.run."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        holders = [v1.placeholder(tf.float64, data[k].shape) for k in MAML_KEYS]
        loss = _meta_loss(tf, *holders, data["alpha"],
                          lambda loss_fn, w: v1.gradients(loss_fn(), w)[0])
        fetches = [loss, v1.gradients(loss, holders[0])[0]]
    session = v1.Session(graph=graph)
    feeds = {h: data[k] for h, k in zip(holders, MAML_KEYS)}
    return lambda: session.run(fetches, feeds)


# -- W10: transformer encoder block -----------------------------------------------------------
def _layer_norm(tf, x, gamma, beta):
    mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
    return (x - mean) * tf.math.rsqrt(var + 1e-5) * gamma + beta


def _encoder_loss(tf, x, target, params, heads):
    wq, wk, wv, wo, g1, be1, g2, be2, w1, b1, w2, b2 = params
    seq, width = x.shape
    depth = width // heads

    def split(t):
        return tf.transpose(tf.reshape(t, [seq, heads, depth]), [1, 0, 2])
    l1 = _layer_norm(tf, x, g1, be1)
    q, k, v = split(tf.matmul(l1, wq)), split(tf.matmul(l1, wk)), split(tf.matmul(l1, wv))
    p = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) * np.float32(1 / np.sqrt(depth)))
    attn = tf.reshape(tf.transpose(tf.matmul(p, v), [1, 0, 2]), [seq, width])
    h = x + tf.matmul(attn, wo)
    u = tf.matmul(_layer_norm(tf, h, g2, be2), w1) + b1
    y = h + tf.matmul(tf.nn.gelu(u, approximate=True), w2) + b2
    return tf.reduce_sum(y * target)


def encoder_step(tf: Any, data: dict, graph: bool) -> Callable[[], Any]:
    heads = data["heads"]

    def grads(x, target, *params):
        sources = [x] + list(params)
        with tf.GradientTape() as tape:
            tape.watch(sources)
            loss = _encoder_loss(tf, x, target, list(params), heads)
        return loss, tape.gradient(loss, sources)
    return _step(tf, grads, _consts(tf, [data["x"], data["target"]] + data["params"]), graph)


# -- W11: physics-informed loss ----------------------------------------------------------------
def pinn_step(tf: Any, data: dict, graph: bool) -> Callable[[], Any]:
    """u_xx + u_yy by two nested persistent tapes; the outer tape gives the weights' gradients."""
    def grads(x, y, f, *params):
        half = len(params) // 2
        weights, biases = list(params[:half]), list(params[half:])
        sources = weights + biases[:-1]
        with tf.GradientTape() as outer:
            outer.watch(sources)
            with tf.GradientTape(persistent=True) as second:
                second.watch([x, y])
                with tf.GradientTape(persistent=True) as first:
                    first.watch([x, y])
                    a = tf.concat([x, y], 1)
                    for w, b in zip(weights[:-1], biases[:-1]):
                        a = tf.tanh(tf.matmul(a, w) + b)
                    u = tf.matmul(a, weights[-1]) + biases[-1]
                ux, uy = first.gradient(u, x), first.gradient(u, y)
            residual = second.gradient(ux, x) + second.gradient(uy, y) - f
            loss = tf.reduce_mean(residual * residual)
        return loss, outer.gradient(loss, sources)
    values = [data["x"], data["y"], data["f"]] + data["weights"] + data["biases"]
    return _step(tf, grads, _consts(tf, values), graph)


def model_variants(tf: Any, who: str, function: str, session: str) -> List[Variant]:
    """Every W7-W11 variant for the framework `tf`, named '<who> eager', '<who> graph (...)'."""
    v = Variant

    def eager(make):
        return lambda data: make(tf, data, False)

    def graph(make):
        return lambda data: make(tf, data, True)
    out = [v("W7", f"{who} eager", "step", eager(cnn_step)),
           v("W7", f"{who} graph ({function})", "step", graph(cnn_step))]
    for cell in ("LSTM", "GRU"):
        out += [v(f"W8 {cell}", f"{who} eager (Python loop)", "step", eager(rnn_step)),
                v(f"W8 {cell}", f"{who} graph (while_loop in {function})", "step",
                  graph(rnn_step))]
    out += [v("W9", f"{who} graph (map_fn in {function})", "step",
              lambda data: maml_function_step(tf, data)),
            v("W9", f"{who} graph (TF1: map_fn, gradients, {session})", "step",
              lambda data: maml_session_step(tf, data)),
            v("W10", f"{who} eager", "step", eager(encoder_step)),
            v("W10", f"{who} graph ({function})", "step", graph(encoder_step)),
            v("W11", f"{who} eager (nested tapes)", "step", eager(pinn_step)),
            v("W11", f"{who} graph (nested tapes in {function})", "step", graph(pinn_step))]
    return out
