"""String tensor values: object arrays of bytes (str encoded as UTF-8), as TF's
EagerTensor.numpy() gives them. Used by conversion (ops/constant_op) and feeds."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np


def _as_bytes(item: Any) -> bytes:
    return item.encode("utf-8") if isinstance(item, str) else bytes(item)


_TO_BYTES = np.frompyfunc(_as_bytes, 1, 1)


def string_array(value: Any) -> Optional[np.ndarray]:
    """`value` as a string tensor's array (an object array of bytes, str encoded as
    UTF-8) when it is a str/bytes, a NumPy string array, or a nest of lists of them;
    None for anything else. A nest mixing strings with other values is TF's TypeError."""
    if isinstance(value, (str, bytes)):
        scalar = np.empty((), dtype=object)   # not through NumPy's bytes dtype, which
        scalar[()] = _as_bytes(value)         # drops trailing NUL bytes
        return scalar
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "SU" or (value.dtype.kind == "O" and value.size and all(
                isinstance(v, (str, bytes)) for v in np.ravel(value))):
            return np.asarray(_TO_BYTES(value), dtype=object)
        return None
    if not isinstance(value, (list, tuple)):
        return None
    leaves: list = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            leaves.append(item)
    if not leaves or not any(isinstance(v, (str, bytes)) for v in leaves):
        return None
    if not all(isinstance(v, (str, bytes)) for v in leaves):
        bad = next(v for v in leaves if not isinstance(v, (str, bytes)))
        raise TypeError(f"Failed to convert elements of {value!r} to Tensor: {bad!r} is no "
                        "string, as the other elements are")
    holder = np.empty(np.shape(np.asarray(value, dtype=object)), dtype=object)
    holder[...] = np.asarray(value, dtype=object)
    return np.asarray(_TO_BYTES(holder), dtype=object)
