"""JAX's variants of the model workloads W7-W11: eager (op by op) and jit; the
recurrent loop as lax.scan and the tasks of W9 as vmap under jit."""
from __future__ import annotations

from typing import Any, Callable, List

import jax
import jax.numpy as jnp
from jax import lax

from ..harness import Variant


def _blocked(fn: Callable, *args) -> Callable[[], Any]:
    return lambda: jax.block_until_ready(fn(*args))


def _value_and_grad(loss: Callable, jit: bool, argnums: Any = 0) -> Callable:
    fn = jax.value_and_grad(loss, argnums=argnums)
    return jax.jit(fn) if jit else fn


# -- W7 ---------------------------------------------------------------------------------
def _cnn_loss(params, x, labels):
    w1, b1, w2, b2, w3, b3 = params

    def block(h, w, b):
        h = jax.nn.relu(lax.conv_general_dilated(h, w, (1, 1), "SAME",
                                                 dimension_numbers=("NHWC", "HWIO", "NHWC")) + b)
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = block(block(x, w1, b1), w2, b2)
    logits = h.reshape(h.shape[0], -1) @ w3 + b3
    return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits, axis=1), axis=1))


def cnn(data: dict, jit: bool) -> Callable[[], Any]:
    params = [jnp.asarray(p) for p in data["params"]]
    return _blocked(_value_and_grad(_cnn_loss, jit), params, jnp.asarray(data["x"]),
                    jnp.asarray(data["labels"]))


# -- W8 ---------------------------------------------------------------------------------
def _lstm_cell(x_t, h, c, w, b):
    i, f, g, o = jnp.split(jnp.concatenate([x_t, h], 1) @ w + b, 4, axis=1)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c), c


def _gru_cell(x_t, h, c, wzr, bzr, wn, bn):
    z, r = jnp.split(jax.nn.sigmoid(jnp.concatenate([x_t, h], 1) @ wzr + bzr), 2, axis=1)
    n = jnp.tanh(jnp.concatenate([x_t, r * h], 1) @ wn + bn)
    return (1 - z) * n + z * h, c


def rnn(data: dict, jit: bool) -> Callable[[], Any]:
    """eager: a Python loop, op by op; jit: lax.scan under jit."""
    cell = _lstm_cell if data["cell"] == "lstm" else _gru_cell

    def loss(params, x, readout):
        zero = jnp.zeros_like(readout)
        if jit:
            def body(carry, x_t):
                return cell(x_t, *carry, *params), None
            (h, _), _ = lax.scan(body, (zero, zero), x)
        else:
            h = c = zero
            for t in range(x.shape[0]):
                h, c = cell(x[t], h, c, *params)
        return jnp.sum(h * readout)
    params = [jnp.asarray(p) for p in data["params"]]
    return _blocked(_value_and_grad(loss, jit), params, jnp.asarray(data["x"]),
                    jnp.asarray(data["readout"]))


# -- W9 ---------------------------------------------------------------------------------
def maml(data: dict, jit: bool) -> Callable[[], Any]:
    alpha = data["alpha"]

    def task_loss(w, x, y):
        r = x @ w - y
        return jnp.mean(r * r)

    def meta_loss(w, xs, ys, xq, yq):
        def per_task(x_s, y_s, x_q, y_q):
            return task_loss(w - alpha * jax.grad(task_loss)(w, x_s, y_s), x_q, y_q)
        return jnp.mean(jax.vmap(per_task)(xs, ys, xq, yq))
    args = [jnp.asarray(data[k]) for k in ("w", "xs", "ys", "xq", "yq")]
    return _blocked(_value_and_grad(meta_loss, jit), *args)


# -- W10 --------------------------------------------------------------------------------
def _layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta


def encoder(data: dict, jit: bool) -> Callable[[], Any]:
    heads = data["heads"]
    seq, width = data["x"].shape
    depth = width // heads

    def loss(x, params, target):
        wq, wk, wv, wo, g1, be1, g2, be2, w1, b1, w2, b2 = params
        l1 = _layer_norm(x, g1, be1)
        q, k, v = ((l1 @ m).reshape(seq, heads, depth).transpose(1, 0, 2) for m in (wq, wk, wv))
        p = jax.nn.softmax(q @ k.transpose(0, 2, 1) * jnp.float32(1 / depth ** 0.5), axis=-1)
        h = x + (p @ v).transpose(1, 0, 2).reshape(seq, width) @ wo
        u = _layer_norm(h, g2, be2) @ w1 + b1
        y = h + jax.nn.gelu(u, approximate=True) @ w2 + b2
        return jnp.sum(y * target)
    params = [jnp.asarray(p) for p in data["params"]]
    return _blocked(_value_and_grad(loss, jit, (0, 1)), jnp.asarray(data["x"]), params,
                    jnp.asarray(data["target"]))


# -- W11 --------------------------------------------------------------------------------
def pinn(data: dict, jit: bool) -> Callable[[], Any]:
    """u_xx + u_yy per point by grad of grad, vmapped over the points."""
    def u(weights, biases, px, py):
        a = jnp.stack([px, py])
        for w, b in zip(weights[:-1], biases[:-1]):
            a = jnp.tanh(a @ w + b)
        return (a @ weights[-1] + biases[-1])[0]

    def loss(weights, hidden_biases, last_bias, x, y, f):
        biases = list(hidden_biases) + [last_bias]
        uxx = jax.grad(jax.grad(u, 2), 2)
        uyy = jax.grad(jax.grad(u, 3), 3)
        lap = jax.vmap(lambda px, py: uxx(weights, biases, px, py) + uyy(weights, biases, px, py))
        residual = lap(x[:, 0], y[:, 0])[:, None] - f
        return jnp.mean(residual * residual)
    weights = [jnp.asarray(w) for w in data["weights"]]
    biases = [jnp.asarray(b) for b in data["biases"]]
    return _blocked(_value_and_grad(loss, jit, (0, 1)), weights, biases[:-1], biases[-1],
                    jnp.asarray(data["x"]), jnp.asarray(data["y"]), jnp.asarray(data["f"]))


def model_variants() -> List[Variant]:
    v = Variant

    def eager(make):
        return lambda data: make(data, False)

    def jit(make):
        return lambda data: make(data, True)
    return [v("W7", "JAX eager", "step", eager(cnn)),
            v("W7", "JAX jit", "step", jit(cnn)),
            v("W8 LSTM", "JAX eager (Python loop)", "step", eager(rnn)),
            v("W8 LSTM", "JAX jit (lax.scan)", "step", jit(rnn)),
            v("W8 GRU", "JAX eager (Python loop)", "step", eager(rnn)),
            v("W8 GRU", "JAX jit (lax.scan)", "step", jit(rnn)),
            v("W9", "JAX eager (vmap over tasks)", "step", eager(maml)),
            v("W9", "JAX jit (vmap over tasks)", "step", jit(maml)),
            v("W10", "JAX eager", "step", eager(encoder)),
            v("W10", "JAX jit", "step", jit(encoder)),
            v("W11", "JAX eager (vmap of grad of grad)", "step", eager(pinn)),
            v("W11", "JAX jit (vmap of grad of grad)", "step", jit(pinn))]
