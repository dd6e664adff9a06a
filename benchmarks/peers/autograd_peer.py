"""HIPS autograd (eager by nature)."""
from __future__ import annotations

from typing import Any, Callable, List

import autograd.numpy as anp
from autograd import hessian, value_and_grad
from autograd.scipy.special import logsumexp

from ..floor import chain
from ..harness import Variant


def chain_eager(data: dict) -> Callable[[], Any]:
    fn = value_and_grad(lambda x: anp.sum(chain(x, data["n_ops"], anp.sin, anp.tanh)))
    return lambda: fn(data["x"])


def mlp_eager(data: dict) -> Callable[[], Any]:
    def loss(params, x, labels):
        w1, b1, w2, b2, w3, b3 = params
        h1 = anp.tanh(anp.dot(x, w1) + b1)
        h2 = anp.tanh(anp.dot(h1, w2) + b2)
        logits = anp.dot(h2, w3) + b3
        return anp.mean(logsumexp(logits, axis=1) - anp.sum(labels * logits, axis=1))
    fn = value_and_grad(loss)

    def step():
        value, grads = fn(list(data["params"]), data["x"], data["labels"])
        return [value] + list(grads)
    return step


def hessian_eager(data: dict) -> Callable[[], Any]:
    a, b = data["A"], data["B"]
    fn = hessian(lambda x: anp.sum(anp.tanh(anp.dot(a, x)) ** 2) + anp.sum(x * anp.dot(b, x)) / 2)
    return lambda: fn(data["x"])


def variants() -> List[Variant]:
    v = Variant
    return [v("W1", "autograd", "step", chain_eager),
            v("W2", "autograd", "step", mlp_eager),
            v("W3 n=500", "autograd (hessian)", "step", hessian_eager),
            v("W3 n=100", "autograd (hessian)", "step", hessian_eager),
            v("W5", "autograd", "step", chain_eager),
            v("W6", "autograd", "memory", chain_eager)]
