"""dg.data pipeline benchmark: an image-like input pipeline, a CPU-heavy parallel map,
and how long a training step fed by `prefetch` waits for its input.

    PYTHONPATH=.. python benchmarks/data_pipeline.py [--quick] [--tf-python PATH]

1. `from_tensor_slices((60000x28x28 float32, labels)).shuffle(10_000).map(normalise)
   .batch(128).prefetch(AUTOTUNE)`: one epoch, against the hand-written NumPy loop
   (a permutation, then per batch a gather and the same normalisation) in the same
   process, and against tf.data (the same pipeline in TF's interpreter, a separate
   process, when --tf-python names it). Target: within 1.5x of the NumPy loop.
2. A CPU-heavy map (matrix products that release the GIL) with num_parallel_calls=2
   against num_parallel_calls=None. Target: >= 1.6x on 2 cores.
3. A training step (an MLP's forward and backward) fed by the pipeline with and
   without prefetch: the fraction of the epoch the loop spends waiting in `next()`.
   Target: < 5 % with prefetch.

Each figure is the minimum (and the median) of several epochs after a warm-up epoch,
the pipelines compared taking turns epoch by epoch (the machine may be shared). BLAS runs on one
thread (OPENBLAS_NUM_THREADS=1, set below before NumPy loads) so that the parallel
map's speed-up measures dg.data's threads and not BLAS's.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

EXAMPLES, BATCH, BUFFER = 60000, 128, 10_000
HEAVY_ELEMENTS, HEAVY_SIZE, HEAVY_ROUNDS = 64, 192, 8
HIDDEN = 1024  # the MLP fed in part 3: a step of a few milliseconds of BLAS


def image_data(examples: int = EXAMPLES):
    rng = np.random.default_rng(0)
    return (rng.random((examples, 28, 28), dtype=np.float32),
            rng.integers(0, 10, examples).astype(np.int64))


def timed(run) -> tuple:
    """(wall seconds, CPU seconds of the whole process: all its threads)."""
    start, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - start, time.process_time() - cpu


def interleaved(runs: dict, repeats: int) -> dict:
    """{name: (min wall, median wall, min process CPU) seconds}: the runs alternate,
    so that a busy moment of a shared machine falls on all of them alike; the
    minimum is the least disturbed, and CPU time is not inflated by other processes."""
    for run in runs.values():
        run()  # warm-up (traces, caches)
    times: dict = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            times[name].append(timed(run))
    return {name: (min(w for w, _ in t), statistics.median(w for w, _ in t),
                   min(c for _, c in t)) for name, t in times.items()}


# -- the NumPy floor ------------------------------------------------------------------------
def numpy_epoch(x, y, seed: int = 1) -> int:
    order = np.random.default_rng(seed).permutation(len(x))
    batches = 0
    for start in range(0, len(x), BATCH):
        rows = order[start:start + BATCH]
        images = (x[rows] - 0.5) / 0.25
        labels = y[rows]
        batches += 1 + 0 * images.size * labels.size
    return batches


# -- one framework's pipelines (dg here, or tf in its own process) ---------------------------
def pipelines(lib, x, y):
    data = lib.data

    def normalise(image, label):
        return (image - 0.5) / 0.25, label

    def image_pipeline():
        return data.Dataset.from_tensor_slices((x, y)).shuffle(BUFFER, seed=1) \
            .map(normalise).batch(BATCH).prefetch(data.AUTOTUNE)

    rng = np.random.default_rng(2)
    mats = rng.standard_normal((HEAVY_ELEMENTS, HEAVY_SIZE, HEAVY_SIZE)).astype(np.float32) \
        / np.sqrt(HEAVY_SIZE)

    def heavy(m):
        for _ in range(HEAVY_ROUNDS):
            m = lib.tanh(lib.matmul(m, m))
        return lib.reduce_sum(m)

    def heavy_pipeline(parallel):
        return data.Dataset.from_tensor_slices(mats).map(heavy, num_parallel_calls=parallel)

    return image_pipeline, heavy_pipeline


def measure(lib, repeats: int, examples: int, with_numpy: bool) -> dict:
    x, y = image_data(examples)
    image_pipeline, heavy_pipeline = pipelines(lib, x, y)
    dataset = image_pipeline()
    serial, parallel = heavy_pipeline(None), heavy_pipeline(2)

    def drain(ds):
        def run():
            for _ in ds:
                pass
        return run

    runs = {"image_epoch": drain(dataset)}
    if with_numpy:
        runs["numpy_epoch"] = lambda: numpy_epoch(x, y)
    results = {}
    for name, (low, mid, cpu) in interleaved(runs, repeats).items():
        results[name + "_s"], results[name + "_median_s"] = low, mid
        results[name + "_cpu_s"] = cpu
    heavy = interleaved({"heavy_serial": drain(serial), "heavy_parallel": drain(parallel)},
                        repeats)
    for name, (low, mid, _) in heavy.items():
        results[name + "_s"], results[name + "_median_s"] = low, mid
    return results


# -- 3: a training step fed by the pipeline --------------------------------------------------
def input_wait(dg, x, y, prefetch: bool, steps: int) -> dict:
    rng = np.random.default_rng(3)
    w1 = dg.Variable(rng.standard_normal((784, HIDDEN)).astype(np.float32) * 0.05)
    w2 = dg.Variable(rng.standard_normal((HIDDEN, 10)).astype(np.float32) * 0.05)

    @dg.function
    def step(images, labels):
        with dg.GradientTape() as tape:
            hidden = dg.nn.relu(dg.matmul(dg.reshape(images, [-1, 784]), w1))
            logits = dg.matmul(hidden, w2)
            loss = dg.reduce_mean(dg.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.01 * g1)
        w2.assign_sub(0.01 * g2)
        return loss

    def normalise(image, label):
        return (image - 0.5) / 0.25, label

    dataset = dg.data.Dataset.from_tensor_slices((x, y)).shuffle(BUFFER, seed=1) \
        .map(normalise).batch(BATCH, drop_remainder=True).repeat()
    if prefetch:
        dataset = dataset.prefetch(dg.data.AUTOTUNE)
    iterator = iter(dataset)
    images, labels = next(iterator)
    step(images, labels)   # trace
    waited = 0.0
    start = time.perf_counter()
    for _ in range(steps):
        t0 = time.perf_counter()
        images, labels = next(iterator)
        waited += time.perf_counter() - t0
        step(images, labels)
    total = time.perf_counter() - start
    iterator.close()
    return {"wait_fraction": waited / total, "step_s": total / steps}


def tf_figures(tf_python: str, repeats: int, examples: int) -> dict:
    """The same pipelines on tf.data, in TF's own interpreter (a separate process)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    out = subprocess.run([tf_python, __file__, "--tf-child", "--repeats", str(repeats),
                          "--examples", str(examples)], env=env, capture_output=True,
                         text=True, timeout=1800)
    if out.returncode != 0:
        return {"error": out.stderr[-500:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--examples", type=int, default=EXAMPLES)
    parser.add_argument("--tf-python", default="")
    parser.add_argument("--tf-child", action="store_true")
    args = parser.parse_args()
    repeats = 2 if args.quick else args.repeats
    if args.tf_child:
        import tensorflow as tf
        tf.config.threading.set_inter_op_parallelism_threads(2)
        print(json.dumps(measure(tf, repeats, args.examples, with_numpy=False)))
        return
    import duograd as dg
    x, y = image_data(args.examples)
    figures = measure(dg, repeats, args.examples, with_numpy=True)
    figures["image_vs_numpy"] = figures["image_epoch_s"] / figures["numpy_epoch_s"]
    figures["image_vs_numpy_cpu"] = figures["image_epoch_cpu_s"] / figures["numpy_epoch_cpu_s"]
    figures["parallel_speedup"] = figures["heavy_serial_s"] / figures["heavy_parallel_s"]
    steps = 100 if args.quick else 300
    figures["train_prefetch"] = input_wait(dg, x, y, True, steps)
    figures["train_no_prefetch"] = input_wait(dg, x, y, False, steps)
    if args.tf_python:
        figures["tf"] = tf_figures(args.tf_python, repeats, args.examples)
        if "image_epoch_s" in figures["tf"]:
            figures["image_vs_tf"] = figures["image_epoch_s"] / figures["tf"]["image_epoch_s"]
    figures["cpus"] = os.cpu_count()
    print(json.dumps(figures, indent=1, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
