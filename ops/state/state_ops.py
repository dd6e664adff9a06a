"""TF1's state ops as functions (tf.compat.v1.assign, assign_add, assign_sub)."""
from __future__ import annotations

from typing import Any, Optional


def assign(ref: Any, value: Any, validate_shape: Any = None, use_locking: Any = None,
           name: Optional[str] = None) -> Any:
    """`ref.assign(value)`: the updated value (eager) or the assign op's result (graph)."""
    return ref.assign(value, name=name)


def assign_add(ref: Any, value: Any, use_locking: Any = None, name: Optional[str] = None) -> Any:
    return ref.assign_add(value, name=name)


def assign_sub(ref: Any, value: Any, use_locking: Any = None, name: Optional[str] = None) -> Any:
    return ref.assign_sub(value, name=name)


__all__ = ["assign", "assign_add", "assign_sub"]
