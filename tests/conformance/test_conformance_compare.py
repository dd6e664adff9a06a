"""The differential suite's comparison (conformance/encode.py) catches what it must:
values, dtypes, None positions and exception classes."""
from __future__ import annotations

import importlib.util
import os

import numpy as np

import duograd as dg
from repo_paths import REPO_ROOT

_PATH = os.path.join(REPO_ROOT,
                     "conformance", "encode.py")
_spec = importlib.util.spec_from_file_location("conformance_encode", _PATH)
encode_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(encode_module)
encode, difference = encode_module.encode, encode_module.difference


def test_equal_results_agree():
    a = encode([dg.constant([1.0, 2.0]), None, (ValueError("x"), 3)])
    b = encode([np.array([1.0, 2.0], np.float32), None, (ValueError("y"), 3)])
    assert difference(a, b) == ""


def test_each_kind_of_difference_is_reported():
    base = encode([dg.constant([1.0, 2.0]), None, ValueError("x")])
    assert "dtype float32 vs float64" in difference(
        base, encode([dg.constant([1.0, 2.0], dg.float64), None, ValueError("x")]))
    assert "values differ" in difference(
        base, encode([dg.constant([1.0, 2.5]), None, ValueError("x")]))
    assert "gave none" in difference(
        encode([None]), encode([dg.constant(0.0)]))
    assert "raised ValueError, duograd TypeError" in difference(
        base, encode([dg.constant([1.0, 2.0]), None, TypeError("x")]))
    assert "items" in difference(encode([1, 2]), encode([1]))
