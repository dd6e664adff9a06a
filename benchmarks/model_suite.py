"""The model workloads W7-W11 (issue 25) in the suite: their data, floors, result
tolerances and the targets, which compare duograd with a peer's variant.

A peer ratio pairs two rows of one run through the NumPy floor calls
interleaved with each: (duograd CPU / its floor CPU) / (peer CPU / its floor CPU),
so that both sides see the same machine noise.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import floor_models as fm
from .harness import Row, Variant, measure_paired, median, time_limit

# workload -> (title, data factory, floor(data) -> (loss, grads), (rtol, atol))
F32 = (1e-3, 2e-5)
F64 = (1e-7, 1e-9)
MODEL_WORKLOADS: Dict[str, Tuple[str, Callable[[], dict], Callable[[dict], Any],
                                 Tuple[float, float]]] = {
    "W7": ("CNN step, batch 64 of 28x28x1, conv 3x3x32 + ReLU + pool, conv 3x3x64 + ReLU + "
           "pool, dense 10, softmax cross-entropy, float32",
           fm.cnn_data, lambda d: fm.cnn_floor(d["x"], d["labels"], d["params"]), F32),
    "W8 LSTM": ("LSTM, T=200, batch 16, 32 inputs, hidden 32, forward + backward, float32",
                lambda: fm.rnn_data("lstm"),
                lambda d: fm.lstm_floor(d["x"], d["readout"], d["params"]), F32),
    "W8 GRU": ("GRU cell (no Keras), T=200, batch 16, 32 inputs, hidden 32, float32",
               lambda: fm.rnn_data("gru"),
               lambda d: fm.gru_floor(d["x"], d["readout"], d["params"]), F32),
    "W9": ("MAML-style: map_fn over 25 linear-regression tasks, one inner gradient step, "
           "second-order meta-gradient, float64",
           fm.maml_data,
           lambda d: fm.maml_floor(d["xs"], d["ys"], d["xq"], d["yq"], d["w"], d["alpha"]), F64),
    "W10": ("transformer encoder block, sequence 128, width 256, 4 heads, pre-LN, GELU MLP "
            "1024, forward + backward of all weights and the input, float32",
            fm.encoder_data,
            lambda d: fm.encoder_floor(d["x"], d["target"], d["params"], d["heads"]), F32),
    "W11": ("physics-informed loss: u_xx + u_yy of a 2-32-32-32-1 tanh MLP at 2,000 points, "
            "then gradients of the weights, float64",
            fm.pinn_data,
            lambda d: fm.pinn_floor(d["x"], d["y"], d["f"], d["weights"], d["biases"]), F64),
}

# workload -> [(duograd variant kind, peer variant name, bound)]; kind "eager" or "graph".
PEER_TARGETS: Dict[str, List[Tuple[str, str, float]]] = {
    "W7": [("eager", "PyTorch", 1.0), ("graph", "TF graph (tf.function)", 2.0)],
    "W8 LSTM": [("eager", "PyTorch (Python loop)", 1.0),
                ("graph", "TF graph (while_loop in tf.function)", 2.0)],
    "W8 GRU": [("eager", "PyTorch (Python loop)", 1.0),
               ("graph", "TF graph (while_loop in tf.function)", 2.0)],
    "W9": [("graph", "TF graph (map_fn in tf.function)", 1.5),
           ("session", "TF graph (TF1: map_fn, gradients, Session)", 1.5)],
    "W10": [("eager", "PyTorch", 1.0), ("graph", "TF graph (tf.function)", 2.0)],
    "W11": [("eager", "PyTorch (autograd.grad, create_graph)", 1.5),
            ("graph", "TF graph (nested tapes in tf.function)", 1.5)],
}

REPEATS = {"W7": 10, "W8 LSTM": 10, "W8 GRU": 10, "W9": 30, "W10": 10, "W11": 10}
BUDGET = {"W7": 15, "W8 LSTM": 15, "W8 GRU": 15, "W9": 10, "W10": 15, "W11": 15}
LIMIT = {"W7": 240, "W8 LSTM": 240, "W8 GRU": 240, "W9": 120, "W10": 240, "W11": 240}
QUICK_REPEATS = {k: 3 for k in REPEATS}
QUICK_BUDGET = {k: 3.0 for k in REPEATS}


def _kind(variant: str) -> str:
    if "Session" in variant:
        return "session"
    return "eager" if "eager" in variant.lower() else "graph"


def _cpu_per_floor(row: Row) -> Optional[float]:
    if row.status != "ok" or not row.cpu_samples or not row.floor_cpu_samples:
        return None
    return median(row.cpu_samples) / median(row.floor_cpu_samples)


def judge_against_peers(workload: str, rows: List[Row]) -> None:
    """Sets each duograd row's target and 'met' from its peer's row of the same run."""
    by_name = {r.variant: r for r in rows}
    for row in rows:
        if not row.variant.startswith("dg "):
            continue
        row.met = None
        for kind, peer_name, bound in PEER_TARGETS.get(workload, []):
            if kind != _kind(row.variant):
                continue
            row.target = f"<= {bound:g}x {peer_name}"
            peer = by_name.get(peer_name)
            mine = _cpu_per_floor(row)
            theirs = _cpu_per_floor(peer) if peer is not None else None
            if mine is None or theirs is None:
                row.note = "; ".join(p for p in (row.note, f"no {peer_name} row") if p)
                continue
            ratio = mine / theirs
            row.met = ratio <= bound
            row.note = "; ".join(p for p in (row.note, f"{ratio:.2f}x {peer_name} (CPU)") if p)


def interleave_with_peers(workload: str, variants: Sequence[Variant], data: dict,
                          rows: List[Row], repeats: int, budget: float,
                          limit: float) -> None:
    """Adds to each judged duograd row its CPU ratio to its peer timed alternately
    with it, no floor call between: the issue's "CPU-time ratio" measured directly,
    beside the floor-normalised one that judges the row (the floor reads differently
    beside different rows of one run: models.md). The peer takes measure_paired's
    step place, so that what its threads do after a call is charged to it."""
    by_name = {v.name: v for v in variants}
    ok = {r.variant for r in rows if r.status == "ok"}
    for row in rows:
        if not row.variant.startswith("dg ") or row.variant not in ok:
            continue
        for kind, peer_name, _ in PEER_TARGETS.get(workload, []):
            if kind != _kind(row.variant) or peer_name not in ok:
                continue
            try:
                with time_limit(limit):
                    mine = by_name[row.variant].fn(data)
                    theirs = by_name[peer_name].fn(data)
                    mine(), theirs()   # traced and warm
                    paired = measure_paired(theirs, mine, repeats, budget,
                                            min_repeats=min(3, repeats),
                                            cpu_clock=time.process_time)
            except Exception as error:  # noqa: BLE001 - a note, never a failed suite
                text = f"not interleaved with {peer_name}: {type(error).__name__}"
            else:
                ratio = median(paired.floor_cpu) / median(paired.cpu)
                text = f"interleaved with {peer_name}: {ratio:.2f}x (CPU)"
            row.note = "; ".join(p for p in (row.note, text) if p)
