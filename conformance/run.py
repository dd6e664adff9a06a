"""Differential conformance suite: the same cases under TensorFlow and under duograd.

    python conformance/run.py            # both backends, compare, print a summary

Each backend runs in its own process of the same interpreter (a virtual
environment with tensorflow-cpu 2.21 and duograd), executing the programs
of conformance/programs.py and the op table's forward cases
(conformance/table_cases.py); the parent compares values, dtypes, None
positions and exception classes. Deliberate deviations are listed in
DEVIATIONS with their reason and reported, not failed. The last line is
`conformance: A agree, D differ, V known deviations, S untranslatable of N`;
the exit status is 1 when any case differs.
"""
from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from typing import Any, Dict

HERE = os.path.dirname(os.path.abspath(__file__))

# case -> why duograd deliberately differs from TensorFlow 2.21 here (each checked by hand).
_CUMPROD = ("TF's cumprod gradient divides by x and is wrong where x has zeros "
            "(d/dw1 sum(cumprod([1, w1, 2, 3])) at w1 = 0 is 9; TF gives 0); duograd's is exact")
DEVIATIONS: Dict[str, str] = {
    **{f"op_table/cumprod_zeros_excl{e}_rev{r}": _CUMPROD for e in (0, 1) for r in (0, 1)},
    "op_table/nn.gelu_exact": "TF's float64 gelu gradient is off by ~6e-9 (float32-rounded "
                              "constants); duograd's matches Phi(x) + x phi(x) to 1e-16",
    "op_table/nn.softmax_cross_entropy": "labels not summing to 1: TF's fused kernel returns "
                                         "softmax - labels, duograd the exact derivative "
                                         "softmax * sum(labels) - labels (equal for "
                                         "distributions, TF's documented domain)",
}
DEVIATIONS["op_table/nn.softmax_cross_entropy_axis0"] = DEVIATIONS["op_table/nn.softmax_cross_entropy"]
# TF's order comes from Eigen's solver, duograd's from LAPACK's geev (checked: the same
# eigenvalues, e.g. [0.790, -1.539, -0.365] against [0.790, -0.365, -1.539]).
DEVIATIONS["op_table/linalg.eig"] = ("the order of eigenvalues is unspecified (TF: Eigen's "
                                     "solver; duograd: LAPACK's geev): the same set, another order")
DEVIATIONS["op_table/linalg.eigvals"] = DEVIATIONS["op_table/linalg.eig"]


def _backend(name: str) -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    if name == "tf":
        import tensorflow as tf
        tf.get_logger().setLevel("ERROR")
        return tf
    import duograd
    return duograd


def worker(backend: str, out: str) -> None:
    """Runs every case under one backend; pickles {case: encoded result}."""
    sys.path.insert(0, HERE)
    from encode import encode
    from programs import PROGRAMS
    import table_cases
    tf = _backend(backend)
    results: Dict[str, Any] = {}
    for name, prog in PROGRAMS.items():
        try:
            value = prog(tf)
        except Exception as e:  # noqa: BLE001 - compared by class
            value = e
        results[f"program/{name}"] = encode(value)
    for name, value in table_cases.cases(tf, backend).items():
        if isinstance(value, tuple) and value and value[0] == "random":
            results[name] = ("random", encode(value[1]))
        elif isinstance(value, table_cases.Untranslatable):
            results[name] = ("untranslatable", str(value))
        else:
            results[name] = encode(value)
    with open(out, "wb") as f:
        pickle.dump(results, f)


def _shapes_only(encoded: Any) -> Any:
    """For random ops: keep shapes and dtypes, drop the sampled values."""
    import numpy as np
    kind = encoded[0]
    if kind == "value":
        return ("value", np.zeros(encoded[1].shape, encoded[1].dtype), encoded[2])
    if kind == "seq":
        return ("seq", [_shapes_only(e) for e in encoded[1]])
    return encoded


def compare(tf_results: Dict[str, Any], dg_results: Dict[str, Any]) -> int:
    sys.path.insert(0, HERE)
    from encode import difference
    agree = differ = deviations = untranslatable = 0
    skipped = []
    for case in sorted(tf_results):
        a, b = tf_results[case], dg_results.get(case, ("error", "Missing", ""))
        if a[0] == "untranslatable" or b[0] == "untranslatable" or (
                case.startswith("op_table/") and a[0] == "error" and b[0] != "error"):
            untranslatable += 1   # a row TensorFlow cannot run as written
            skipped.append(case.split("/", 1)[1])
            continue
        if a[0] == "random" and b[0] == "random":
            a, b = _shapes_only(a[1]), _shapes_only(b[1])
        found = difference(a, b)
        if not found:
            agree += 1
        elif case in DEVIATIONS:
            deviations += 1
            print(f"deviation {case}: {found} ({DEVIATIONS[case]})")
        else:
            differ += 1
            print(f"DIFFER    {case}: {found}")
    total = len(tf_results)
    if skipped:
        print(f"not run by TensorFlow (duograd internals, names TF lacks, TF CPU limits): {', '.join(skipped)}")
    print(f"conformance: {agree} agree, {differ} differ, {deviations} known deviations, "
          f"{untranslatable} untranslatable of {total}")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", choices=("tf", "dg"))
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.out)
        return 0
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for backend in ("tf", "dg"):
            out = os.path.join(tmp, f"{backend}.pkl")
            subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", backend,
                            "--out", out], check=True)
            with open(out, "rb") as f:
                results[backend] = pickle.load(f)
    status = compare(results["tf"], results["dg"])
    sys.path.insert(0, HERE)
    import program_corpus   # the corpus of whole programs (conformance/programs/)
    return max(status, program_corpus.main([]))


if __name__ == "__main__":
    sys.exit(main())
