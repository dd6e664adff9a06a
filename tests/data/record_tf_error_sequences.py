"""Records tf.data's element sequences for error_pipelines.py into
tf_error_sequences.json (run with TF 2.21, without duograd on the path):

    /work/main/.venv-conformance/bin/python tests/data/record_tf_error_sequences.py
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(__file__))
from error_pipelines import (FUNCTION_CASES, SEQUENCE_CASES, drain,  # noqa: E402
                             drain_session, make_helpers)


def build(source):
    B, P = make_helpers(tf)
    return eval(source, {"D": tf.data.Dataset, "T": tf, "B": B, "P": P})  # noqa: S307


@tf.function
def total(dataset):
    t = tf.constant(0.0, tf.float64)
    for x in dataset:
        for leaf in tf.nest.flatten(x):
            t += tf.reduce_sum(tf.cast(leaf, tf.float64))
    return t


def main():
    out = {"eager": {}, "session": {}, "function": {}}
    for name, source in SEQUENCE_CASES.items():
        out["eager"][name] = drain(iter(build(source)))
        with tf.Graph().as_default():
            next_value = tf.compat.v1.data.make_one_shot_iterator(build(source)).get_next()
            with tf.compat.v1.Session() as session:
                out["session"][name] = drain_session(session, next_value)
    for name in FUNCTION_CASES:
        try:
            total(build(SEQUENCE_CASES[name]))
            raised = None
        except Exception as error:  # noqa: BLE001 - recording what TF raises
            raised = type(error).__name__
        ignoring = float(total(build(SEQUENCE_CASES[name]).ignore_errors()))
        out["function"][name] = {"raises": raised, "ignore_errors_total": ignoring}
    path = os.path.join(os.path.dirname(__file__), "tf_error_sequences.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
