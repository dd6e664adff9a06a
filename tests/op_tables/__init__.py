"""The op table: one row per public op form (forward and gradient checks in both modes).

`all_rows()` gathers the rows of every `*_table` module here; `op_types_of(row)`
lists the op types a row builds in a graph."""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, List, Set


def all_rows() -> List[Any]:
    rows: List[Any] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.endswith("_table"):
            rows.extend(importlib.import_module(f"{__name__}.{info.name}").ROWS)
    return rows


def op_types_of(spec: Any) -> Set[str]:
    import numpy as np

    import duograd as dg
    args = [np.asarray(a) for a in spec.make(np.random.default_rng(0))]
    g = dg.Graph()
    with g.as_default():
        spec.fn(*[dg.placeholder(dg.as_dtype(a.dtype), a.shape) for a in args])
    return {op.type for op in g.get_operations()}
