"""Ops whose registered gradient function also runs on raw NumPy values.

The first-order raw sweep (eager/raw_backward.py) calls these same registered
functions with the raw context set; an op is listed only when its function
uses ops and helpers that accept raw values (eager/raw_mode.py), which
tests/test_raw_backward.py checks against the general pass for every listed
op (values, dtypes, shapes, None positions). There is no second definition
of any gradient: this is a list of names, nothing more.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional

from ..framework.registry import gradient_functions

RAW_CAPABLE_OPS = (
    "AddV2", "Sub", "Mul", "RealDiv", "Neg",
    "Sin", "Cos", "Tanh", "Exp", "Log", "Square", "Sigmoid",
    "Sum", "Mean", "AddN",
)

_cache: Dict[str, Callable] = {}


def raw_gradient_functions() -> Dict[str, Callable]:
    """{op type: its registered gradient function} for the listed ops."""
    if not _cache:
        for name in RAW_CAPABLE_OPS:
            fn: Optional[Callable] = gradient_functions.get(name)
            if fn is not None:
                _cache[name] = fn
    return _cache
