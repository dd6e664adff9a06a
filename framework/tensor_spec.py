"""TensorSpec: a dtype and static shape without a value."""
from __future__ import annotations

from typing import Any, Optional

from . import dtypes as dtypes_lib
from .tensor_shape import TensorShape, as_shape


_new_spec = object.__new__


class TensorSpec:
    """Describes a tensor (shape, dtype, name); used for signatures and by tapes
    to remember the shape of an input whose value the gradient does not read."""

    __slots__ = ("_shape", "dtype", "name")

    def __init__(self, shape: Any, dtype: Any = dtypes_lib.float32,
                 name: Optional[str] = None) -> None:
        self._shape = as_shape(shape)
        self.dtype = dtypes_lib.as_dtype(dtype)
        self.name = name

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def ndim(self) -> Optional[int]:
        return self._shape.rank

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other: Any) -> bool:
        return self.dtype == other.dtype and self._shape.is_compatible_with(other.shape)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TensorSpec) and self.dtype == other.dtype
                and self._shape == other._shape and self.name == other.name)

    def __hash__(self) -> int:
        return hash((self._shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self.dtype!r}, name={self.name!r})"


def spec_of(shape: TensorShape, dtype: dtypes_lib.DType) -> TensorSpec:
    """A TensorSpec from an existing TensorShape and DType (no conversion: hot path)."""
    spec = _new_spec(TensorSpec)
    spec._shape = shape
    spec.dtype = dtype
    spec.name = None
    return spec
