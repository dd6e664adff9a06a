"""Loads tf_reference.json (recorded by record_tf_reference.py from TF 2.21) and runs
the same pipelines on dg.data, encoding both the same way."""
import json
import os
import re

import numpy as np

import duograd as dg

_HERE = os.path.dirname(__file__)

with open(os.path.join(_HERE, "tf_reference.json")) as _f:
    TF = json.load(_f)

SCOPE = {"D": dg.data.Dataset, "T": dg, "np": np}


def build(source):
    return eval(source, dict(SCOPE))  # noqa: S307 - the test's own pipeline table


def encode(value):
    if isinstance(value, dict):
        return {"dict": {k: encode(v) for k, v in sorted(value.items())}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    array = np.asarray(value)
    return {"dtype": array.dtype.name, "shape": list(array.shape), "value": array.tolist()}


def encode_spec(spec):
    if isinstance(spec, dict):
        return {"dict": {k: encode_spec(v) for k, v in sorted(spec.items())}}
    if isinstance(spec, tuple):
        return {"tuple": [encode_spec(v) for v in spec]}
    return {"dtype": spec.dtype.name,
            "shape": spec.shape.as_list() if spec.shape.rank is not None else None}


def tf_message(message):
    """TF's message without its op wrapping, with duograd's `dg.` for TF's `tf.` API names."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    message = re.sub(r" \[Op:[A-Za-z0-9]+\]( name: )?$", "", message)
    message = re.sub(r"(passed to \w+Dataset):\d+ (transformation) with iterator: [\w:]+:",
                     r"\1 \2:", message)
    message = message.replace("tf.", "dg.")
    # dtypes print as TF's own text (`<dtype: 'int64'>`, `TensorSpec(..., dtype=tf.int64)`)
    return re.sub(r"dtype=dg\.", "dtype=tf.", message)
