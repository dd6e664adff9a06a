"""Records TensorFlow's values for tests/gradient_cases.py into tests/gradient_reference.py.

Run with TensorFlow 2.21's interpreter, without duograd on the path:

    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-conformance/bin/python \
        tests/tf_reference/gen_gradient_reference.py
"""
from __future__ import annotations

import os
import pprint
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)

import tensorflow as tf  # noqa: E402

import gradient_cases  # noqa: E402



def _record(run):
    """The case's values, or {"raises": TF's exception class name}."""
    try:
        return run(tf)
    except Exception as error:  # noqa: BLE001 - the class is what is recorded
        return {"raises": type(error).__name__}


values = {name: _record(run) for name, run in sorted(gradient_cases.CASES.items())}
with open(os.path.join(TESTS, "gradient_reference.py"), "w") as out:
    out.write('"""TensorFlow 2.21\'s values for tests/gradient_cases.py (written by '
              'tf_reference/gen_gradient_reference.py)."""\n')
    out.write("from math import inf, nan  # noqa: F401\n\nTF_VALUES = ")
    out.write(pprint.pformat(values, width=100))
    out.write("\n")
