"""Feeding NaN through the op table: which outputs and gradients come out NaN.

One code path serves duograd (in tests/ops/test_nan_propagation.py) and TensorFlow
(in tests/tf_reference/gen_nan_table.py, which records TF's answers as the
literals of tests/nan_reference.py): for each op-table row and each of its
real floating inputs, element 0 of that input becomes NaN; the row runs under
a tape, and the flat positions of NaN in every floating output and in the
gradient of the sum of those outputs with respect to every floating input are
collected.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

import op_tables

NanPositions = Tuple[Tuple[int, ...], ...]


def table_rows() -> List[Any]:
    return op_tables.all_rows()


def nan_cases(spec: Any) -> List[Tuple[int, List[np.ndarray]]]:
    """(input index, args with element 0 of that input NaN) for each real float input."""
    args = [np.asarray(a) for a in spec.make(np.random.default_rng(0))]
    cases = []
    for j, a in enumerate(args):
        if a.dtype.kind == "f" and a.size:
            poisoned = [x.copy() for x in args]
            poisoned[j].reshape(-1)[0] = np.nan
            cases.append((j, poisoned))
    return cases


def _nan_at(value: Any) -> Tuple[int, ...]:
    array = np.asarray(value)
    if array.dtype.kind not in "fc":
        return ()
    return tuple(int(i) for i in np.flatnonzero(np.isnan(array)))


def probe(lib: Any, fn: Any, args: List[np.ndarray]) -> Optional[Tuple[NanPositions,
                                                                        NanPositions]]:
    """(NaN positions of each float output, NaN positions of each float input's
    gradient) of `fn` run eagerly by `lib` (duograd or tensorflow); None when
    the row cannot run (e.g. a name TF lacks)."""
    tensors = [lib.constant(a) for a in args]
    floats = [t for t, a in zip(tensors, args) if a.dtype.kind == "f"]
    with np.errstate(all="ignore"):
        with lib.GradientTape() as tape:
            for t in floats:
                tape.watch(t)
            out = fn(*tensors)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            outs = [o for o in outs if o is not None and o.dtype.is_floating]
            total = None
            for o in outs:
                part = lib.reduce_sum(o)
                total = part if total is None else total + part
        forward = tuple(_nan_at(o) for o in outs)
        if total is None:
            return forward, ()
        grads = tape.gradient(total, floats)
    backward = tuple(_nan_at(lib.convert_to_tensor(g)) if g is not None else ()
                     for g in grads)
    return forward, backward


def case_key(spec: Any, j: int) -> str:
    return f"{spec.name}[{j}]"


def all_cases() -> Dict[str, Tuple[Any, List[np.ndarray]]]:
    """{case key: (row spec, poisoned args)} over the whole table."""
    found = {}
    for spec in table_rows():
        for j, args in nan_cases(spec):
            found[case_key(spec, j)] = (spec, args)
    return found
