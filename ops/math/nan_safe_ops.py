"""Binary ops with TF's zero-safe or bit-level semantics: xlog1py, multiply_no_nan, nextafter.

Primitives (as in TF) because the exact zeros they promise cannot be composed
from other ops without NaN leaking into values or gradients. Gradients are in
grad_registry/nan_safe_grad.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ..constant_op import convert_to_tensor
from ..op_helpers import apply_binary
from ..shape_rules import broadcast_binary


def _xlog1py(x, y):
    with np.errstate(all="ignore"):
        out = x * np.log1p(y)
    return np.where(x == 0, np.zeros((), out.dtype), out)


def _mul_no_nan(x, y):
    with np.errstate(all="ignore"):
        out = x * y
    return np.where(y == 0, np.zeros((), out.dtype), out)


XLOG1PY = declare_op("Xlog1py", _xlog1py, broadcast_binary, input_kinds="fc")
MUL_NO_NAN = declare_op("MulNoNan", _mul_no_nan, broadcast_binary, input_kinds="fc")
NEXT_AFTER = declare_op("NextAfter", np.nextafter, broadcast_binary, input_kinds="f",
                        grad_inputs=())


def xlog1py(x: Any, y: Any, name: Optional[str] = None):
    """x * log1p(y), and 0 wherever x == 0 (even for y == -1)."""
    return apply_binary(XLOG1PY, x, y, name)


def multiply_no_nan(x: Any, y: Any, name: Optional[str] = None):
    """x * y, and 0 wherever y == 0 (even for x NaN or inf)."""
    x = convert_to_tensor(x)
    y = y if isinstance(y, Tensor) else convert_to_tensor(y, dtype=x.dtype)
    if x.dtype != y.dtype:  # TF's own check, before the op
        raise ValueError(f"multiply_no_nan: x and y must have the same dtype, got "
                         f"{x.dtype.name} and {y.dtype.name}")
    return apply_binary(MUL_NO_NAN, x, y, name)


def nextafter(x1: Any, x2: Any, name: Optional[str] = None):
    """The next representable value after x1 in the direction of x2."""
    return apply_binary(NEXT_AFTER, x1, x2, name)


__all__ = ["xlog1py", "multiply_no_nan", "nextafter"]
