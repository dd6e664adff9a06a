"""Records tf.data's answers for pipelines.py into tf_reference.json (run with TF 2.21):

    /work/main/.venv-conformance/bin/python tests/data/record_tf_reference.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(__file__))
from pipelines import CARDINALITY_CASES, ELEMENT_CASES, ERROR_CASES, encode, encode_spec  # noqa: E402



def main():
    scope = {"D": tf.data.Dataset, "T": tf, "np": np}
    out = {"elements": {}, "cardinality": {}, "errors": {}}
    for name, source in ELEMENT_CASES.items():
        ds = eval(source, scope)
        out["elements"][name] = {"spec": encode_spec(ds.element_spec),
                                 "cardinality": int(ds.cardinality()),
                                 "elements": [encode(e) for e in ds.as_numpy_iterator()]}
    for name, source in CARDINALITY_CASES.items():
        out["cardinality"][name] = int(eval(source, scope).cardinality())
    for name, source in ERROR_CASES.items():
        try:
            eval(source, scope)
        except Exception as error:  # noqa: BLE001 - recording what TF raises
            out["errors"][name] = {"type": type(error).__name__,
                                   "message": str(error).split("\n")[0][:300]}
        else:
            out["errors"][name] = {"type": None, "message": ""}
    path = os.path.join(os.path.dirname(__file__), "tf_reference.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
