"""String ops are never differentiable (ops/strings/string_ops.py)."""
from __future__ import annotations

from ..ops.strings.string_ops import STRING_OPS
from .registry import NotDifferentiable

for _op in STRING_OPS:
    NotDifferentiable(_op.type)
