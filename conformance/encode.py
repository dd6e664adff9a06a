"""What a conformance case returned, as plain data both backends' results compare in.

A tensor (eager or fetched) becomes ("value", array, dtype name); None stays
("none",); an exception becomes ("error", class name, message); lists,
tuples and dicts keep their structure.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def _dtype_name(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else np.asarray(value).dtype.name


def encode(value: Any) -> Any:
    """Plain, picklable data for `value` (see the module docstring)."""
    if value is None:
        return ("none",)
    if isinstance(value, BaseException):
        return ("error", type(value).__name__, str(value)[:300])
    if isinstance(value, dict):
        return ("dict", {k: encode(v) for k, v in sorted(value.items())})
    if isinstance(value, (list, tuple)):
        return ("seq", [encode(v) for v in value])
    if isinstance(value, (bool, int, float, complex, str)):
        return ("py", value)
    values = getattr(value, "values", None)
    indices = getattr(value, "indices", None)
    if values is not None and indices is not None and hasattr(value, "dense_shape"):
        return ("slices", encode(values), encode(indices))
    numpy = getattr(value, "numpy", None)
    array = np.asarray(numpy() if callable(numpy) else value)
    return ("value", array, _dtype_name(value))


def _close(a: np.ndarray, b: np.ndarray, dtype: str) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    rtol, atol = {"float16": (1e-2, 1e-3), "float32": (1e-4, 1e-5),
                  "complex64": (1e-4, 1e-5)}.get(dtype, (1e-7, 1e-9))
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def difference(tf_result: Any, dg_result: Any, path: str = "") -> str:
    """'' when the two encoded results agree, else what differs first."""
    kind = tf_result[0]
    if kind != dg_result[0]:
        return f"{path or 'result'}: TensorFlow gave {_show(tf_result)}, duograd {_show(dg_result)}"
    if kind == "none":
        return ""
    if kind == "error":
        if tf_result[1] != dg_result[1]:
            return f"{path or 'result'}: TensorFlow raised {tf_result[1]}, duograd {dg_result[1]}"
        return ""
    if kind == "py":
        if type(tf_result[1]) is not type(dg_result[1]) or tf_result[1] != dg_result[1] and not (
                isinstance(tf_result[1], float) and np.isclose(tf_result[1], dg_result[1])):
            return f"{path or 'result'}: {tf_result[1]!r} != {dg_result[1]!r}"
        return ""
    if kind == "dict":
        if tf_result[1].keys() != dg_result[1].keys():
            return f"{path or 'result'}: keys differ"
        for key in tf_result[1]:
            found = difference(tf_result[1][key], dg_result[1][key], f"{path}[{key!r}]")
            if found:
                return found
        return ""
    if kind == "seq":
        if len(tf_result[1]) != len(dg_result[1]):
            return f"{path or 'result'}: {len(tf_result[1])} items vs {len(dg_result[1])}"
        for i, (a, b) in enumerate(zip(tf_result[1], dg_result[1], strict=True)):
            found = difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return ""
    if kind == "slices":
        return difference(tf_result[1], dg_result[1], path + ".values") or \
            difference(tf_result[2], dg_result[2], path + ".indices")
    _, a, a_dtype = tf_result
    _, b, b_dtype = dg_result
    if a_dtype != b_dtype:
        return f"{path or 'result'}: dtype {a_dtype} vs {b_dtype}"
    if not _close(a, b, a_dtype):
        return f"{path or 'result'}: values differ (shape {a.shape} vs {b.shape})"
    return ""


def _show(encoded: Any) -> str:
    kind = encoded[0]
    if kind == "error":
        return f"{encoded[1]}({encoded[2][:80]!r})"
    if kind == "value":
        return f"a {encoded[2]} value of shape {encoded[1].shape}"
    return kind
