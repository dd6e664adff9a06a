"""`python -m benchmarks.distributed`: data-parallel step time, all-reduce time and
scaling efficiency of MultiWorkerMirroredStrategy (MPI) for MLPs of about 10k, 1M and
10M float32 parameters at 1, 2 and 4 ranks.

Weak scaling: every rank trains on its own batch of 32 examples, so with perfect
scaling a step takes as long on R ranks as on one, and the efficiency
t(1 rank) / t(R ranks) is 100%. Each configuration is an `mpiexec -n R` job of this
module in worker mode (`--worker`), which times eager training steps (gradient,
one fused all-reduce, SGD update) and, separately, the engine's all-reduce of the
same gradients and mpi4py's blocking `Allreduce` of one buffer of that size (the
floor: no fusing, no deadline). Results (medians, slowest rank) go to
benchmarks/distributed.md.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

import duograd as dg

SIZES = {"10k": 10_000, "1M": 1_000_000, "10M": 10_000_000}
RANKS = (1, 2, 4)
BATCH = 32
STEPS = {"10k": 40, "1M": 12, "10M": 4}
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed.md")


def worker(size: str) -> None:
    """One rank: time training steps and all-reduces; rank 0 prints a JSON line."""
    width = int(round((SIZES[size] / 2) ** 0.5))  # two width x width layers
    strategy = dg.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(strategy.rank)
    with strategy.scope():
        params = [dg.Variable(rng.standard_normal((width, width)).astype(np.float32) / width),
                  dg.Variable(np.zeros(width, np.float32)),
                  dg.Variable(rng.standard_normal((width, width)).astype(np.float32) / width),
                  dg.Variable(np.zeros(width, np.float32))]
    x = dg.constant(rng.standard_normal((BATCH, width)).astype(np.float32))
    target = dg.constant(rng.standard_normal((BATCH, width)).astype(np.float32))
    count = sum(int(np.prod(p.shape.as_list())) for p in params)

    def step():
        w1, b1, w2, b2 = params
        with dg.GradientTape() as tape:
            out = dg.matmul(dg.tanh(dg.matmul(x, w1) + b1), w2) + b2
            loss = dg.reduce_mean((out - target) ** 2)
        grads = tape.gradient(loss, params)
        grads = dg.distribute.get_replica_context().all_reduce("SUM", grads)
        for p, g in zip(params, grads):
            p.assign_sub(0.01 * g)
        return grads

    grads = [np.asarray(g) for g in strategy.run(step)]
    from mpi4py import MPI  # noqa: PLC0415 (here, not at import: the parent runs no MPI)
    flat = np.concatenate([g.reshape(-1) for g in grads])
    flat_out = np.empty_like(flat)
    step_times, reduce_times, raw_times = [], [], []
    for _ in range(STEPS[size]):
        strategy.engine.barrier()
        start = time.perf_counter()
        strategy.run(step)
        step_times.append(time.perf_counter() - start)
        strategy.engine.barrier()
        start = time.perf_counter()
        strategy.engine.all_reduce(grads, dg.distribute.ReduceOp.SUM)
        reduce_times.append(time.perf_counter() - start)
        strategy.engine.barrier()
        start = time.perf_counter()
        MPI.COMM_WORLD.Allreduce(flat, flat_out)  # blocking, no deadline: the floor
        raw_times.append(time.perf_counter() - start)
    # The slowest rank sets the pace: report the maximum over ranks of each median.
    medians = np.array([np.median(step_times), np.median(reduce_times), np.median(raw_times)])
    slowest = np.max(np.stack(strategy.engine.all_gather(medians)), axis=0)
    if strategy.rank == 0:
        print(json.dumps({"size": size, "params": count, "ranks": strategy.num_replicas_in_sync,
                          "step_ms": 1e3 * slowest[0], "all_reduce_ms": 1e3 * slowest[1],
                          "raw_allreduce_ms": 1e3 * slowest[2]}),
              flush=True)


def launch(size: str, ranks: int) -> dict:
    env = dict(os.environ, HYDRA_IFACE="lo", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    command = [mpiexec, "-n", str(ranks), sys.executable, "-m", "benchmarks.distributed",
               "--worker", size]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def table(rows: list) -> str:
    lines = ["| model | parameters | ranks | step (ms) | all-reduce (ms) | raw MPI Allreduce (ms) | "
             "all-reduce share | scaling efficiency |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    base = {r["size"]: r["step_ms"] for r in rows if r["ranks"] == 1}
    for r in rows:
        lines.append(f"| {r['size']} | {r['params']:,} | {r['ranks']} | {r['step_ms']:.2f} | "
                     f"{r['all_reduce_ms']:.3f} | {r['raw_allreduce_ms']:.3f} | "
                     f"{r['all_reduce_ms'] / r['step_ms']:.0%} | "
                     f"{base[r['size']] / r['step_ms']:.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    rows = []
    for size in SIZES:
        for ranks in RANKS:
            rows.append(launch(size, ranks))
            print(json.dumps(rows[-1]), flush=True)
    text = table(rows)
    cores = os.cpu_count()
    with open(RESULTS, "w") as out:
        out.write(f"# Distributed benchmark (`python -m benchmarks.distributed`)\n\n"
                  f"Weak scaling, batch {BATCH} per rank, float32, eager steps, MPI over "
                  f"shared memory on one machine with {cores} cores (load average at start "
                  f"{os.getloadavg()[0]:.1f}; other jobs shared the cores). With more ranks "
                  "than cores the ranks time-share, so efficiency at 4 ranks measures this "
                  "machine, not the method.\n\n" + text + "\n")
    print(text)


if __name__ == "__main__":
    main()
