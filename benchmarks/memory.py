"""W6: peak memory of one forward + backward pass, each in a fresh process.

Child: `python -m benchmarks.memory PROVIDER VARIANT OUT.npz` builds the
variant (a graph is built before the baseline), reads its resident set
(baseline), runs one step, and reports ru_maxrss - baseline as JSON. The
parent starts children with MALLOC_MMAP_THRESHOLD_=131072 so that freed
blocks leave the resident set, and compares results with the floor child's.
"""
from __future__ import annotations

from .pinning import MMAP_VAR, pin_process, pinned_env

if __name__ == "__main__":
    pin_process("benchmarks.memory")

import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from typing import Any, Dict, Optional  # noqa: E402

import numpy as np  # noqa: E402

from .floor import chain_data, chain_floor  # noqa: E402
from .harness import as_arrays  # noqa: E402

N_OPS = 200
SHAPE = (1000, 1000)
FLOOR = "floor"


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(provider: str, variant: str, out_path: str) -> Dict[str, Any]:
    data = chain_data(N_OPS, SHAPE)
    if provider == FLOOR:
        def step():
            return chain_floor(data["x"], N_OPS)
    else:
        module = importlib.import_module(provider)
        matches = [v for v in module.variants() if v.workload == "W6" and v.name == variant]
        if not matches:
            raise SystemExit(f"no W6 variant {variant!r} in {provider}")
        step = matches[0].fn(data)
    gc.collect()
    before_max = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    baseline = _rss_kib()
    result = step()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    np.savez(out_path, *as_arrays(result))
    return {"baseline_kib": baseline, "peak_kib": peak, "max_before_kib": before_max,
            "delta_mib": (peak - baseline) / 1024}


def run_child(provider: str, variant: str, out_path: str, python: Optional[str] = None,
              timeout: float = 600) -> Dict[str, Any]:
    """Runs one child; returns its report plus `arrays` (or `error`)."""
    env = pinned_env(os.environ)
    env[MMAP_VAR[0]] = MMAP_VAR[1]
    env["_DUOGRAD_BENCH_REEXEC"] = "1"
    cmd = [python or sys.executable, "-m", "benchmarks.memory", provider, variant, out_path]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"not done in {timeout:.0f} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": tail[:160]}
    report = json.loads(lines[-1])
    with np.load(out_path) as npz:
        report["arrays"] = [npz[k] for k in sorted(npz.files, key=lambda s: int(s.split("_")[1]))]
    os.unlink(out_path)
    return report


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1], sys.argv[2], sys.argv[3])))
