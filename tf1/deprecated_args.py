"""TF1's deprecated argument spellings (`reduction_indices`, `keep_dims`, `dimension`)."""
from __future__ import annotations

from typing import Any


def lookup(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    """The value given under either name; ValueError (as TF) when both are given."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return old_value
    return new_value
