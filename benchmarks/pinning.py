"""One core, single-threaded BLAS: set before NumPy is imported (re-exec if late).

Standard library only: this module is imported before NumPy on purpose.
"""
from __future__ import annotations

import os
import sys

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
# Peers read these: keep TensorFlow, JAX/XLA and PyTorch on one thread too.
PEER_VARS = {"TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1",
             "TF_CPP_MIN_LOG_LEVEL": "2", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false "
             "intra_op_parallelism_threads=1", "JAX_PLATFORMS": "cpu",
             "JAX_ENABLE_X64": "1"}
# So that RSS follows live memory: big blocks are mmapped and returned on free.
MMAP_VAR = ("MALLOC_MMAP_THRESHOLD_", "131072")
CORE = int(os.environ.get("DUOGRAD_BENCH_CORE", "0"))  # which core to pin to
# DUOGRAD_BENCH_THREADS=default: every library keeps its own thread pools, nothing is
# pinned (issue 25's second configuration); anything else: one core, one thread.
DEFAULT_THREADS = os.environ.get("DUOGRAD_BENCH_THREADS", "1") == "default"


def single_threaded() -> bool:
    """Whether this run pins to one core with single-threaded libraries."""
    return not DEFAULT_THREADS


def pinned_env(environ: dict) -> dict:
    """`environ` with the single-thread settings added (none with default threads)."""
    env = dict(environ)
    if DEFAULT_THREADS:
        return env
    for var in THREAD_VARS:
        env[var] = "1"
    for var, value in PEER_VARS.items():
        env.setdefault(var, value)
    return env


def pin_process(module: str) -> None:
    """Re-execs `python -m module` with single-thread env if needed; pins to one core.
    With DUOGRAD_BENCH_THREADS=default it does neither."""
    if DEFAULT_THREADS:
        for var in ("TF_CPP_MIN_LOG_LEVEL", "JAX_PLATFORMS", "JAX_ENABLE_X64"):
            os.environ.setdefault(var, PEER_VARS[var])
        return
    if any(os.environ.get(var) != "1" for var in THREAD_VARS) or "numpy" in sys.modules:
        if os.environ.get("_DUOGRAD_BENCH_REEXEC") != "1":
            env = pinned_env(os.environ)
            env["_DUOGRAD_BENCH_REEXEC"] = "1"
            os.execve(sys.executable, [sys.executable, "-m", module] + sys.argv[1:], env)
    for var, value in PEER_VARS.items():
        os.environ.setdefault(var, value)
    try:
        os.sched_setaffinity(0, {CORE})
    except (AttributeError, OSError):  # not Linux, or core 0 not ours: run unpinned
        pass


def pinned_core() -> str:
    if DEFAULT_THREADS:
        return "none (default threads)"
    try:
        return ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
    except AttributeError:
        return "unpinned"
