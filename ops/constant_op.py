"""Constants and conversion of Python/NumPy values to tensors (TF's rules)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..eager import context
from ..eager.eager_tensor import EagerTensor
from ..framework import dtypes
from ..framework.errors import OperatorNotAllowedInGraphError
from ..framework.graph import SymbolicTensor
from ..framework.op_def import declare_op
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from .dispatch import apply_op
from ..framework.string_values import string_array

_state = context.state


def _const_kernel(*, value: np.ndarray, dtype: Any = None) -> np.ndarray:
    return value


def _const_infer(inputs, attrs):
    value = attrs["value"]
    return [(dtypes.from_numpy(value.dtype), TensorShape(value.shape))]


CONST = declare_op("Const", _const_kernel, _const_infer, grad_inputs=())


def _python_dtype(value: Any) -> Optional[np.dtype]:
    """TF's default dtype for Python values: float32, int32 (int64 if large), bool."""
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        if not -2**63 <= value < 2**63:
            return None   # converted by _wide_python_ints (uint64 in a graph)
        return np.dtype(np.int32) if -2**31 <= value < 2**31 else np.dtype(np.int64)
    if isinstance(value, float):
        return np.dtype(np.float32)
    if isinstance(value, complex):
        return np.dtype(np.complex128)
    return None


_OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."


def _python_ints(value: Any) -> list:
    """The Python ints (not bools) anywhere in a nest of lists and tuples."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            found.append(item)
    return found


def _wide_python_ints(value: Any, array: np.ndarray, dtype: Any) -> np.ndarray:
    """`value` holding Python ints beyond int64, as TF converts it: into a requested
    float or uint64 dtype when they fit; else eagerly a ValueError, and while
    building a graph a uint64 tensor for values in [2**63, 2**64), a TypeError
    beyond (TF's make_tensor_proto). Anything else: `array` unchanged."""
    ints = _python_ints(value)
    if not any(not -2**63 <= v < 2**63 for v in ints):
        return array
    target = None if dtype is None else np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype)
    if target is not None and target.kind == "f":
        try:
            return np.asarray(value, dtype=np.float64)
        except OverflowError:
            raise ValueError(_OUT_OF_RANGE) from None
    fits_uint64 = all(0 <= v < 2**64 for v in ints)
    if target == np.uint64 and fits_uint64:
        return np.asarray(value, dtype=np.uint64)
    if _state.graph is None:
        raise ValueError(_OUT_OF_RANGE)
    if fits_uint64 and target is None:
        return np.asarray(value, dtype=np.uint64)
    raise TypeError(f"Failed to convert elements of {value} to Tensor"
                    f"{'' if target is None else ' of dtype ' + target.name}. Consider casting "
                    "elements to a supported type.")


def _to_string_tensor(value: Any, array: Optional[np.ndarray], dtype: Any) -> np.ndarray:
    """The array of a string value, or TF's TypeError when `dtype` is not string (or a
    non-string value is asked to be one)."""
    target = None if dtype is None else dtypes.as_dtype(dtype)
    if array is not None:
        if target is not None and target is not dtypes.string:
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {target.name}")
        return array
    raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")


def to_numpy(value: Any, dtype: Any = None) -> np.ndarray:
    """A NumPy array for `value` under TF's conversion rules; TypeError if lossy."""
    if isinstance(value, EagerTensor):
        array = value.array
    elif dtype is not None and dtypes.as_dtype(dtype) is dtypes.string:
        return _to_string_tensor(value, string_array(value), dtype)
    elif isinstance(value, (np.ndarray, np.generic)):
        strings = string_array(value) if value.dtype.kind in "SUO" else None
        if strings is not None:
            return _to_string_tensor(value, strings, dtype)
        array = np.asarray(value)
    elif isinstance(value, (str, bytes, list, tuple)) and \
            (strings := string_array(value)) is not None:
        return _to_string_tensor(value, strings, dtype)
    else:
        array = np.asarray(value)
        if array.dtype == object or array.dtype == np.uint64 or (
                array.dtype == np.float64 and dtype is None and isinstance(value, (list, tuple))):
            # ints beyond int64 (NumPy makes them objects, uint64, or with smaller
            # ints float64)
            array = _wide_python_ints(value, array, dtype)
        if array.dtype == object:
            # TF: ValueError eagerly (and for None); building a graph, a TypeError.
            error = ValueError if _state.graph is None or value is None else TypeError
            raise error(f"Attempt to convert a value ({value!r}) with an unsupported type "
                        f"({type(value).__name__}) to a Tensor.")
        if dtype is None:
            py = _python_dtype(value)
            if py is not None:
                array = array.astype(py)
            elif array.dtype.kind == "f":
                array = array.astype(np.float32)
            elif array.dtype.kind in "iu" and array.dtype.itemsize == 8:
                big = array.size and (array.max() >= 2**31 or array.min() < -2**31)
                array = array if big else array.astype(np.int32)
    if dtype is not None:
        target = dtypes.as_dtype(dtype)
        np_type = np.dtype(target.as_numpy_dtype)
        if array.dtype.kind in "US" and np_type.kind not in "USO":
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {target.name}")
        from_python = not isinstance(value, (Tensor, np.ndarray, np.generic))
        if array.dtype != np_type:
            # an empty Python list has no element to lose: NumPy calls it float64,
            # TF gives it the requested dtype (shape [0], [2, 0], ...)
            if not (from_python and array.size == 0) and not _can_cast(
                    array, np_type, isinstance(value, (Tensor, np.ndarray))):
                raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {target.name}")
            array = array.astype(np_type)
    return array


def _can_cast(array: np.ndarray, np_type: np.dtype, is_array: bool) -> bool:
    if array.dtype.kind == "c" and np_type.kind != "c":
        return False
    if array.dtype.kind in "fc" and np_type.kind in "iub":
        return False
    if array.dtype.kind == "b" and np_type.kind != "b":
        return False
    if np_type.kind == "b" and array.dtype.kind != "b":
        return False
    return True


def constant(value: Any, dtype: Any = None, shape: Any = None, name: Optional[str] = "Const") -> Tensor:
    """A tensor holding `value` (a Python scalar or nested list, or a NumPy array)."""
    if isinstance(dtype, Tensor) and _state.graph is not None:  # TF tests it for truth
        raise OperatorNotAllowedInGraphError(f"Using a tensor ({dtype!r}) as a dtype is not "
                                             "allowed in graph mode.")
    array = np.array(to_numpy(value, dtype), copy=True)
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        if array.size == 1 and int(np.prod(shape)) != 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {array.shape}.")
    graph = _state.graph
    if graph is None:
        return EagerTensor(array)
    return apply_op(CONST, (), {"value": array}, name)


def convert_to_tensor(value: Any, dtype: Any = None, name: Optional[str] = None,
                      preferred_dtype: Any = None, dtype_hint: Any = None) -> Tensor:
    """`value` as a tensor of the current mode; a tensor of another dtype is a TypeError."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {value.dtype.name}: {value!r}")
        if type(value) is SymbolicTensor and _state.graph is None:
            raise TypeError(f"{value!r} is out of scope and cannot be used here: a graph "
                            "tensor has no value in eager mode. Use return values (of a "
                            "dg.function) or Session.run to access it.")
        return value
    convert = getattr(value, "__dg_tensor__", None)
    if convert is not None:
        return convert(dtype=dtype, name=name)
    if dtype is None:
        dtype = preferred_dtype if preferred_dtype is not None else dtype_hint
        if dtype is not None:
            try:
                return constant(value, dtype, name=name or "Const")
            except TypeError:
                dtype = None
    return constant(value, dtype, name=name or "Const")


def is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "__dg_tensor__")
