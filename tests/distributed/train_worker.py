"""A data-parallel training run for the tests: `mpiexec -n N python train_worker.py ...`.

Trains a 8-16-1 tanh MLP on a fixed synthetic data set with a hand-written SGD
update `v.assign_sub(lr * g)` of all-reduced gradients, in one of three modes
(eager, dg.function, Session), and writes the final variables to an .npz.
Each rank starts from different random weights: only the broadcast from rank
0 in `strategy.scope()` makes them agree.

`--reference N` runs the same steps in one process without any strategy: it
computes the N shards' gradients one after another and adds them in shard
order, the sum the all-reduce must reproduce bit for bit.

`--checkpoint-dir` saves every `--save-every` steps (chief only, atomic) and
resumes from the latest checkpoint; `--kill-at-step K --kill-rank R` makes
rank R SIGKILL itself at step K (the fault-tolerance test).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time

import numpy as np

import duograd as dg

FEATURES, HIDDEN, EXAMPLES, GLOBAL_BATCH, LEARNING_RATE = 8, 16, 96, 32, 0.3


def dataset():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((EXAMPLES, FEATURES))
    y = (x @ rng.standard_normal((FEATURES, 1)) > 0).astype(np.float64)
    return x, y


def global_batch(step: int):
    x, y = dataset()
    start = (step * GLOBAL_BATCH) % EXAMPLES
    return x[start:start + GLOBAL_BATCH], y[start:start + GLOBAL_BATCH]


def shard(batch, index: int, count: int):
    size = GLOBAL_BATCH // count
    return tuple(part[index * size:(index + 1) * size] for part in batch)


def initial_values(seed: int):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((FEATURES, HIDDEN)) / np.sqrt(FEATURES), np.zeros(HIDDEN),
            rng.standard_normal((HIDDEN, 1)) / np.sqrt(HIDDEN), np.zeros(1)]


def per_example_loss(params, x, y):
    w1, b1, w2, b2 = params
    z = dg.matmul(dg.tanh(dg.matmul(x, w1) + b1), w2) + b2
    return dg.reshape(dg.maximum(z, 0.0) - z * y + dg.log1p(dg.exp(-dg.abs(z))), [-1])


def loss_of(params, x, y):
    return dg.nn.compute_average_loss(per_example_loss(params, x, y),
                                      global_batch_size=GLOBAL_BATCH)


class EagerTrainer:
    """Eager (`function=False`) or dg.function (`function=True`) steps."""

    def __init__(self, params, function: bool) -> None:
        self.params = params
        self.grads = dg.function(self._grads) if function else self._grads
        self.step = dg.function(self._step) if function else self._step
        self.apply = dg.function(self._apply) if function else self._apply

    def _grads(self, x, y):
        with dg.GradientTape() as tape:
            loss = loss_of(self.params, x, y)
        return tape.gradient(loss, self.params)

    def _apply(self, grads):
        for v, g in zip(self.params, grads):
            v.assign_sub(LEARNING_RATE * g)

    def _step(self, x, y):
        grads = self._grads(x, y)
        grads = dg.distribute.get_replica_context().all_reduce(dg.distribute.ReduceOp.SUM, grads)
        self._apply(grads)

    def reference_step(self, shards) -> None:
        grads = [[g.numpy() for g in self.grads(dg.constant(x), dg.constant(y))]
                 for x, y in shards]
        self.apply([dg.constant(sum_in_order(column)) for column in zip(*grads)])

    def values(self):
        return [v.numpy() for v in self.params]


class SessionTrainer:
    """Graph mode: the all-reduce op runs inside Session.run."""

    def __init__(self, params, distributed: bool) -> None:
        self.params = params
        self.x = dg.placeholder(dg.float64, [None, FEATURES])
        self.y = dg.placeholder(dg.float64, [None, 1])
        grads = dg.gradients(loss_of(params, self.x, self.y), params)
        self.grads = grads
        self.fed_grads = [dg.placeholder(dg.float64, v.shape) for v in params]
        self.apply_fed = dg.group(*[v.assign_sub(LEARNING_RATE * g)
                                    for v, g in zip(params, self.fed_grads)])
        if distributed:
            reduced = dg.distribute.get_replica_context().all_reduce("SUM", grads)
            self.train_op = dg.group(*[v.assign_sub(LEARNING_RATE * g)
                                       for v, g in zip(params, reduced)])
        self.sess = dg.Session()
        self.sess.run(dg.global_variables_initializer())

    def step(self, x, y):
        self.sess.run(self.train_op, {self.x: x, self.y: y})

    def reference_step(self, shards) -> None:
        grads = [self.sess.run(self.grads, {self.x: x, self.y: y}) for x, y in shards]
        self.sess.run(self.apply_fed, dict(zip(self.fed_grads,
                                               [sum_in_order(c) for c in zip(*grads)])))

    def values(self):
        return self.sess.run(list(self.params))


def sum_in_order(parts):
    total = np.array(parts[0], copy=True)
    for part in parts[1:]:
        total += part
    return total


def make_trainer(mode: str, params, distributed: bool):
    if mode == "session":
        return SessionTrainer(params, distributed)
    return EagerTrainer(params, function=mode == "function")


def build_params(strategy, seed: int):
    names = ["w1", "b1", "w2", "b2"]
    if strategy is None:
        return [dg.Variable(v, name=n) for v, n in zip(initial_values(seed), names)]
    with strategy.scope():
        return [dg.Variable(v, name=n) for v, n in zip(initial_values(seed), names)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["eager", "function", "session"], default="eager")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--out", required=True)
    parser.add_argument("--reference", type=int, default=0)
    parser.add_argument("--deterministic", action="store_true")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--skip-collective-rank", type=int, default=-1)
    parser.add_argument("--checkpoint-dir")
    parser.add_argument("--save-every", type=int, default=4)
    parser.add_argument("--kill-at-step", type=int, default=-1)
    parser.add_argument("--kill-rank", type=int, default=1)
    args = parser.parse_args()

    with dg.Graph().as_default() if args.mode == "session" else contextlib.nullcontext():
        train(args)


def train(args) -> None:
    if args.reference:
        trainer = make_trainer(args.mode, build_params(None, seed=0), distributed=False)
        for step in range(args.steps):
            batch = global_batch(step)
            trainer.reference_step([shard(batch, r, args.reference)
                                    for r in range(args.reference)])
        np.savez(args.out, *trainer.values())
        return

    options = dg.distribute.experimental.CommunicationOptions(
        timeout_seconds=args.timeout, deterministic=args.deterministic)
    strategy = dg.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    rank, n = strategy.rank, strategy.num_replicas_in_sync
    check_input_pipelines(strategy, rank, n)
    params = build_params(strategy, seed=rank)  # each rank its own; rank 0's values win
    trainer = strategy.run(make_trainer, args=(args.mode, params, True))
    checkpoints = Checkpoints(args.checkpoint_dir, params, trainer, strategy) \
        if args.checkpoint_dir else None
    first = checkpoints.restore() if checkpoints else 0
    if first:
        print(f"rank {rank}: resumed at step {first}", flush=True)
    for step in range(first, args.steps):
        if step == args.kill_at_step and rank == args.kill_rank:
            os.kill(os.getpid(), signal.SIGKILL)
        if step == 1 and rank == args.skip_collective_rank:
            time.sleep(args.timeout * 30)  # skips the all-reduce the others wait in
            return
        x, y = shard(global_batch(step), rank, n)
        strategy.run(trainer.step, args=(dg.constant(x), dg.constant(y))
                     if args.mode != "session" else (x, y))
        if checkpoints and (step + 1) % args.save_every == 0:
            checkpoints.save(step + 1)
    values = trainer.values()
    dg.distribute.experimental.assert_replicas_in_sync(
        values, strategy)
    if rank == 0:
        np.savez(args.out, *values)
    print(f"rank {rank} of {n}: done, final loss {numpy_loss(values):.17g}", flush=True)


def check_input_pipelines(strategy, rank: int, n: int) -> None:
    """Each rank is one input pipeline and gets its own shard of a global batch."""
    contexts = []
    batches = list(strategy.distribute_datasets_from_function(
        lambda context: contexts.append(context) or [np.arange(3) + 10 * rank]))
    (context,) = contexts
    assert (context.num_input_pipelines, context.input_pipeline_id,
            context.num_replicas_in_sync) == (n, rank, n), context
    assert [list(b) for b in batches] == [[10 * rank, 10 * rank + 1, 10 * rank + 2]]
    (shard_of_rank,) = list(strategy.experimental_distribute_dataset([np.arange(4 * n)]))
    assert list(shard_of_rank) == list(range(4 * rank, 4 * rank + 4)), shard_of_rank


def numpy_loss(values) -> float:
    """The mean logistic loss over the whole data set, in NumPy (any mode)."""
    w1, b1, w2, b2 = values
    x, y = dataset()
    z = np.tanh(x @ w1 + b1) @ w2 + b2
    return float(np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))))


class Checkpoints:
    """dg.train.CheckpointManager, written by the chief only; every rank restores."""

    def __init__(self, directory, params, trainer, strategy) -> None:
        self.strategy = strategy
        self.session = getattr(trainer, "sess", None)
        self.step = dg.Variable(0, dtype=dg.int64, name="step")
        if self.session is not None:
            self.session.run(self.step.initializer)
        self.checkpoint = dg.train.Checkpoint(step=self.step, params=list(params))
        self.manager = dg.train.CheckpointManager(self.checkpoint, directory, max_to_keep=2)

    def restore(self) -> int:
        latest = self.manager.latest_checkpoint
        if latest is None:
            return 0
        if self.session is not None:
            self.checkpoint.restore(latest).run_restore_ops(self.session)
            return int(self.session.run(self.step))
        self.checkpoint.restore(latest)
        return int(self.step.numpy())

    def save(self, step: int) -> None:
        if self.session is not None:
            self.session.run(self.step.assign(step))
        else:
            self.step.assign(step)
        if self.strategy.is_chief:
            self.manager.save(checkpoint_number=step, **({"session": self.session}
                                                         if self.session is not None else {}))
        self.strategy.engine.barrier()  # no rank runs ahead of a checkpoint being written


if __name__ == "__main__":
    sys.exit(main())
