"""UnconnectedGradients: what a source with no path to the target gets."""
from __future__ import annotations

import enum
from typing import Any


class UnconnectedGradients(enum.Enum):
    """NONE: the gradient is None. ZERO: zeros of the source's shape and dtype."""

    NONE = "none"
    ZERO = "zero"


def as_unconnected_gradients(value: Any) -> UnconnectedGradients:
    """Accepts the enum or its string value; ValueError otherwise."""
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None
