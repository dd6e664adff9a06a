"""Train a small MLP (30-16-1, tanh, logistic loss) on breast-cancer data, twice:
once in eager style with GradientTape, once in graph style with dg.gradients and
a Session. Same data, same initial weights, same plain gradient descent, so the
two modes must print the same losses.

Run: make demo   (or: python examples/breast_cancer.py)
"""
from __future__ import annotations

import os
import time

import numpy as np

import duograd as dg

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "breast_cancer.csv")
STEPS = 300
LEARNING_RATE = 0.5
HIDDEN = 16


def load_data():
    """Standardised features and 0/1 labels, split 80/20 with a fixed seed."""
    raw = np.loadtxt(DATA, delimiter=",", skiprows=1)
    x, y = raw[:, :-1], raw[:, -1:]
    x = (x - x.mean(0)) / x.std(0)
    order = np.random.default_rng(0).permutation(len(x))
    cut = int(0.8 * len(x))
    train, test = order[:cut], order[cut:]
    return x[train], y[train], x[test], y[test]


def initial_params(n_features: int):
    rng = np.random.default_rng(1)
    return [rng.standard_normal((n_features, HIDDEN)) / np.sqrt(n_features), np.zeros(HIDDEN),
            rng.standard_normal((HIDDEN, 1)) / np.sqrt(HIDDEN), np.zeros(1)]


def logits(params, x):
    w1, b1, w2, b2 = params
    return dg.matmul(dg.tanh(dg.matmul(x, w1) + b1), w2) + b2


def logistic_loss(z, y):
    """Mean of log(1 + exp(z)) - y z, written in its overflow-free form."""
    return dg.reduce_mean(dg.maximum(z, 0.0) - z * y + dg.log1p(dg.exp(-dg.abs(z))))


def accuracy(z: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((z > 0) == (y > 0.5)))


def train_eager(x, y, x_test, y_test):
    params = [dg.constant(p) for p in initial_params(x.shape[1])]
    x, y = dg.constant(x), dg.constant(y)
    losses = []
    for _ in range(STEPS):
        with dg.GradientTape() as tape:
            tape.watch(params)
            loss = logistic_loss(logits(params, x), y)
        grads = tape.gradient(loss, params)
        params = [p - LEARNING_RATE * g for p, g in zip(params, grads)]
        losses.append(float(loss))
    test_z = logits(params, dg.constant(x_test)).numpy()
    return losses, accuracy(test_z, y_test)


def train_graph(x, y, x_test, y_test):
    graph = dg.Graph()
    with graph.as_default():
        inputs = dg.placeholder(dg.float64, [None, x.shape[1]], name="x")
        labels = dg.placeholder(dg.float64, [None, 1], name="y")
        param_feeds = [dg.placeholder(dg.float64, p.shape, name=f"param_{i}")
                       for i, p in enumerate(initial_params(x.shape[1]))]
        z = logits(param_feeds, inputs)
        loss = logistic_loss(z, labels)
        grads = dg.gradients(loss, param_feeds)
        updated = [p - LEARNING_RATE * g for p, g in zip(param_feeds, grads)]
    params = initial_params(x.shape[1])
    losses = []
    with dg.Session(graph=graph) as sess:
        for _ in range(STEPS):
            feeds = {inputs: x, labels: y, **dict(zip(param_feeds, params))}
            loss_value, params = sess.run([loss, updated], feeds)
            losses.append(float(loss_value))
        test_z = sess.run(z, {inputs: x_test, **dict(zip(param_feeds, params))})
    return losses, accuracy(test_z, y_test)


def report(mode: str, losses, test_accuracy: float, seconds: float) -> None:
    marks = [0, 1, 10, 50, 100, STEPS - 1]
    trail = "  ".join(f"step {i}: {losses[i]:.4f}" for i in marks)
    print(f"{mode:>5}  {trail}")
    print(f"{mode:>5}  test accuracy {test_accuracy:.3f}   ({seconds:.2f} s for {STEPS} steps)")


def main() -> None:
    x, y, x_test, y_test = load_data()
    print(f"breast-cancer data: {len(x)} training and {len(x_test)} test samples, "
          f"{x.shape[1]} features; MLP 30-{HIDDEN}-1, plain gradient descent")
    start = time.perf_counter()
    eager_losses, eager_acc = train_eager(x, y, x_test, y_test)
    report("eager", eager_losses, eager_acc, time.perf_counter() - start)
    start = time.perf_counter()
    graph_losses, graph_acc = train_graph(x, y, x_test, y_test)
    report("graph", graph_losses, graph_acc, time.perf_counter() - start)
    gap = max(abs(a - b) for a, b in zip(eager_losses, graph_losses))
    print(f"largest loss difference between the modes: {gap:.2e}")
    if not (eager_losses[-1] < eager_losses[0] and gap < 1e-9):
        raise SystemExit("demo failed: the loss did not fall, or the modes disagree")


if __name__ == "__main__":
    main()
