"""Records TensorFlow's outcome of every bad-input case into tests/bad_input_reference.py.

Run with a Python that has both TensorFlow and duograd (not part of `make test`):

    python3 -m venv .venv-tf
    echo /root/tfbase/lib/python3.11/site-packages > .venv-tf/lib/python3.11/site-packages/tfbase.pth
    .venv-tf/bin/pip install -q -e .
    TF_CPP_MIN_LOG_LEVEL=3 .venv-tf/bin/python tests/tf_reference/gen_bad_input.py

The reference stores, per case, TF's outcome: "ok" or the exception class
name. Outcomes are coded as one character each (OUTCOME_NAMES) and grouped by
entry point, to keep the file small.
"""
from __future__ import annotations

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)

import tensorflow as tf  # noqa: E402

import bad_input_cases as cases_module  # noqa: E402
import duograd as dg  # noqa: E402

CODES = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def tf_api() -> cases_module.Api:
    return cases_module.Api(tf, tf.errors, tf.compat.v1.placeholder, tf.compat.v1.Session)


JOURNAL = os.path.join(TESTS, "..", ".bad_input_journal.jsonl")


def _run_all(cases: dict, api: cases_module.Api) -> dict:
    """Outcomes of every case, journaled so that a run killed by a TF crash
    (a CHECK failure aborts the process) resumes; the crashing case is
    recorded as "crash" and left out of the comparison."""
    outcomes = {}
    if os.path.exists(JOURNAL):
        with open(JOURNAL) as journal:
            for line in journal:
                entry = json.loads(line)
                outcomes[entry["case"]] = entry.get("outcome", "crash")
    with open(JOURNAL, "a") as journal:
        for key, call in cases.items():
            if key in outcomes:
                continue
            journal.write(json.dumps({"case": key}) + "\n")  # started
            journal.flush()
            outcomes[key] = cases_module.outcome(api, call)
            journal.write(json.dumps({"case": key, "outcome": outcomes[key]}) + "\n")
            journal.flush()
    return outcomes


def main() -> None:
    functions = cases_module.shared_functions(dg, tf)
    cases = cases_module.all_cases(dg, functions)
    api = tf_api()
    start = time.time()
    outcomes = _run_all(cases, api)
    names: list = []
    for key in cases:
        if outcomes[key] not in names:
            names.append(outcomes[key])
    print(f"{len(cases)} cases in {time.time() - start:.0f} s", file=sys.stderr)
    path = os.path.join(TESTS, "bad_input_reference.py")
    with open(path, "w") as out:
        out.write('"""TensorFlow 2.21\'s outcome of every case of bad_input_cases.py, recorded by\n'
                  'tests/tf_reference/gen_bad_input.py (do not edit by hand).\n\n'
                  'FUNCTIONS: the (namespace, name) entry points both libraries have.\n'
                  'HAND_WRITTEN: {case: outcome}. GENERATED: {case: one code per outcome, in\n'
                  'OUTCOME_NAMES}, keyed by the case name.\n"""\n\n')
        out.write(f"OUTCOME_NAMES = {names!r}\n\n")
        out.write("FUNCTIONS = [\n")
        for space, name in functions:
            out.write(f"    ({space!r}, {name!r}),\n")
        out.write("]\n\nHAND_WRITTEN = {\n")
        for key in cases_module.HAND_WRITTEN:
            out.write(f"    {key!r}: {outcomes[key]!r},\n")
        out.write("}\n\nGENERATED = (\n")
        generated = [k for k in cases if k not in cases_module.HAND_WRITTEN]
        line = ""
        for key in generated:
            line += CODES[names.index(outcomes[key])]
            if len(line) == 80:
                out.write(f"    {line!r}\n")
                line = ""
        if line:
            out.write(f"    {line!r}\n")
        out.write(")\n")
    print(f"recorded into {path}")


if __name__ == "__main__":
    main()
