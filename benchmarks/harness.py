"""Timing, checking and the result rows shared by duograd's and the peers' runs."""
from __future__ import annotations

import contextlib
import gc
import resource
import signal
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, List, Optional, Sequence

import numpy as np

RTOL = 1e-8
ATOL = 1e-10


class NotAvailable(Exception):
    """The API a variant needs is missing: the variant is skipped with a note."""


class BenchTimeout(Exception):
    """A variant ran past its wall-clock limit."""


@dataclass
class Variant:
    """One way to run one workload.

    kind "step": make(data) -> step; step() -> result arrays (timed per call).
    kind "oneshot": run(data) -> result arrays; the whole call is timed.
    kind "w4": run(n) -> (seconds of the gradients() call, result arrays).
    kind "memory": make(data) -> step, run once in a fresh process (W6).
    """
    workload: str
    name: str
    kind: str
    fn: Callable
    note: str = ""
    heavy: bool = False   # skipped by --quick (e.g. a peer's minutes-long compile)


@dataclass
class Row:
    workload: str
    variant: str
    value: Optional[float] = None   # seconds, us/op (W4) or a memory ratio (W6)
    unit: str = "s"
    floor: Optional[float] = None
    ratio: Optional[float] = None
    target: str = ""
    met: Optional[bool] = None
    status: str = "ok"              # ok, not available, wrong result, timeout, error
    note: str = ""
    samples: List[float] = field(default_factory=list)
    floor_samples: List[float] = field(default_factory=list)
    # CPU time of the benchmark thread (time.thread_time) per call: robust on a
    # loaded machine, where wall time also counts other processes' turns.
    cpu_samples: List[float] = field(default_factory=list)
    floor_cpu_samples: List[float] = field(default_factory=list)
    cpu_ratio: Optional[float] = None
    # Minor page faults per call (the step's and the floor's): glibc hands large
    # arrays fresh pages (mmap, or a heap top trimmed after the last step), each
    # faulted in on first touch; how often depends on the allocator's dynamic
    # thresholds, i.e. on what the process freed before (see models.md).
    faults: List[int] = field(default_factory=list)
    floor_faults: List[int] = field(default_factory=list)


@contextlib.contextmanager
def time_limit(seconds: Optional[float]) -> Iterator[None]:
    """Raises BenchTimeout in the main thread once `seconds` have passed."""
    if not seconds:
        yield
        return

    def _expired(signum: int, frame: Any) -> None:
        raise BenchTimeout(f"not done in {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def measure(step: Callable[[], Any], repeats: int, budget: float, warmup: int = 1,
            min_repeats: int = 3) -> List[float]:
    """Per-call wall times of `step` after `warmup` calls; stops early past `budget` s."""
    for _ in range(warmup):
        step()
    gc.collect()
    times: List[float] = []
    start = time.perf_counter()
    for _ in range(repeats):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
        if len(times) >= min_repeats and time.perf_counter() - start > budget:
            break
    return times


# With the process's CPU clock, a step's CPU is read this long after it returns: a
# library whose threads keep working (TF's pools spin a while after a step) is charged
# for that work itself, and the floor call that follows runs on a quiet process (it
# was charged TF's spin: W9's floor read 156 us after a tf.function step, 49-66 us
# alone). Sleeping costs the process no CPU.
SETTLE_SECONDS = 0.02


def _faults_counter(cpu_clock: Callable[[], float]) -> Callable[[], int]:
    """Minor page faults so far, counted as `cpu_clock` counts CPU: the calling
    thread's (the process's where the platform has no per-thread count), or every
    thread's with time.process_time."""
    who = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
    if cpu_clock is time.process_time:
        who = resource.RUSAGE_SELF
    return lambda: resource.getrusage(who).ru_minflt


@dataclass
class Paired:
    """What measure_paired measured, one entry per call of each."""
    times: List[float]
    floor_times: List[float]
    cpu: List[float]
    floor_cpu: List[float]
    faults: List[int]
    floor_faults: List[int]


def measure_paired(step: Callable[[], Any], floor: Callable[[], Any], repeats: int,
                   budget: float, min_repeats: int = 3,
                   cpu_clock: Callable[[], float] = time.thread_time) -> Paired:
    """Alternating calls of `step` and `floor`, so that both see the same machine noise
    (and the same state of the allocator): wall times, CPU times and minor page faults
    of each call. The CPU clock is the calling thread's by default; time.process_time
    counts every thread (TensorFlow and XLA run their kernels on threads of their own),
    and then each step's CPU includes what its threads do in the SETTLE_SECONDS after
    it returns."""
    settle = SETTLE_SECONDS if cpu_clock is time.process_time else 0.0
    minor_faults = _faults_counter(cpu_clock)
    gc.collect()
    out = Paired([], [], [], [], [], [])
    clock = time.perf_counter
    start = clock()
    for _ in range(repeats):
        f0 = minor_faults()
        c0 = cpu_clock()
        t0 = clock()
        floor()
        t1 = clock()
        c1 = cpu_clock()
        f1 = minor_faults()
        step()
        t2 = clock()
        if settle:
            time.sleep(settle)
        c2 = cpu_clock()
        f2 = minor_faults()
        out.floor_times.append(t1 - t0)
        out.times.append(t2 - t1)
        out.floor_cpu.append(c1 - c0)
        out.cpu.append(c2 - c1)
        out.floor_faults.append(f1 - f0)
        out.faults.append(f2 - f1)
        if len(out.times) >= min_repeats and clock() - start - settle * len(out.times) > budget:
            break
    return out


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


FAULTS_WORTH_A_NOTE = 50   # minor page faults per call (200 KiB of fresh pages)


def faults_note(row: Row) -> str:
    """'page faults per call N (floor M)' when either median is worth noting, else ''."""
    if not row.faults:
        return ""
    mine, floor = median(row.faults), median(row.floor_faults)
    if max(mine, floor) < FAULTS_WORTH_A_NOTE:
        return ""
    return f"page faults per call {mine:.0f} (floor {floor:.0f})"


def as_arrays(result: Any) -> List[np.ndarray]:
    """Flattens a result (arrays, tensors, nested lists) into float64 NumPy arrays."""
    out: List[np.ndarray] = []
    stack = [result]
    while stack:
        item = stack.pop(0)
        if isinstance(item, (list, tuple)):
            stack[0:0] = list(item)
            continue
        if hasattr(item, "numpy") and not isinstance(item, np.ndarray):
            item = item.numpy()
        out.append(np.asarray(item, dtype=np.float64))
    return out


def check(result: Any, expected: Any, rtol: float = RTOL, atol: float = ATOL) -> Optional[str]:
    """None when `result` matches the floor's `expected`, else what differs."""
    got, want = as_arrays(result), as_arrays(expected)
    if len(got) != len(want):
        return f"{len(got)} results, the floor has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            return f"result {i} has shape {g.shape}, the floor's {w.shape}"
        if not np.allclose(g, w, rtol=rtol, atol=atol):
            err = float(np.max(np.abs(g - w) / (atol + rtol * np.abs(w))))
            return f"result {i} differs from the floor (max error {err:.3g} x tolerance)"
    return None


def format_seconds(value: Optional[float]) -> str:
    if value is None:
        return "-"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} us"


def format_value(row: Row) -> str:
    if row.value is None:
        return "-"
    if row.unit == "s":
        return format_seconds(row.value)
    if row.unit == "us/op":
        return f"{row.value:.1f} us/op"
    if row.unit == "MiB":
        return f"{row.value:.0f} MiB"
    return f"{row.value:.3g} {row.unit}"


def format_floor(row: Row) -> str:
    if row.floor is None:
        return "-"
    return f"{row.floor:.0f} MiB" if row.unit == "MiB" else format_seconds(row.floor)


def table(rows: Sequence[Row], peers: Optional[dict] = None) -> str:
    """A Markdown table: median, floor, ratio, target, met, note."""
    head = ["workload", "variant", "median", "NumPy floor", "ratio", "CPU ratio", "target", "met",
            "note"]
    if peers:
        head.insert(7, "issue's peers")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r.status != "ok":
            cells = [r.workload, r.variant, r.status, format_floor(r), "-", "-", r.target, "-",
                     r.note]
        else:
            ratio = "-" if r.ratio is None else f"{r.ratio:.2f}x"
            cpu_ratio = "-" if r.cpu_ratio is None else f"{r.cpu_ratio:.2f}x"
            met = "" if r.met is None else ("yes" if r.met else "NO")
            cells = [r.workload, r.variant, format_value(r), format_floor(r), ratio, cpu_ratio,
                     r.target, met, r.note]
        if peers:  # quoted once per workload, on its floor row
            shown = peers.get(r.workload.split(" ")[0], "") if r.variant == "NumPy floor" else ""
            cells.insert(7, shown)  # after the target, as in the header
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)
