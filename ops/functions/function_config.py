"""dg.config.run_functions_eagerly: run dg.function bodies as plain Python (for debugging).

A process-wide switch, as TensorFlow's: while it is on, calling a
dg.function calls the Python function directly in the caller's mode.
"""
from __future__ import annotations

_run_eagerly = [False]  # the one setting, process-wide like TensorFlow's


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Makes every dg.function call run its Python function directly (or not)."""
    _run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether dg.function calls currently run their Python functions directly."""
    return _run_eagerly[0]


__all__ = ["run_functions_eagerly", "functions_run_eagerly"]
