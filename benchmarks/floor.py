"""The workloads' data (fixed seeds, float64) and the hand-written NumPy floor.

The floor writes forward AND backward by hand with the same NumPy kernels a
framework's ops use, keeping what a careful person keeps for the backward
pass (sin's input, tanh's output, the layer activations) and nothing else.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np

SEED = 20240607
CHAIN_CYCLE = ("sin", "mul 0.5", "add x", "tanh")


# -- data ------------------------------------------------------------------
def chain_data(n_ops: int, shape: Tuple[int, ...]) -> Dict[str, Any]:
    rng = np.random.default_rng(SEED)
    return {"x": rng.normal(size=shape), "n_ops": n_ops}


def mlp_data(batch: int = 256, sizes: Tuple[int, ...] = (784, 512, 512, 10)) -> Dict[str, Any]:
    rng = np.random.default_rng(SEED)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append(rng.normal(size=(fan_in, fan_out)) / np.sqrt(fan_in))
        params.append(rng.normal(size=(fan_out,)) * 0.1)
    x = rng.normal(size=(batch, sizes[0]))
    labels = np.eye(sizes[-1])[rng.integers(sizes[-1], size=batch)]
    return {"x": x, "labels": labels, "params": params}


def hessian_data(n: int) -> Dict[str, Any]:
    rng = np.random.default_rng(SEED + n)
    a = rng.normal(size=(n, n)) / np.sqrt(n)
    m = rng.normal(size=(n, n)) / np.sqrt(n)
    return {"A": a, "B": (m + m.T) / 2, "x": rng.normal(size=(n,)), "n": n}


# -- the chain: W1, W4, W5, W6 -----------------------------------------------------
def chain(x: Any, n_ops: int, sin: Callable, tanh: Callable) -> Any:
    """The W1 cycle (sin, *0.5, +x, tanh) repeated to `n_ops` ops, in any framework."""
    h = x
    for i in range(n_ops):
        k = i % 4
        if k == 0:
            h = sin(h)
        elif k == 1:
            h = h * 0.5
        elif k == 2:
            h = h + x
        else:
            h = tanh(h)
    return h


def chain_floor(x: np.ndarray, n_ops: int) -> Tuple[np.ndarray, np.ndarray]:
    """sum(chain(x)) and its gradient, forward and backward by hand."""
    saved: List[np.ndarray] = []  # sin's input and tanh's output, in forward order
    h = x
    for i in range(n_ops):
        k = i % 4
        if k == 0:
            saved.append(h)
            h = np.sin(h)
        elif k == 1:
            h = np.multiply(h, 0.5)
        elif k == 2:
            h = np.add(h, x)
        else:
            h = np.tanh(h)
            saved.append(h)
    value = np.sum(h)
    del h
    g = np.ones_like(x)
    gx = np.zeros_like(x)
    for i in range(n_ops - 1, -1, -1):
        k = i % 4
        if k == 3:
            t = saved.pop()
            g = g * (1 - t * t)
            del t
        elif k == 2:
            gx += g
        elif k == 1:
            g = g * 0.5
        else:
            g = g * np.cos(saved.pop())
    gx += g
    return value, gx


# -- W2: MLP step ------------------------------------------------------------
def mlp_floor(x: np.ndarray, labels: np.ndarray, params: List[np.ndarray]):
    """Mean softmax cross-entropy of a tanh MLP and the gradients of its 6 parameters."""
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    batch = x.shape[0]
    loss = np.sum(labels * (np.log(total) - shifted)) / batch
    dlogits = (exp / total - labels) / batch
    dw3 = h2.T @ dlogits
    db3 = dlogits.sum(axis=0)
    dz2 = (dlogits @ w3.T) * (1 - h2 * h2)
    dw2 = h1.T @ dz2
    db2 = dz2.sum(axis=0)
    dz1 = (dz2 @ w2.T) * (1 - h1 * h1)
    dw1 = x.T @ dz1
    db1 = dz1.sum(axis=0)
    return loss, [dw1, db1, dw2, db2, dw3, db3]


# -- W3: Hessian ---------------------------------------------------------------
def hessian_function(x: Any, a: Any, b: Any, ops: Any) -> Any:
    """f(x) = sum(tanh(A x)^2) + x^T B x / 2 with `ops` giving matvec, tanh, sum."""
    return ops.sum(ops.tanh(ops.matvec(a, x)) ** 2) + ops.sum(x * ops.matvec(b, x)) / 2


def hessian_floor(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The closed form A^T diag(h) A + B, h = d2/du2 tanh(u)^2 = 2 (1 - t^2)(1 - 3 t^2)."""
    t = np.tanh(a @ x)
    t2 = t * t
    h = 2 * (1 - t2) * (1 - 3 * t2)
    return a.T @ (h[:, None] * a) + b
