"""PyTorch's variants of the model workloads W7-W11 (eager autograd, as PyTorch users
write them: NCHW convolutions, F.layer_norm, autograd.grad with create_graph)."""
from __future__ import annotations

from typing import Any, Callable, List

import numpy as np
import torch
import torch.nn.functional as F

from ..harness import Variant


def _params(values: List[np.ndarray]) -> List[Any]:
    return [torch.tensor(v, requires_grad=True) for v in values]


def _numpy(tensors) -> List[np.ndarray]:
    return [t.detach().numpy() for t in tensors]


# -- W7 ---------------------------------------------------------------------------------
def cnn_eager(data: dict) -> Callable[[], Any]:
    x = torch.tensor(np.ascontiguousarray(data["x"].transpose(0, 3, 1, 2)))
    target = torch.tensor(data["labels"].argmax(axis=1))
    w1, b1, w2, b2, w3, b3 = data["params"]
    # filters HWIO -> OIHW; the gradients are returned as HWIO for the check
    params = _params([np.ascontiguousarray(w1.transpose(3, 2, 0, 1)), b1,
                      np.ascontiguousarray(w2.transpose(3, 2, 0, 1)), b2, w3, b3])

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2, padding=1)), 2)
        logits = h.permute(0, 2, 3, 1).reshape(h.shape[0], -1) @ w3 + b3
        loss = F.cross_entropy(logits, target)
        g = torch.autograd.grad(loss, params)
        return [loss.detach().numpy(), g[0].permute(2, 3, 1, 0).numpy(), g[1].numpy(),
                g[2].permute(2, 3, 1, 0).numpy()] + _numpy(g[3:])
    return step


# -- W8 ---------------------------------------------------------------------------------
def _lstm_cell(x_t, h, c, w, b):
    i, f, g, o = (torch.cat([x_t, h], 1) @ w + b).chunk(4, dim=1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def _gru_cell(x_t, h, c, wzr, bzr, wn, bn):
    z, r = torch.sigmoid(torch.cat([x_t, h], 1) @ wzr + bzr).chunk(2, dim=1)
    n = torch.tanh(torch.cat([x_t, r * h], 1) @ wn + bn)
    return (1 - z) * n + z * h, c


def rnn_eager(data: dict) -> Callable[[], Any]:
    x, readout = torch.tensor(data["x"]), torch.tensor(data["readout"])
    params = _params(data["params"])
    cell = _lstm_cell if data["cell"] == "lstm" else _gru_cell

    def step():
        h = c = torch.zeros_like(readout)
        for t in range(x.shape[0]):
            h, c = cell(x[t], h, c, *params)
        loss = (h * readout).sum()
        return [loss.detach().numpy()] + _numpy(torch.autograd.grad(loss, params))
    return step


# -- W9 ---------------------------------------------------------------------------------
def maml_eager(data: dict) -> Callable[[], Any]:
    xs, ys, xq, yq = (torch.tensor(data[k]) for k in ("xs", "ys", "xq", "yq"))
    w = torch.tensor(data["w"], requires_grad=True)
    alpha = data["alpha"]

    def step():
        losses = []
        for t in range(xs.shape[0]):
            inner = ((xs[t] @ w - ys[t]) ** 2).mean()
            (g,) = torch.autograd.grad(inner, w, create_graph=True)
            losses.append(((xq[t] @ (w - alpha * g) - yq[t]) ** 2).mean())
        loss = torch.stack(losses).mean()
        (grad,) = torch.autograd.grad(loss, w)
        return loss.detach().numpy(), grad.numpy()
    return step


# -- W10 --------------------------------------------------------------------------------
def encoder_eager(data: dict) -> Callable[[], Any]:
    x, target = torch.tensor(data["x"], requires_grad=True), torch.tensor(data["target"])
    params = _params(data["params"])
    heads = data["heads"]
    seq, width = data["x"].shape
    depth = width // heads

    def step():
        wq, wk, wv, wo, g1, be1, g2, be2, w1, b1, w2, b2 = params
        l1 = F.layer_norm(x, (width,), g1, be1, 1e-5)
        q, k, v = ((l1 @ m).reshape(seq, heads, depth).transpose(0, 1) for m in (wq, wk, wv))
        p = torch.softmax(q @ k.transpose(1, 2) * (1 / np.sqrt(depth)), dim=-1)
        h = x + (p @ v).transpose(0, 1).reshape(seq, width) @ wo
        u = F.layer_norm(h, (width,), g2, be2, 1e-5) @ w1 + b1
        y = h + F.gelu(u, approximate="tanh") @ w2 + b2
        loss = (y * target).sum()
        return [loss.detach().numpy()] + _numpy(torch.autograd.grad(loss, [x] + params))
    return step


# -- W11 --------------------------------------------------------------------------------
def pinn_eager(data: dict) -> Callable[[], Any]:
    x, y = torch.tensor(data["x"], requires_grad=True), torch.tensor(data["y"], requires_grad=True)
    f = torch.tensor(data["f"])
    weights, biases = _params(data["weights"]), _params(data["biases"])
    sources = weights + biases[:-1]

    def step():
        a = torch.cat([x, y], 1)
        for w, b in zip(weights[:-1], biases[:-1]):
            a = torch.tanh(a @ w + b)
        u = (a @ weights[-1] + biases[-1]).sum()
        ux, uy = torch.autograd.grad(u, [x, y], create_graph=True)
        (uxx,) = torch.autograd.grad(ux.sum(), x, create_graph=True)
        (uyy,) = torch.autograd.grad(uy.sum(), y, create_graph=True)
        residual = uxx + uyy - f
        loss = (residual * residual).mean()
        return [loss.detach().numpy()] + _numpy(torch.autograd.grad(loss, sources))
    return step


def model_variants() -> List[Variant]:
    v = Variant
    return [v("W7", "PyTorch", "step", cnn_eager),
            v("W8 LSTM", "PyTorch (Python loop)", "step", rnn_eager),
            v("W8 GRU", "PyTorch (Python loop)", "step", rnn_eager),
            v("W9", "PyTorch eager (loop over tasks, create_graph)", "step", maml_eager),
            v("W10", "PyTorch", "step", encoder_eager),
            v("W11", "PyTorch (autograd.grad, create_graph)", "step", pinn_eager)]
