"""The op table's forward cases (tests/op_tables) as conformance cases.

Each row runs on the same inputs under both backends: its value, and the
gradient of sum(out * w) (fixed weights w) with respect to each floating input,
None where there is none. Each table module is executed once per backend with
`dg` bound to that backend; under TensorFlow `dg.X` is answered by `tf.X`, then
`tf.compat.v1.X`, and a row that needs one of duograd's internal modules (or a
name TensorFlow lacks) is untranslatable: reported, not counted as agreeing.
"""
from __future__ import annotations

import os
import pkgutil
import sys
import types
from typing import Any, Dict, List, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")


class Untranslatable(Exception):
    """The row calls something TensorFlow has no public name for."""


class TFNames:
    """`dg` (or `dg.math`, ...) for rows run under TensorFlow: the same name in
    `tf` (or `tf.math`, ...), then in `tf.compat.v1`. A name TensorFlow lacks is a
    `Missing` that makes the row untranslatable when called."""

    def __init__(self, *roots: Any) -> None:
        self._roots = [r for r in roots if r is not None]

    def __getattr__(self, name: str) -> Any:
        for root in self._roots:
            if not hasattr(root, name):
                continue
            value = getattr(root, name)   # may be None itself (tf.newaxis)
            if isinstance(value, types.ModuleType):
                return TFNames(*[getattr(r, name, None) for r in self._roots])
            return value
        return Missing(name)


class Missing:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return Missing(f"{self._name}.{attr}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise Untranslatable(f"TensorFlow has no public {self._name}")


class Internal:
    """A duograd implementation module a row uses: TensorFlow has no such thing."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        # Rows name internals when the table is loaded; only calling one is untranslatable.
        return Internal(f"{self._name}.{attr}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise Untranslatable(f"uses duograd's internal {self._name}")


def _source_for(path: str, backend: str) -> str:
    """The table's source with `dg` (and, under TensorFlow, duograd's internal imports)
    bound by the loader instead of imported."""
    lines = []
    for line in open(path, encoding="utf-8").read().splitlines():
        if line.strip() == "import duograd as dg":
            line = "dg = __conformance_dg__"
        elif backend == "tf" and line.startswith("from duograd"):
            names = [n.strip().split(" as ") for n in line.split(" import ", 1)[1].split(",")]
            line = "; ".join(f"{n[-1]} = __conformance_internal__({n[0]!r})" for n in names)
        lines.append(line)
    return "\n".join(lines) + "\n"


def load_rows(tf: Any, backend: str) -> List[Any]:
    """Every op-table row, its module executed with `dg` = this backend."""
    if TESTS not in sys.path:
        sys.path.insert(0, TESTS)
    import op_tables
    rows = []
    for info in sorted(pkgutil.iter_modules(op_tables.__path__), key=lambda m: m.name):
        if not info.name.endswith("_table"):
            continue
        path = os.path.join(op_tables.__path__[0], info.name + ".py")
        module = types.ModuleType(f"op_tables.conformance_{backend}_{info.name}")
        module.__package__ = "op_tables"
        module.__file__ = path
        module.__dict__["__conformance_dg__"] = tf if backend == "dg" else TFNames(tf, tf.compat.v1)
        module.__dict__["__conformance_internal__"] = Internal
        exec(compile(_source_for(path, backend), path, "exec"), module.__dict__)  # noqa: S102
        rows.extend(module.ROWS)
    return rows


def _weights(name: str, shape: Tuple[int, ...]) -> np.ndarray:
    seed = sum(ord(c) for c in name)
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape)


def run_row(spec: Any, tf: Any, backend: str) -> Any:
    """[outputs, gradients of the weighted output sum], or Untranslatable."""
    fn = spec.fn
    args = [np.asarray(a) for a in spec.make(np.random.default_rng(0))]
    tensors = [tf.constant(a) for a in args]
    floating = [t for t, a in zip(tensors, args, strict=True) if a.dtype.kind in "fc"]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(floating)
        out = fn(*tensors)
        outs = _flatten(out)
        terms = [tf.reduce_sum(tf.cast(o, tf.float64) * _weights(spec.name, tuple(o.shape)))
                 for o in outs if o.dtype.is_floating and None not in tuple(o.shape)]
        loss = tf.add_n(terms) if terms else None
    grads = (tape.gradient(loss, floating) if loss is not None and spec.order and floating
             else [])
    return [outs, grads]


def _flatten(value: Any) -> List[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


RANDOM_ROWS = ("random", "dropout", "shuffle", "multinomial", "categorical")


def cases(tf: Any, backend: str) -> Dict[str, Any]:
    """{row name: result or exception} for every op-table row."""
    results = {}
    for spec in load_rows(tf, backend):
        key = f"op_table/{spec.name}"
        try:
            results[key] = run_row(spec, tf, backend)
        except Untranslatable as e:
            results[key] = e
        except Exception as e:  # noqa: BLE001 - compared by class
            results[key] = e
        if any(word in spec.name for word in RANDOM_ROWS):
            results[key] = ("random", results[key])
    return results
