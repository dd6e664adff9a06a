"""The benchmark harness's paired measurement (benchmarks/harness.py): each call's
time, CPU time and minor page faults, the step's apart from the floor's."""
from __future__ import annotations

import importlib.util
import os
import sys
import time

import numpy as np

from repo_paths import REPO_ROOT

_spec = importlib.util.spec_from_file_location(
    "bench_harness", os.path.join(REPO_ROOT, "benchmarks", "harness.py"))
harness = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = harness   # its dataclasses look their module up
_spec.loader.exec_module(harness)

# 64 MiB: above glibc's largest dynamic mmap threshold (32 MiB), so every call maps
# fresh pages, and touching them faults each page in: at least one fault per 2 MiB
# (NumPy asks for transparent huge pages on large arrays), 16,384 with 4 KiB pages.
FRESH_BYTES = 64 << 20
FRESH_FAULTS = FRESH_BYTES // (2 << 20)


def _touch_fresh_pages() -> None:
    np.ones(FRESH_BYTES // 8)


def _quiet() -> None:
    sum(range(100))


def test_faults_are_counted_per_call_and_kept_apart():
    paired = harness.measure_paired(_touch_fresh_pages, _quiet, repeats=3, budget=60)
    assert len(paired.faults) == len(paired.floor_faults) == len(paired.times) == 3
    assert min(paired.faults) >= FRESH_FAULTS
    assert max(paired.floor_faults) < FRESH_FAULTS
    swapped = harness.measure_paired(_quiet, _touch_fresh_pages, repeats=3, budget=60)
    assert min(swapped.floor_faults) >= FRESH_FAULTS
    assert max(swapped.faults) < FRESH_FAULTS


def test_faults_note_names_both_medians_only_when_worth_it():
    row = harness.Row("W10", "dg eager", faults=[1200, 1250, 1300], floor_faults=[2300] * 3)
    assert harness.faults_note(row) == "page faults per call 1250 (floor 2300)"
    row.faults, row.floor_faults = [3, 0, 1], [0, 0, 2]
    assert harness.faults_note(row) == ""


def test_process_clock_counts_every_threads_faults():
    paired = harness.measure_paired(_touch_fresh_pages, _quiet, repeats=2, budget=60,
                                    cpu_clock=time.process_time)
    assert min(paired.faults) >= FRESH_FAULTS
