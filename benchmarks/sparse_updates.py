"""Sparse embedding updates: step time and peak extra memory against table size.

Workload: an embedding table of ROWS x 64 float32 (1,000,000 and 100,000
rows), a batch of 256 random ids, loss = sum(gather(table, ids)^2); one step
is the forward pass, the tape's gradient (an IndexedSlices) and the
optimizer's apply_gradients, in eager mode. Every optimizer runs in its
default (TensorFlow-exact) mode and with `lazy_sparse=True`. Reported:

- step time: median of STEPS timed steps (after two warm-up steps that build
  the slots and settle the buffers);
- peak extra memory: the largest amount of memory NumPy allocated during one
  step above what was allocated before it (tracemalloc, a separate step).

Lazy mode and the optimizers whose TF rule touches only the batch's rows
(SGD without momentum, Adagrad, TF1 GradientDescent/Momentum/Adagrad/RMSProp)
cost the same for both tables. Where TF's rule decays every row (momentum and
moments in Keras SGD-momentum/Adam/AdamW/RMSprop/Adamax/Nadam, TF1 Adam) the
default step is proportional to the table by definition; it runs in place,
block by block, so its extra memory stays that of a few blocks.

Run: `python -m benchmarks.sparse_updates` from the repository root
(`--markdown` also prints the table for benchmarks/sparse_updates.md).
"""
from __future__ import annotations

import functools
import statistics
import sys
import time
import tracemalloc
from typing import Callable, Dict, List

import numpy as np

import duograd as dg

DIM = 64
BATCH = 256
STEPS = 10
TABLES = (100_000, 1_000_000)

K = dg.keras.optimizers
V1 = dg.compat.v1.train
# name -> factory(lazy_sparse) of the optimizer
OPTIMIZERS: Dict[str, Callable[[bool], object]] = {
    "keras SGD": lambda lazy: K.SGD(0.1, lazy_sparse=lazy),
    "keras SGD momentum": lambda lazy: K.SGD(0.1, momentum=0.9, lazy_sparse=lazy),
    "keras Adam": lambda lazy: K.Adam(0.001, lazy_sparse=lazy),
    "keras Adam amsgrad": lambda lazy: K.Adam(0.001, amsgrad=True, lazy_sparse=lazy),
    "keras AdamW": lambda lazy: K.AdamW(0.001, lazy_sparse=lazy),
    "keras RMSprop momentum": lambda lazy: K.RMSprop(0.001, momentum=0.9, lazy_sparse=lazy),
    "keras RMSprop centered": lambda lazy: K.RMSprop(0.001, centered=True, lazy_sparse=lazy),
    "keras Adagrad": lambda lazy: K.Adagrad(0.1, lazy_sparse=lazy),
    "keras Adamax": lambda lazy: K.Adamax(0.001, lazy_sparse=lazy),
    "keras Nadam": lambda lazy: K.Nadam(0.001, lazy_sparse=lazy),
    "v1 GradientDescent": lambda lazy: V1.GradientDescentOptimizer(0.1, lazy_sparse=lazy),
    "v1 Momentum": lambda lazy: V1.MomentumOptimizer(0.1, 0.9, lazy_sparse=lazy),
    "v1 Adam": lambda lazy: V1.AdamOptimizer(0.001, lazy_sparse=lazy),
    "v1 Adagrad": lambda lazy: V1.AdagradOptimizer(0.1, lazy_sparse=lazy),
    "v1 RMSProp": lambda lazy: V1.RMSPropOptimizer(0.001, momentum=0.9, lazy_sparse=lazy),
}
MODES = ("default", "lazy")


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


def main(markdown: bool = False) -> List[Dict[str, object]]:
    results: List[Dict[str, object]] = []
    print(f"Sparse updates: table ROWS x {DIM} float32, batch {BATCH} ids, eager mode, "
          f"median of {STEPS} steps")
    print(f"{'optimizer':24s} {'mode':8s} {'rows':>10s} {'step ms':>10s} {'peak MiB':>10s}")
    for name, make in OPTIMIZERS.items():
        for mode in MODES:
            for rows in TABLES:
                row = {"optimizer": name, "mode": mode, "rows": rows,
                       **measure(rows, functools.partial(make, mode == "lazy"))}
                results.append(row)
                print(f"{name:24s} {mode:8s} {rows:>10,d} {row['step_ms']:>10.2f} "
                      f"{row['peak_mib']:>10.2f}", flush=True)
    if markdown:
        print("\n| optimizer | mode | step ms, 100,000 rows | step ms, 1,000,000 rows "
              "| peak MiB, 100,000 | peak MiB, 1,000,000 |")
        print("|---|---|---:|---:|---:|---:|")
        for name in OPTIMIZERS:
            for mode in MODES:
                small, large = [r for r in results if r["optimizer"] == name
                                and r["mode"] == mode]
                print(f"| {name} | {mode} | {small['step_ms']:.2f} | {large['step_ms']:.2f} "
                      f"| {small['peak_mib']:.2f} | {large['peak_mib']:.2f} |")
    return results


if __name__ == "__main__":
    main(markdown="--markdown" in sys.argv[1:])
