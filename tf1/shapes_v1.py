"""TF1's `Dimension`, `dimension_value` and `dimension_at_index`.

duograd's shapes hold ints and None (TF2's TensorShape, also after
`disable_v2_behavior`); these names let TF1 code that wraps or unwraps
dimensions run: `dimension_value(shape[1])` is the int (or None).
"""
from __future__ import annotations

from typing import Any, Optional

from ..framework.tensor_shape import as_shape


class Dimension:
    """One dimension: an int or unknown (None), with TF1's `value`."""

    def __init__(self, value: Any) -> None:
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            if isinstance(value, bool) or int(value) != value or int(value) < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
            value = int(value)
        self.value: Optional[int] = value

    def __int__(self) -> int:
        if self.value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self.value

    __index__ = __int__

    def __eq__(self, other: object) -> Any:
        other_value = other.value if isinstance(other, Dimension) else other
        if self.value is None or other_value is None:
            return None
        return self.value == other_value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Dimension({self.value!r})"

    def __str__(self) -> str:
        return "?" if self.value is None else str(self.value)


def dimension_value(dimension: Any) -> Optional[int]:
    """The int (or None) of a dimension, whether a Dimension or already an int."""
    return getattr(dimension, "value", dimension)


def dimension_at_index(shape: Any, index: int) -> Dimension:
    """shape[index] as a Dimension (unknown when the rank is)."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape.as_list()[index])


NAMES = {"Dimension": Dimension, "dimension_value": dimension_value,
         "dimension_at_index": dimension_at_index}
