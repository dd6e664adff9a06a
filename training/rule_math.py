"""The few functions optimizer update rules call besides arithmetic operators.

A rule is written once and runs on tensors and variables (dense gradients:
graph, function and eager ops) and on anything else as NumPy ufuncs: arrays
(the fused sparse kernel of `sparse_apply.py`, which updates rows in place)
and `rule_program.Traced` placeholders (which record the ufunc calls). All
give the same numbers: duograd's kernels are these ufuncs on the same dtypes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..framework.tensor import Tensor
from ..ops.math import math_ops
from ..ops.state.variables import Variable


def _numpy(*values: Any) -> bool:
    return not any(isinstance(v, (Tensor, Variable)) for v in values)


def sqrt(x: Any) -> Any:
    """Elementwise square root."""
    return np.sqrt(x) if _numpy(x) else math_ops.sqrt(x)


def maximum(x: Any, y: Any) -> Any:
    """Elementwise maximum (NaN wins, as TF's Maximum)."""
    return np.maximum(x, y) if _numpy(x, y) else math_ops.maximum(x, y)


def absolute(x: Any) -> Any:
    """Elementwise absolute value."""
    return np.abs(x) if _numpy(x) else math_ops.abs(x)


__all__ = ["sqrt", "maximum", "absolute"]
