"""DType: TensorFlow's dtype objects, each a thin wrapper of a NumPy dtype."""
from __future__ import annotations

from typing import Any

import numpy as np

from .extras import optional_module


class DType:
    """A tensor element type, named and classified as in TensorFlow."""

    __slots__ = ("name", "as_numpy_dtype", "_np", "kind")

    def __init__(self, name: str, numpy_type: Any, kind: str = "") -> None:
        self.name = name
        self.as_numpy_dtype = numpy_type
        self._np = np.dtype(numpy_type) if numpy_type is not None else None
        # NumPy's kind letter ("f" for bfloat16, whose NumPy kind is "V")
        self.kind = kind or (self._np.kind if self._np is not None else "")

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("i", "u")

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self.kind in ("f", "c", "i", "u")

    @property
    def real_dtype(self) -> "DType":
        """float32 for complex64, float64 for complex128, else itself."""
        if self._np is not None and self.kind == "c":
            return _BY_NUMPY[np.dtype(self._np.type(0).real.dtype)]
        return self

    @property
    def size(self) -> int:
        return self._np.itemsize if self._np is not None else 0

    @property
    def min(self) -> Any:
        """The lowest finite value (TF's DType.min); TypeError for non-numeric types."""
        return self._limits()[0]

    @property
    def max(self) -> Any:
        """The highest finite value (TF's DType.max)."""
        return self._limits()[1]

    def _limits(self) -> tuple:
        np_dtype = self._np
        if np_dtype is not None and self.kind in ("i", "u"):
            info: Any = np.iinfo(np_dtype)
        elif np_dtype is not None and self.kind == "f":
            info = np.finfo(np_dtype) if np_dtype.kind == "f" else _ml_finfo(np_dtype)
        else:
            raise TypeError(f"Cannot find minimum/maximum value of {self.name}: not a "
                            "real numeric type")
        return np_dtype.type(info.min), np_dtype.type(info.max)

    @property
    def is_differentiable(self) -> bool:
        """Whether tensors of this dtype carry gradients (floats and complexes)."""
        return self.kind in ("f", "c")

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        if isinstance(other, DType):
            return self is other
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    # DTypes are singletons: identity hashing keeps dict lookups keyed by them in C.
    __hash__ = object.__hash__

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool_ = DType("bool", np.bool_)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
string = DType("string", np.object_)
resource = DType("resource", None)
variant = DType("variant", None)

half = float16
double = float64

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
        bool_, complex64, complex128)
_BY_NAME = {d.name: d for d in _ALL + (string, resource, variant)}
_BY_NAME.update(half=float16, double=float64)
_BY_NUMPY = {np.dtype(d.as_numpy_dtype): d for d in _ALL}


# TensorFlow's readings of names, Python types and DataType enum numbers that
# NumPy would read differently ("float" is float32; the Python type int, "int"
# and "complex" are rejected).
_BY_NAME["float"] = float32
_BY_PYTHON_TYPE: "dict[type, DType]" = {float: float32, bool: bool_, object: string}
_REJECTED_TYPES = (int, complex, str, bytes)
_BY_ENUM = {1: float32, 2: float64, 3: int32, 4: uint8, 5: int16, 6: int8, 7: string,
            8: complex64, 9: int64, 10: bool_, 17: uint16, 18: complex128, 19: float16,
            20: resource, 21: variant, 22: uint32, 23: uint64}
BFLOAT16_ENUM = 14

# bfloat16 comes from the optional `ml_dtypes` package (the one TensorFlow and JAX
# use), imported the first time bfloat16 is asked for, never at `import duograd`.
_BFLOAT16: "list[DType]" = []


def bfloat16_dtype() -> DType:
    """dg.bfloat16, registered on first use; ImportError naming the extra without
    ml_dtypes."""
    if not _BFLOAT16:
        ml_dtypes = optional_module("ml_dtypes", "bfloat16", "dg.bfloat16")
        dtype = DType("bfloat16", ml_dtypes.bfloat16, kind="f")
        _BY_NAME["bfloat16"] = dtype
        _BY_NUMPY[np.dtype(ml_dtypes.bfloat16)] = dtype
        _BY_ENUM[BFLOAT16_ENUM] = dtype
        _BFLOAT16.append(dtype)
    return _BFLOAT16[0]


def as_dtype(type_value: Any) -> DType:
    """Converts a DType, a NumPy dtype or scalar type, a TF dtype name, one of the
    Python types float/bool/object, or a DataType number to a DType (TF's rules)."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        found = _BY_NAME.get(type_value)
        if found is not None:
            return found
        if type_value == "bfloat16":
            return bfloat16_dtype()
    elif isinstance(type_value, type):
        found = _BY_PYTHON_TYPE.get(type_value)
        if found is not None:
            return found
        if type_value not in _REJECTED_TYPES:
            try:
                return _BY_NUMPY[np.dtype(type_value)]
            except (TypeError, KeyError):
                pass
    elif isinstance(type_value, int) and not isinstance(type_value, bool):
        found = _BY_ENUM.get(type_value)
        if found is not None:
            return found
        if type_value == BFLOAT16_ENUM:
            return bfloat16_dtype()
    elif isinstance(type_value, np.dtype):
        found = _BY_NUMPY.get(type_value)
        if found is not None:
            return found
        if type_value.name == "bfloat16":   # an ml_dtypes array: ml_dtypes is loaded
            return bfloat16_dtype()
    elif type_value is not None and hasattr(type_value, "as_numpy_dtype"):
        return as_dtype(getattr(type_value, "name", None))  # another library's DType
    elif hasattr(type_value, "dtype") and hasattr(type_value, "shape"):
        raise TypeError(f"Cannot convert the tensor {type_value!r} to a dg.DType.")
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                    "dg.DType.")


def _ml_finfo(np_dtype: np.dtype) -> Any:
    import ml_dtypes   # only reached for bfloat16, which needed it already
    return ml_dtypes.finfo(np_dtype)


def numpy_kind(np_dtype: np.dtype) -> str:
    """The kind letter of a NumPy dtype as dg classifies it ("f" for bfloat16, whose
    NumPy kind is "V")."""
    kind = np_dtype.kind
    if kind == "V" and np_dtype.name == "bfloat16":
        return "f"
    return kind


def from_numpy(np_dtype: np.dtype) -> DType:
    """The DType of a NumPy dtype object (fast path for kernels' results)."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        if getattr(np_dtype, "name", None) == "bfloat16":
            return bfloat16_dtype()
        if getattr(np_dtype, "kind", None) in ("O", "S", "U"):
            return string   # string tensors hold bytes (object arrays, or NumPy bytes)
        raise TypeError(f"NumPy dtype {np_dtype} has no dg.DType.") from None
