"""TensorProto <-> NumPy arrays, and AttrValue <-> duograd attribute values.

Reading is bounded: a tensor whose declared shape needs more elements than
its data holds (TF fills such a tensor with its last value, or zeros) is
refused above MAX_FILL_ELEMENTS, so a small malformed file can never make
duograd allocate gigabytes. Errors are InvalidArgumentError naming the node.
"""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_shape import TensorShape
from . import tf_types
from .protos import proto

MAX_FILL_ELEMENTS = 1 << 26  # elements a tensor may declare beyond the values it holds

_VALUE_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
                 "uint8": "int_val", "int16": "int_val", "int8": "int_val",
                 "int64": "int64_val", "bool": "bool_val", "complex64": "scomplex_val",
                 "complex128": "dcomplex_val", "float16": "half_val", "string": "string_val"}


def shape_from_proto(shape_proto: Any) -> TensorShape:
    if shape_proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else int(d.size) for d in shape_proto.dim])


def shape_to_proto(shape: Any) -> Any:
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    message = proto("tensor_shape_pb2").TensorShapeProto()
    if shape.rank is None:
        message.unknown_rank = True
        return message
    for dim in shape.dims:
        message.dim.add(size=-1 if dim is None else int(dim))
    return message


def dtype_from_enum(number: int, where: str) -> dtypes.DType:
    try:
        return tf_types.dtype_of(number)
    except KeyError:
        raise InvalidArgumentError(None, None, f"{where}: dtype {tf_types.describe(number)} "
                                   "is not supported by duograd") from None


def to_ndarray(tensor: Any, where: str = "tensor") -> np.ndarray:
    """The array a TensorProto holds."""
    dtype = dtype_from_enum(tensor.dtype, where)
    shape = shape_from_proto(tensor.tensor_shape)
    if not shape.is_fully_defined():
        raise InvalidArgumentError(None, None, f"{where}: a constant of unknown shape {shape}")
    dims = [int(d) for d in shape.as_list()]
    count = 1
    for dim in dims:
        count *= dim
    if dtype.name == "string":
        values: List[Any] = list(tensor.string_val)
        return _filled(values, count, dims, np.dtype(object), where)
    numpy_dtype = np.dtype(dtype.as_numpy_dtype)
    if tensor.tensor_content:
        content = tensor.tensor_content
        if len(content) != count * numpy_dtype.itemsize:
            raise InvalidArgumentError(
                None, None, f"{where}: tensor_content holds {len(content)} bytes, shape {dims} "
                f"of {dtype.name} needs {count * numpy_dtype.itemsize}")
        return np.frombuffer(content, dtype=numpy_dtype.newbyteorder("<")).astype(
            numpy_dtype).reshape(dims)
    field = _VALUE_FIELDS[dtype.name]
    raw = list(getattr(tensor, field))
    if dtype.name == "float16":
        raw = list(np.array(raw, dtype=np.uint16).view(np.float16))
    elif dtype.is_complex:
        raw = [complex(raw[i], raw[i + 1]) for i in range(0, len(raw) - 1, 2)]
    return _filled(raw, count, dims, numpy_dtype, where)


def _filled(values: List[Any], count: int, dims: List[int], numpy_dtype: np.dtype,
            where: str) -> np.ndarray:
    if len(values) > count:
        raise InvalidArgumentError(None, None, f"{where}: {len(values)} values for shape "
                                   f"{dims} ({count} elements)")
    if count - len(values) > MAX_FILL_ELEMENTS:
        raise InvalidArgumentError(None, None, f"{where}: declares shape {dims} ({count} "
                                   f"elements) but holds {len(values)} values; refusing to "
                                   f"fill more than {MAX_FILL_ELEMENTS} elements")
    out = np.empty(count, dtype=numpy_dtype)
    if values:
        out[:len(values)] = values
        out[len(values):] = values[-1]
    else:
        out[:] = b"" if numpy_dtype == object else 0
    return out.reshape(dims)


def from_ndarray(value: Any, dtype: Optional[dtypes.DType] = None) -> Any:
    """A TensorProto of `value` (numbers as tensor_content, strings as string_val)."""
    array = np.asarray(value)
    if dtype is None:
        dtype = dtypes.string if array.dtype.kind in "OSU" else dtypes.as_dtype(array.dtype)
    message = proto("tensor_pb2").TensorProto(dtype=tf_types.enum_of(dtype),
                                              tensor_shape=shape_to_proto(array.shape))
    if dtype.name == "string":
        message.string_val.extend(x if isinstance(x, bytes) else str(x).encode()
                                  for x in array.ravel())
    else:
        little = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        message.tensor_content = np.ascontiguousarray(array, dtype=little).tobytes()
    return message
