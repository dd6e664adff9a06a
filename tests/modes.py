"""Running one program in eager mode or in graph mode, for tests that compare them."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import duograd as dg

MODES = ["eager", "graph"]


def run_eager(f: Callable, *args: np.ndarray) -> Any:
    """f on constants of `args`, as NumPy values (a list for list/tuple results)."""
    out = f(*[dg.constant(a) for a in args])
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else np.asarray(out)


def run_graph(f: Callable, *args: np.ndarray, unknown_dims: bool = False) -> Any:
    """f built on placeholders of `args` (optionally with every dim unknown) and run
    once in a Session."""
    g = dg.Graph()
    with g.as_default():
        ps = [dg.placeholder(dg.as_dtype(a.dtype), [None] * a.ndim if unknown_dims else a.shape)
              for a in args]
        out = f(*ps)
        with dg.Session(graph=g) as sess:
            return sess.run(out, dict(zip(ps, args)))


def run(mode: str, f: Callable, *args: np.ndarray) -> Any:
    """f(*args) in `mode` ("eager" or "graph"), as NumPy values."""
    return run_eager(f, *args) if mode == "eager" else run_graph(f, *args)
