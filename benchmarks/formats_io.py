"""Save and restore a 100 MB model in TF's checkpoint format: duograd against TensorFlow.

    PYTHONPATH=<parent> python benchmarks/formats_io.py            # duograd, then TF
    TF_PYTHON=/path/to/tf/python ...                                # TF's interpreter

Reports wall time of Checkpoint.write and of Checkpoint.read (best of 3) and, for
duograd, the transient memory (tracemalloc peak above what is held before and
after). The model: four float32 variables of 50, 25, 12.5 and 12.5 MB.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

SIZES = [50, 25, 12.5, 12.5]  # MB


def _arrays(fill: float):
    return [np.full(int(mb * (1 << 20)) // 4, fill, np.float32) for mb in SIZES]


def run_duograd(directory: str) -> dict:
    import duograd as dg
    model = [dg.Variable(a) for a in _arrays(1.5)]
    prefix = os.path.join(directory, "dg")
    times, transient = {"write": [], "read": []}, {}
    for _ in range(3):
        start = time.perf_counter()
        dg.train.Checkpoint(model=model).write(prefix)
        times["write"].append(time.perf_counter() - start)
    fresh = [dg.Variable(a) for a in _arrays(0.0)]
    for _ in range(3):
        start = time.perf_counter()
        dg.train.Checkpoint(model=fresh).read(prefix)
        times["read"].append(time.perf_counter() - start)
    for name, action in (("write", lambda: dg.train.Checkpoint(model=model).write(prefix)),
                         ("read", lambda: dg.train.Checkpoint(model=fresh).read(prefix))):
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        action()
        after, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        transient[name] = (peak - max(before, after)) / (1 << 20)
    assert np.array_equal(fresh[0].numpy(), model[0].numpy())
    return {"write_s": min(times["write"]), "read_s": min(times["read"]),
            "transient_mb": transient, "largest_mb": max(SIZES)}


def run_tf(directory: str) -> dict:
    import tensorflow as tf
    model = [tf.Variable(a) for a in _arrays(1.5)]
    prefix = os.path.join(directory, "tf")
    times = {"write": [], "read": []}
    for _ in range(3):
        start = time.perf_counter()
        tf.train.Checkpoint(model=model).write(prefix)
        times["write"].append(time.perf_counter() - start)
    fresh = [tf.Variable(a) for a in _arrays(0.0)]
    for _ in range(3):
        start = time.perf_counter()
        tf.train.Checkpoint(model=fresh).read(prefix).assert_consumed()
        times["read"].append(time.perf_counter() - start)
    return {"write_s": min(times["write"]), "read_s": min(times["read"])}


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps((run_tf if sys.argv[1] == "tf" else run_duograd)(sys.argv[2])))
        sys.exit(0)
    with tempfile.TemporaryDirectory() as directory:
        print("duograd", json.dumps(run_duograd(directory)))
        tf_python = os.environ.get("TF_PYTHON")
        if tf_python:
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            env["TF_CPP_MIN_LOG_LEVEL"] = "3"
            out = subprocess.run([tf_python, __file__, "tf", directory], env=env,
                                 capture_output=True, text=True)
            print("tensorflow", out.stdout.strip().splitlines()[-1] if out.stdout else
                  out.stderr[-500:])
