"""Text of tensor values as TensorFlow's PrintV2 and Assert kernels write it.

Floats print as `%.6g` when that reads back as the same value, else `%.9g`
(float64: `%.15g` / `%.17g`, as TF's StrCat does), booleans as 1/0, arrays nested in brackets like
NumPy's, and along each axis longer than `2 * summarize` only the first and
last `summarize` entries with `...` between (summarize < 0: everything).
"""
from __future__ import annotations

from typing import Any, List

import numpy as np

_FLOAT_DIGITS = {np.dtype(np.float16): (6, 9), np.dtype(np.float32): (6, 9),
                 np.dtype(np.float64): (15, 17)}


def format_scalar(value: Any, dtype: np.dtype) -> str:
    if isinstance(value, (bytes, str)):   # a string tensor's element, quoted as TF does
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        return f'"{text}"'
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind == "f":
        value = float(value)
        if np.isnan(value):
            return "nan"
        if np.isinf(value):
            return "inf" if value > 0 else "-inf"
        short, full = _FLOAT_DIGITS.get(dtype, (15, 17))
        text = "%.*g" % (short, value)
        return text if dtype.type(float(text)) == dtype.type(value) else "%.*g" % (full, value)
    if dtype.kind == "c":
        return f"({format_scalar(value.real, np.dtype(value.real.dtype))},"\
               f"{format_scalar(value.imag, np.dtype(value.imag.dtype))})"
    return str(value)


def format_array(array: Any, summarize: int = 3) -> str:
    """The text of one tensor value."""
    array = np.asarray(array)
    if array.ndim == 0:
        return format_scalar(array[()], array.dtype)
    return _format(array, summarize, 0)


def _kept(n: int, summarize: int) -> List[Any]:
    if summarize < 0 or n <= 2 * summarize:
        return list(range(n))
    return list(range(summarize)) + [None] + list(range(n - summarize, n))


def _format(array: np.ndarray, summarize: int, depth: int) -> str:
    if array.shape[0] == 0:
        return "[]"
    indices = _kept(array.shape[0], summarize)
    if array.ndim == 1:
        return "[" + " ".join("..." if i is None else format_scalar(array[i], array.dtype)
                              for i in indices) + "]"
    separator = "\n" * (array.ndim - 1) + " " * (depth + 1)
    parts = ["..." if i is None else _format(array[i], summarize, depth + 1) for i in indices]
    return "[" + separator.join(parts) + "]"
