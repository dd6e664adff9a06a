"""The model workloads' peer comparison (benchmarks/model_suite.py): each judged
duograd row also gets its CPU ratio to its peer timed alternately with it."""
from __future__ import annotations

from duograd.benchmarks import model_suite
from duograd.benchmarks.harness import Row, Variant


def _spin(n):
    def step():
        return sum(range(n))
    return step


def _variants(peer_fn):
    return [Variant("W10", "dg eager", "step", lambda data: _spin(20000)),
            Variant("W10", "dg graph (dg.function)", "step", lambda data: _spin(20000)),
            Variant("W10", "PyTorch", "step", peer_fn)]


def _rows(*names):
    return [Row("W10", name) for name in names]


def test_a_judged_row_notes_its_interleaved_ratio_to_its_peer():
    rows = _rows("dg eager", "dg graph (dg.function)", "PyTorch")
    model_suite.interleave_with_peers("W10", _variants(lambda data: _spin(20000)), {}, rows,
                                      repeats=3, budget=5, limit=60)
    eager, graph, peer = rows
    assert eager.note.startswith("interleaved with PyTorch: ") and eager.note.endswith("x (CPU)")
    ratio = float(eager.note.split(": ")[1].split("x")[0])
    assert ratio > 0
    assert graph.note == ""   # judged against TF's graph row, which this run has not
    assert peer.note == ""


def test_a_failing_peer_is_a_note_and_rows_not_ok_are_left_alone():
    def broken(data):
        raise RuntimeError("no peer here")
    rows = _rows("dg eager", "PyTorch")
    model_suite.interleave_with_peers("W10", _variants(broken), {}, rows,
                                      repeats=3, budget=5, limit=60)
    assert rows[0].note == "not interleaved with PyTorch: RuntimeError"
    rows = _rows("dg eager", "PyTorch")
    rows[1].status = "error"
    model_suite.interleave_with_peers("W10", _variants(broken), {}, rows,
                                      repeats=3, budget=5, limit=60)
    assert rows[0].note == ""
