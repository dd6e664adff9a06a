"""PyTorch (eager autograd, CPU, one thread)."""
from __future__ import annotations

from typing import Any, Callable, List

import torch
import torch.nn.functional as F

from ..floor import chain
from ..harness import Variant
from ..pinning import single_threaded
from .torch_models import model_variants

if single_threaded():
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)


def chain_eager(data: dict) -> Callable[[], Any]:
    x = torch.tensor(data["x"], requires_grad=True)

    def step():
        value = chain(x, data["n_ops"], torch.sin, torch.tanh).sum()
        (grad,) = torch.autograd.grad(value, x)
        return value.detach().numpy(), grad.numpy()
    return step


def mlp_eager(data: dict) -> Callable[[], Any]:
    x = torch.tensor(data["x"])
    target = torch.tensor(data["labels"]).argmax(dim=1)
    params = [torch.tensor(p, requires_grad=True) for p in data["params"]]

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h1 = torch.tanh(x @ w1 + b1)
        h2 = torch.tanh(h1 @ w2 + b2)
        loss = F.cross_entropy(h2 @ w3 + b3, target)
        grads = torch.autograd.grad(loss, params)
        return [loss.detach().numpy()] + [g.numpy() for g in grads]
    return step


def hessian_eager(data: dict) -> Callable[[], Any]:
    a, b, x = (torch.tensor(data[k]) for k in ("A", "B", "x"))

    def f(x):
        return (torch.tanh(a @ x) ** 2).sum() + (x * (b @ x)).sum() / 2
    return lambda: torch.autograd.functional.hessian(f, x).numpy()


def variants() -> List[Variant]:
    v = Variant
    return [v("W1", "PyTorch", "step", chain_eager),
            v("W2", "PyTorch", "step", mlp_eager),
            v("W3 n=500", "PyTorch (autograd.functional.hessian)", "step", hessian_eager),
            v("W3 n=100", "PyTorch (autograd.functional.hessian)", "step", hessian_eager),
            v("W5", "PyTorch", "step", chain_eager),
            v("W6", "PyTorch", "memory", chain_eager)] + model_variants()
