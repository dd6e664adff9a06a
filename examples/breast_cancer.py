"""Train an MLP (30-16-1, tanh, logistic loss) on breast-cancer data as users do:
a `dg.Module`, the Adam optimizer, a `dg.data` input pipeline, a CheckpointManager
the run resumes from, TensorBoard summaries and a tqdm progress bar, in eager
mode (a `dg.function` train step fed by iterating the dataset) and in graph mode
(TF1 style: `dg.gradients`, a one-shot iterator's `get_next()`, a Session, a
FileWriter with the graph). Each step trains on the whole training set (one
batch of all of it, repeated), so that both modes and the resumed runs follow
the same trajectory bit for bit.

Each mode trains three times: uninterrupted for STEPS steps; then "killed"
after INTERRUPT_AT steps; then restarted from the latest checkpoint up to
STEPS. The resumed run must follow the uninterrupted one bit for bit, and
the two modes must agree.

Run: make demo   (or: python examples/breast_cancer.py [--logdir DIR])
Then: tensorboard --logdir examples/runs   (loss curves and the gradient graph)
"""
from __future__ import annotations

import argparse
import os
import shutil
import time
from typing import Iterable, List

import numpy as np

import duograd as dg

try:  # the `demo` extra (make demo installs it); plain loops without it
    from tqdm import tqdm
except ImportError:  # pragma: no cover
    tqdm = None

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "breast_cancer.csv")
STEPS = 300
INTERRUPT_AT = 120
SAVE_EVERY = 40
LEARNING_RATE = 0.01
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


class MLP(dg.Module):
    """x -> tanh(x W1 + b1) W2 + b2, float64, with a fixed initialisation."""

    def __init__(self, n_features: int, hidden: int = HIDDEN, name: str = "mlp") -> None:
        super().__init__(name=name)
        rng = np.random.default_rng(1)
        with self.name_scope:
            self.w1 = dg.Variable(rng.standard_normal((n_features, hidden)) / np.sqrt(n_features),
                                  name="w1")
            self.b1 = dg.Variable(np.zeros(hidden), name="b1")
            self.w2 = dg.Variable(rng.standard_normal((hidden, 1)) / np.sqrt(hidden), name="w2")
            self.b2 = dg.Variable(np.zeros(1), name="b2")

    @dg.Module.with_name_scope
    def __call__(self, x):
        with dg.name_scope("hidden"):
            h = dg.tanh(dg.matmul(x, self.w1) + self.b1)
        with dg.name_scope("logits"):
            return dg.matmul(h, self.w2) + self.b2


def logistic_loss(z, y):
    """Mean of log(1 + exp(z)) - y z, written in its overflow-free form."""
    with dg.name_scope("logistic_loss"):
        return dg.reduce_mean(dg.maximum(z, 0.0) - z * y + dg.log1p(dg.exp(-dg.abs(z))))


def training_batches(x: np.ndarray, y: np.ndarray):
    """The input pipeline: the training set as one batch, again and again."""
    return dg.data.Dataset.from_tensor_slices((x, y)).batch(len(x)).repeat()


def accuracy(z: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((z > 0) == (y > 0.5)))


def progress(steps: Iterable[int], start: int, desc: str):
    if tqdm is None:
        return steps
    return tqdm(steps, initial=start, total=STEPS, desc=desc, leave=False, ncols=80)


def train_eager(data, ckpt_dir: str, logdir: str, stop_at: int = STEPS):
    """Trains (resuming from `ckpt_dir` if it holds a checkpoint) until step `stop_at`."""
    x, y, x_test, y_test = data
    model = MLP(x.shape[1])
    optimizer = dg.keras.optimizers.Adam(LEARNING_RATE)
    manager = dg.train.CheckpointManager(dg.train.Checkpoint(model=model, optimizer=optimizer),
                                         ckpt_dir, max_to_keep=3)
    manager.restore_or_initialize()
    start = int(optimizer.iterations.numpy())
    writer = dg.summary.create_file_writer(logdir)

    @dg.function
    def train_step(inputs, labels):
        with dg.GradientTape() as tape:
            loss = logistic_loss(model(inputs), labels)
        dg.summary.scalar("loss", loss, step=optimizer.iterations)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    losses: List[float] = []
    batches = iter(training_batches(x, y))
    with writer.as_default():
        for step in progress(range(start, stop_at), start, "eager"):
            inputs, labels = next(batches)
            losses.append(float(train_step(inputs, labels)))
            if (step + 1) % SAVE_EVERY == 0:
                manager.save(checkpoint_number=step + 1)
    writer.close()
    return losses, accuracy(model(dg.constant(x_test)).numpy(), y_test), start


def train_graph(data, ckpt_dir: str, logdir: str, stop_at: int = STEPS):
    """The same training in a graph run by a Session (TF1 style)."""
    x, y, x_test, y_test = data
    graph = dg.Graph()
    with graph.as_default():
        iterator = dg.compat.v1.data.make_one_shot_iterator(training_batches(x, y))
        inputs, labels = iterator.get_next()
        model = MLP(x.shape[1])
        optimizer = dg.keras.optimizers.Adam(LEARNING_RATE)
        logits = model(inputs)
        test_logits = model(dg.constant(x_test))
        loss = logistic_loss(logits, labels)
        grads = dg.gradients(loss, list(model.trainable_variables))
        train_op = optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        dg.compat.v1.summary.scalar("loss", loss)
        summaries = dg.compat.v1.summary.merge_all()
        manager = dg.train.CheckpointManager(
            dg.train.Checkpoint(model=model, optimizer=optimizer), ckpt_dir, max_to_keep=3)
        init = dg.global_variables_initializer()
    losses: List[float] = []
    with dg.Session(graph=graph) as sess:
        sess.run(init)
        manager.restore_or_initialize()  # into the default session
        start = int(sess.run(optimizer.iterations))
        writer = dg.compat.v1.summary.FileWriter(logdir, graph)
        for step in progress(range(start, stop_at), start, "graph"):
            loss_value, summary, _ = sess.run([loss, summaries, train_op])
            writer.add_summary(summary, step)
            losses.append(float(loss_value))
            if (step + 1) % SAVE_EVERY == 0:
                manager.save(checkpoint_number=step + 1)
        writer.close()
        test_accuracy = accuracy(sess.run(test_logits), y_test)
    return losses, test_accuracy, start


def run_mode(mode: str, train, data, logdir: str) -> List[float]:
    """Uninterrupted, interrupted and resumed runs of one mode; checks they agree."""
    began = time.perf_counter()
    full, test_accuracy, _ = train(data, os.path.join(logdir, "ckpt", f"{mode}_full"),
                                   os.path.join(logdir, mode))
    seconds = time.perf_counter() - began
    ckpt_dir = os.path.join(logdir, "ckpt", f"{mode}_resumed")
    summaries = os.path.join(logdir, "restarts", mode)
    first, _, _ = train(data, ckpt_dir, summaries, stop_at=INTERRUPT_AT)
    restored_from = os.path.basename(dg.train.latest_checkpoint(ckpt_dir) or "nothing")
    rest, _, resumed_at = train(data, ckpt_dir, summaries)
    marks = [0, 1, 10, 50, 100, STEPS - 1]
    print(f"{mode:>5}  " + "  ".join(f"step {i}: {full[i]:.4f}" for i in marks))
    print(f"{mode:>5}  test accuracy {test_accuracy:.3f}   ({seconds:.2f} s for {STEPS} steps)")
    resumed = first + rest
    same = resumed == full
    print(f"{mode:>5}  killed at step {len(first)}, restarted from {restored_from} (step "
          f"{resumed_at}): resumed losses {'==' if same else '!='} uninterrupted, bit for bit")
    if not same or resumed_at != (INTERRUPT_AT // SAVE_EVERY) * SAVE_EVERY:
        raise SystemExit(f"demo failed: the resumed {mode} run left the uninterrupted trajectory")
    return full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default=os.path.join(HERE, "runs"),
                        help="summaries and checkpoints (emptied first)")
    logdir = parser.parse_args().logdir
    shutil.rmtree(logdir, ignore_errors=True)
    data = load_data()
    x, _, x_test, _ = data
    print(f"breast-cancer data: {len(x)} training and {len(x_test)} test samples, "
          f"{x.shape[1]} features; MLP 30-{HIDDEN}-1 (dg.Module), Adam({LEARNING_RATE}), "
          f"checkpoints every {SAVE_EVERY} steps")
    eager = run_mode("eager", train_eager, data, logdir)
    graph = run_mode("graph", train_graph, data, logdir)
    gap = max(abs(a - b) for a, b in zip(eager, graph, strict=True))
    print(f"largest loss difference between the modes: {gap:.2e}")
    print(f"summaries and checkpoints in {logdir}; view them with: tensorboard --logdir {logdir}")
    if not (eager[-1] < eager[0] and gap < 1e-9):
        raise SystemExit("demo failed: the loss did not fall, or the modes disagree")


if __name__ == "__main__":
    main()
