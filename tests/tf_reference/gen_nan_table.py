"""Records TensorFlow's NaN propagation over the op table into tests/nan_reference.py.

Run with a Python that has both TensorFlow and duograd (not part of `make test`):

    python3 -m venv .venv-tf
    echo /root/tfbase/lib/python3.11/site-packages > .venv-tf/lib/python3.11/site-packages/tfbase.pth
    .venv-tf/bin/pip install -q -e .
    TF_CPP_MIN_LOG_LEVEL=3 .venv-tf/bin/python tests/tf_reference/gen_nan_table.py

Each op-table row runs with TensorFlow in place of duograd: every module
global of the table modules that is `dg` or one of its namespaces is swapped
for TF's counterpart while the row runs. Rows TF cannot run are left out.
"""
from __future__ import annotations

import os
import pprint
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)

import tensorflow as tf  # noqa: E402

import duograd as dg  # noqa: E402
import nan_probe  # noqa: E402

SWAPS = {id(dg): tf, id(dg.math): tf.math, id(dg.nn): tf.nn, id(dg.linalg): tf.linalg}


def _swap_modules() -> list:
    """Points every table module's dg globals at TF; returns how to undo it."""
    undo = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("op_tables.") or not hasattr(module, "__dict__"):
            continue
        for key, value in list(vars(module).items()):
            replacement = SWAPS.get(id(value))
            if replacement is not None:
                undo.append((module, key, value))
                setattr(module, key, replacement)
    return undo


def _tf_function(fn):
    """TF's function for a row whose fn is a dg function itself (not a lambda)."""
    for dg_space, tf_space in ((dg, tf), (dg.math, tf.math), (dg.nn, tf.nn),
                               (dg.linalg, tf.linalg)):
        for name, value in vars(dg_space).items():
            if value is fn and hasattr(tf_space, name):
                return getattr(tf_space, name)
    return fn


def _runs_in_tf(fn, args) -> bool:
    out = fn(*[tf.constant(a) for a in args])
    outs = out if isinstance(out, (list, tuple)) else [out]
    return all(isinstance(o, tf.Tensor) for o in outs if o is not None)


def main() -> None:
    cases = nan_probe.all_cases()
    _swap_modules()
    recorded = {}
    for key, (spec, args) in sorted(cases.items()):
        try:
            fn = _tf_function(spec.fn)
            if not _runs_in_tf(fn, args):
                raise TypeError("the row does not run on TensorFlow tensors")
            recorded[key] = nan_probe.probe(tf, fn, args)
        except Exception as error:  # noqa: BLE001 - a row TF cannot run is left out
            print(f"skip {key}: {type(error).__name__}: {str(error)[:100]}", file=sys.stderr)
    path = os.path.join(TESTS, "nan_reference.py")
    with open(path, "w") as out:
        out.write('"""NaN positions of op-table outputs and gradients, recorded from TensorFlow '
                  '2.21\nby tests/tf_reference/gen_nan_table.py (do not edit by hand).\n\n'
                  '{case: (NaN flat positions per float output, per float input gradient)}\n'
                  '"""\n\n')
        out.write("TF_NAN = " + pprint.pformat(recorded, width=100, compact=True) + "\n")
    print(f"recorded {len(recorded)} of {len(cases)} cases into {path}")


if __name__ == "__main__":
    main()
