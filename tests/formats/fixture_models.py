"""duograd programs of the same structure as those of data/make_fixtures.py (TF 2.21)."""
import json
import os

import numpy as np

import duograd as dg

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "expected.json")) as _stream:
    EXPECTED = json.load(_stream)


def fixture(*parts):
    return os.path.join(DATA, *parts)


class Inner(dg.Module):
    def __init__(self, fill=None):
        super().__init__(name="inner")
        self.w = dg.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 7
                             if fill is None else np.full((2, 3), fill, np.float32), name="w")
        self.b = dg.Variable(np.array([1.5, -2.25, 3.0]) if fill is None
                             else np.full(3, fill, np.float64), name="b")


class Outer(dg.Module):
    def __init__(self, fill=None):
        super().__init__(name="outer")
        self.inner = Inner(fill)
        self.scale = dg.Variable(np.float32(0.5 if fill is None else fill), name="scale")
        self.steps = dg.Variable(np.int64(7 if fill is None else 0), name="steps")
        self.layers = [dg.Variable(np.array([1, 2], np.int32) if fill is None
                                   else np.zeros(2, np.int32), name="l0"),
                       dg.Variable(np.array([[True, False]]) if fill is None
                                   else np.zeros((1, 2), bool), name="l1")]

    def __call__(self, x):
        return dg.matmul(x, self.inner.w) * self.scale + dg.cast(self.inner.b, dg.float32)


def expected_value(prefix, key):
    entry = EXPECTED[prefix][key]
    value = np.array(entry["value"], dtype=entry["dtype"] if entry["dtype"] != "string" else
                     object)
    return value.reshape(entry["shape"])
