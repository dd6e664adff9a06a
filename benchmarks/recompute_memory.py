"""Peak memory of a backward pass with and without dg.recompute_grad.

Workload: a 32-block MLP, width 1024, batch 256, float64; each block is
LAYERS dense layers `h = tanh(h @ W)`; the loss is sum(output) and the
gradient is taken with respect to the input (the weights are constants, so
both variants produce the same, input-sized, gradient and the difference is
only in the activations kept for the backward pass).

Each (mode, variant) runs in a fresh subprocess started with
MALLOC_MMAP_THRESHOLD_=131072 (freed arrays leave the resident set). The
child builds everything (weights, and in graph mode the graph), reads its
resident set (baseline), runs forward + backward once, and reports
ru_maxrss - baseline: the peak extra memory of the pass.

Run: `python -m benchmarks.recompute_memory` from the repository root.
`main()` returns the rows and prints the table.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from typing import Dict, List, Optional, Sequence

import numpy as np

BLOCKS = 32
WIDTH = 1024
BATCH = 256
LAYERS = 3
MMAP_ENV = {"MALLOC_MMAP_THRESHOLD_": "131072"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def _weights(dg, rng: np.random.Generator) -> list:
    """BLOCKS x LAYERS constant weight matrices (built one at a time: small transients)."""
    blocks = []
    for _ in range(BLOCKS):
        layer = []
        for _ in range(LAYERS):
            w = rng.standard_normal((WIDTH, WIDTH))
            w *= 1.0 / np.sqrt(WIDTH)
            layer.append(dg.constant(w))
            del w
        blocks.append(layer)
    return blocks


def _model(dg, weights: list, recompute: bool):
    def block_fn(ws):
        def block(h):
            for w in ws:
                h = dg.tanh(dg.matmul(h, w))
            return h
        return dg.recompute_grad(block) if recompute else block

    blocks = [block_fn(ws) for ws in weights]

    def model(x):
        for block in blocks:
            x = block(x)
        return dg.reduce_sum(x)
    return model


def child(mode: str, recompute: bool) -> Dict[str, float]:
    """Runs one pass in this process; returns baseline and peak (MiB)."""
    import duograd as dg
    rng = np.random.default_rng(0)
    x_value = rng.standard_normal((BATCH, WIDTH))
    if mode == "eager":
        weights = _weights(dg, rng)
        model = _model(dg, weights, recompute)
        x = dg.constant(x_value)
        baseline = _rss_kib()
        with dg.GradientTape() as tape:
            tape.watch(x)
            loss = model(x)
        grad = tape.gradient(loss, x)
        check = float(np.abs(grad.numpy()).sum())
    else:
        graph = dg.Graph()
        with graph.as_default():
            weights = _weights(dg, rng)
            model = _model(dg, weights, recompute)
            x = dg.placeholder(dg.float64, (BATCH, WIDTH))
            (grad,) = dg.gradients(model(x), [x])
            sess = dg.Session(graph=graph)
            sess.run(grad, {x: x_value[:1].repeat(BATCH, 0)})  # compile the plan; warm up
            baseline = _rss_kib()
            check = float(np.abs(sess.run(grad, {x: x_value})).sum())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"baseline_mib": baseline / 1024, "peak_mib": peak / 1024,
            "extra_mib": (peak - baseline) / 1024, "grad_abs_sum": check}


def run_child(mode: str, recompute: bool) -> Dict[str, float]:
    """One fresh subprocess per measurement, with the mmap threshold set."""
    env = dict(os.environ, **MMAP_ENV)
    cmd = [sys.executable, "-m", "benchmarks.recompute_memory", "--child", mode,
           "recompute" if recompute else "plain"]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: Optional[Sequence[str]] = None) -> List[Dict[str, object]]:
    """Measures all four (mode, variant) pairs; prints a table; returns the rows."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        print(json.dumps(child(argv[1], argv[2] == "recompute")))
        return []
    rows: List[Dict[str, object]] = []
    print(f"recompute_grad memory: {BLOCKS} blocks x {LAYERS} tanh layers, width {WIDTH}, "
          f"batch {BATCH}, float64; peak extra RSS of forward+backward (MiB)")
    print(f"{'mode':<6} {'plain':>9} {'recompute':>10} {'ratio':>7}")
    for mode in ("eager", "graph"):
        plain = run_child(mode, False)
        again = run_child(mode, True)
        if not np.isclose(plain["grad_abs_sum"], again["grad_abs_sum"], rtol=1e-12):
            raise AssertionError(f"{mode}: recomputed gradient differs from the plain one")
        ratio = again["extra_mib"] / plain["extra_mib"]
        rows.append({"mode": mode, "plain_mib": plain["extra_mib"],
                     "recompute_mib": again["extra_mib"], "ratio": ratio})
        print(f"{mode:<6} {plain['extra_mib']:9.1f} {again['extra_mib']:10.1f} {ratio:7.2f}")
    _write_report(rows)
    return rows


def _write_report(rows: List[Dict[str, object]]) -> None:
    """benchmarks/recompute_memory.md: the table issue 5 asks to keep in benchmarks/."""
    lines = ["# recompute_grad: peak memory of the backward pass", "",
             f"{BLOCKS} blocks x {LAYERS} tanh layers, width {WIDTH}, batch {BATCH}, float64; "
             "peak RSS over the baseline of a fresh process (MALLOC_MMAP_THRESHOLD_=131072), "
             "gradient w.r.t. the input. Target: recompute <= 0.5x of plain.", "",
             "| mode | plain (MiB) | recompute_grad (MiB) | ratio |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['mode']} | {r['plain_mib']:.1f} | {r['recompute_mib']:.1f} | "
              f"{r['ratio']:.2f} |" for r in rows]
    with open(os.path.join(ROOT, "benchmarks", "recompute_memory.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
