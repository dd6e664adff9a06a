"""The text TF programs print for tensor and variable values (repr, str, format).

TensorFlow writes a value as NumPy does: `str` of the array for `str(t)`, and for
`repr(t)` the Python scalar's repr (`numpy=0.3333333432674408`) or the array's
repr (`numpy=array([1., 2.], dtype=float32)`); a text over several lines starts
on a new line. `format(t, spec)` formats the Python scalar of a 0-d value and
otherwise hands `spec` to NumPy (which accepts only the empty one).
"""
from __future__ import annotations

from typing import Any

import numpy as np


def _on_new_line_if_long(text: str) -> str:
    return "\n" + text if "\n" in text else text


def value_str(array: Any) -> str:
    """The value inside `str(tensor)`: `[1. 2.]`, `0.33333334`."""
    return _on_new_line_if_long(str(np.asarray(array)))


def value_repr(array: Any) -> str:
    """The value after `numpy=` in `repr(tensor)` and `repr(variable)`."""
    array = np.asarray(array)
    text = repr(array.item()) if array.ndim == 0 else repr(array)
    return _on_new_line_if_long(text)


def format_value(array: Any, format_spec: str) -> str:
    """`format(tensor, spec)`, `f"{loss:.3f}"`, as TF's EagerTensor.__format__."""
    array = np.asarray(array)
    if array.ndim == 0:
        return format(array.item(), format_spec)
    return format(array, format_spec)
