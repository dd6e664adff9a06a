"""TensorFlow's DataType enum numbers (types.proto) for the dtypes duograd has."""
from __future__ import annotations

from ..framework import dtypes

ENUM_BY_NAME = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
                "string": 7, "complex64": 8, "int64": 9, "bool": 10, "complex128": 18,
                "float16": 19, "resource": 20, "variant": 21}
NAME_BY_ENUM = {number: name for name, number in ENUM_BY_NAME.items()}
# Enum numbers of TF dtypes duograd does not have, for error messages.
OTHER_NAMES = {11: "qint8", 12: "quint8", 13: "qint32", 14: "bfloat16", 15: "qint16",
               16: "quint16", 17: "uint16", 22: "uint32", 23: "uint64"}


def enum_of(dtype: dtypes.DType) -> int:
    return ENUM_BY_NAME[dtype.name]


def dtype_of(number: int) -> dtypes.DType:
    """The duograd dtype of a DataType number; KeyError (caller explains) if it has none."""
    return dtypes.as_dtype(NAME_BY_ENUM[number])


def describe(number: int) -> str:
    return NAME_BY_ENUM.get(number) or OTHER_NAMES.get(number) or f"DataType {number}"
