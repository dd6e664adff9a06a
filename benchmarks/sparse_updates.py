"""Sparse embedding updates: step time and peak extra memory against table size.

Workload: an embedding table of ROWS x 64 float32 (1,000,000 and 100,000
rows), a batch of 256 random ids, loss = sum(gather(table, ids)^2); one step
is the forward pass, the tape's gradient (an IndexedSlices) and the
optimizer's apply_gradients, in eager mode. Reported per optimizer:

- step time: median of STEPS timed steps (after two warm-up steps that build
  the slots and settle the buffers);
- peak extra memory: the largest amount of memory NumPy allocated during one
  step above what was allocated before it (tracemalloc, a separate step).

Optimizers whose TF rule touches only the batch's rows (Keras SGD and
Adagrad, TF1 GradientDescent and Momentum) should cost the same for both
tables. Adam's rule (Keras 3 and TF1 alike) decays the moments of every row
at every step, so its step is proportional to the table by definition.

Run: `python -m benchmarks.sparse_updates` from the repository root.
"""
from __future__ import annotations

import statistics
import time
import tracemalloc
from typing import Callable, Dict, List

import numpy as np

import duograd as dg

DIM = 64
BATCH = 256
STEPS = 10
TABLES = (100_000, 1_000_000)

OPTIMIZERS: Dict[str, Callable[[], object]] = {
    "keras SGD": lambda: dg.keras.optimizers.SGD(0.1),
    "keras Adagrad": lambda: dg.keras.optimizers.Adagrad(0.1),
    "keras Adam": lambda: dg.keras.optimizers.Adam(0.001),
    "v1 GradientDescent": lambda: dg.compat.v1.train.GradientDescentOptimizer(0.1),
    "v1 Momentum": lambda: dg.compat.v1.train.MomentumOptimizer(0.1, 0.9),
    "v1 Adam": lambda: dg.compat.v1.train.AdamOptimizer(0.001),
}


def _step(table: dg.Variable, opt: object, ids: np.ndarray) -> None:
    with dg.GradientTape() as tape:
        rows = dg.gather(table, ids)
        loss = dg.reduce_sum(rows * rows)
    grad = tape.gradient(loss, table)
    opt.apply_gradients([(grad, table)])


def measure(rows: int, make: Callable[[], object], seed: int = 0) -> Dict[str, float]:
    """Median step seconds and peak extra MiB of one step for a `rows` x DIM table."""
    rng = np.random.default_rng(seed)
    table = dg.Variable(rng.normal(size=(rows, DIM)).astype(np.float32) * 0.01)
    opt = make()
    batches = [rng.integers(0, rows, size=BATCH).astype(np.int32) for _ in range(STEPS + 3)]
    for ids in batches[:2]:
        _step(table, opt, ids)
    times: List[float] = []
    for ids in batches[2:-1]:
        start = time.perf_counter()
        _step(table, opt, ids)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    _step(table, opt, batches[-1])
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return {"step_ms": 1e3 * statistics.median(times), "peak_mib": peak / 2 ** 20}


def main() -> List[Dict[str, object]]:
    results = []
    print(f"Sparse updates: table ROWS x {DIM} float32, batch {BATCH} ids, eager mode, "
          f"median of {STEPS} steps")
    print(f"{'optimizer':20s} {'rows':>10s} {'step ms':>10s} {'peak MiB':>10s}")
    for name, make in OPTIMIZERS.items():
        for rows in TABLES:
            row = {"optimizer": name, "rows": rows, **measure(rows, make)}
            results.append(row)
            print(f"{name:20s} {rows:>10,d} {row['step_ms']:>10.2f} {row['peak_mib']:>10.2f}",
                  flush=True)
    return results


if __name__ == "__main__":
    main()
