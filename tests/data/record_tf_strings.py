"""Records tf.data's answers for string_pipelines.py into tf_strings.json (TF 2.21,
without duograd on the path):

    /work/main/.venv-conformance/bin/python tests/data/record_tf_strings.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(__file__))
from string_pipelines import STRING_CASES, encode, encode_spec  # noqa: E402


def build(source):
    return eval(source, {"D": tf.data.Dataset, "T": tf, "np": np})  # noqa: S307


def main():
    out = {}
    for name, source in STRING_CASES.items():
        dataset = build(source)
        elements = [encode(e) for e in dataset.as_numpy_iterator()]
        with tf.Graph().as_default():
            next_value = tf.compat.v1.data.make_one_shot_iterator(build(source)).get_next()
            session_elements = []
            with tf.compat.v1.Session() as session:
                while True:
                    try:
                        session_elements.append(encode(session.run(next_value)))
                    except tf.errors.OutOfRangeError:
                        break
        out[name] = {"spec": encode_spec(dataset.element_spec),
                     "cardinality": int(dataset.cardinality()),
                     "elements": elements, "session": session_elements}
    path = os.path.join(os.path.dirname(__file__), "tf_strings.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
