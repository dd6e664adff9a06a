"""Data-parallel training of the demo model (examples/breast_cancer.py's MLP and data).

The same script runs on one process or many:

    python examples/distributed_training.py                 # one replica
    mpiexec -n 2 python examples/distributed_training.py    # two replicas (MPI)

Each step, every replica takes its shard of the full training batch (a `dg.data`
pipeline given to `experimental_distribute_dataset`, which shards it by worker as
TF's auto-shard policy DATA does), computes its gradients of the loss scaled
by the global batch size (`dg.nn.compute_average_loss`), the replicas sum them
with one fused all-reduce, and the demo's Adam optimizer applies the sum: the
demo's full-batch training, data-parallel. Every run prints the same final loss
as the single-process one (and as `make demo`'s eager run) to 1e-12.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

import duograd as dg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from breast_cancer import LEARNING_RATE, MLP, STEPS, load_data  # noqa: E402


def per_example_loss(z, y):
    """log(1 + exp(z)) - y z per example, in its overflow-free form."""
    return dg.reshape(dg.maximum(z, 0.0) - z * y + dg.log1p(dg.exp(-dg.abs(z))), [-1])


def main() -> None:
    x, y, x_test, y_test = load_data()
    strategy = dg.distribute.MultiWorkerMirroredStrategy()
    rank, replicas = strategy.rank, strategy.num_replicas_in_sync
    with strategy.scope():  # rank 0's initial values are broadcast to every rank
        model = MLP(x.shape[1])
        params = model.trainable_variables
        optimizer = dg.keras.optimizers.Adam(LEARNING_RATE)
        optimizer.build(params)
    global_batch = len(x)

    @dg.function
    def train_step(features, labels):
        with dg.GradientTape() as tape:
            loss = dg.nn.compute_average_loss(per_example_loss(model(features), labels),
                                              global_batch_size=global_batch)
        grads = tape.gradient(loss, params)
        grads = dg.distribute.get_replica_context().all_reduce(dg.distribute.ReduceOp.SUM, grads)
        optimizer.apply_gradients(zip(grads, params, strict=True))
        return loss

    batches = dg.data.Dataset.from_tensor_slices((x, y)).batch(global_batch).repeat(STEPS)
    dataset = strategy.experimental_distribute_dataset(batches)
    start = time.perf_counter()
    losses = []
    for features, labels in dataset:
        local_loss = strategy.run(train_step, args=(features, labels))
        losses.append(float(strategy.reduce(dg.distribute.ReduceOp.SUM, local_loss, axis=None)))
    seconds = time.perf_counter() - start
    dg.distribute.experimental.assert_replicas_in_sync(params, strategy)
    final = dg.reduce_mean(per_example_loss(model(dg.constant(x)), dg.constant(y)))
    accuracy = float(np.mean((model(dg.constant(x_test)).numpy() > 0) == (y_test > 0.5)))
    if rank == 0:
        print(f"{replicas} replica(s), {len(x) // replicas}+ examples each: step 0 loss "
              f"{losses[0]:.6f}, test accuracy {accuracy:.3f} ({seconds:.2f} s for {STEPS} "
              "steps)")
        print(f"final loss {float(final):.15f}")


if __name__ == "__main__":
    main()
