"""PyFunc ops (ops/functions/numpy_function.py) have no gradient, as in TensorFlow:
wrap the call in custom_gradient to give it one."""
from __future__ import annotations

from ..ops.functions.numpy_function import PY_FUNC, PY_FUNC_STATELESS
from .registry import NotDifferentiable

NotDifferentiable(PY_FUNC.type)
NotDifferentiable(PY_FUNC_STATELESS.type)
