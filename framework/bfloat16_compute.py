"""bfloat16 arithmetic computes in float32 and rounds each result to bfloat16.

TensorFlow's CPU kernels for bfloat16 widen to float32, compute (accumulating sums
and products in float32) and round the result once; NumPy on ml_dtypes' bfloat16
would round after every step (a float32 matmul or softmax then differs in the last
bfloat16 bit). Kernels of ops that check their input kinds run through
`in_float32` when their first input is bfloat16, in eager mode and in a Session.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np


def is_bfloat16(np_dtype: np.dtype) -> bool:
    return np_dtype.kind == "V" and np_dtype.name == "bfloat16"


def requests_dtype(attrs: dict) -> bool:
    """Whether an attr names an output dtype (Cast, Bitcast, ...): such a kernel runs
    on the bfloat16 values as they are, its float32 results are meant."""
    for value in attrs.values():
        if isinstance(value, np.dtype) or hasattr(value, "as_numpy_dtype"):
            return True
    return False


def in_float32(kernel: Callable[..., Any], bfloat16: np.dtype) -> Callable[..., Any]:
    """`kernel` on bfloat16 arrays widened to float32, its float32 results rounded back."""
    def run(*arrays: Any, **attrs: Any) -> Any:
        wide = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == bfloat16
                else a for a in arrays]
        return _narrow(kernel(*wide, **attrs), bfloat16)
    return run


def _narrow(result: Any, bfloat16: np.dtype) -> Any:
    if isinstance(result, (list, tuple)):
        return type(result)(_narrow(r, bfloat16) for r in result)
    if isinstance(result, (np.ndarray, np.generic)) and result.dtype == np.float32:
        return np.asarray(result).astype(bfloat16)
    return result
