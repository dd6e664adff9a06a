"""Loads tf_reference.json (recorded by record_tf_reference.py from TF 2.21) and runs
the same pipelines on dg.data, encoding both the same way."""
import json
import os
import re

import numpy as np

import duograd as dg
from pipelines import encode, encode_spec  # noqa: F401 (re-exported to the tests)

_HERE = os.path.dirname(__file__)

with open(os.path.join(_HERE, "tf_reference.json")) as _f:
    TF = json.load(_f)

SCOPE = {"D": dg.data.Dataset, "T": dg, "np": np}


def build(source):
    return eval(source, dict(SCOPE))  # noqa: S307 - the test's own pipeline table



def tf_message(message):
    """TF's message without its op wrapping, with duograd's `dg.` for TF's `tf.` API names."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    message = re.sub(r" \[Op:[A-Za-z0-9]+\]( name: )?$", "", message)
    message = re.sub(r"(passed to \w+Dataset):\d+ (transformation) with iterator: [\w:]+:",
                     r"\1 \2:", message)
    message = message.replace("tf.", "dg.")
    # dtypes print as TF's own text (`<dtype: 'int64'>`, `TensorSpec(..., dtype=tf.int64)`)
    return re.sub(r"dtype=dg\.", "dtype=tf.", message)
