"""EagerTensor: an immutable NumPy value with a tape identity."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..framework.dtypes import DType, from_numpy, resource
from ..framework.tensor import (UNHASHABLE_TENSOR, Reference, Tensor, call_operator,
                                new_tensor_id)
from ..framework.tensor_shape import TensorShape, shape_from_dims
from ..framework.value_text import format_value, value_repr, value_str


class EagerTensor(Tensor):
    """A concrete tensor: `array` is the NumPy value it wraps, never mutated."""

    __slots__ = ("array", "tensor_id", "_shape", "__weakref__")
    _shape: TensorShape  # set on first use of `shape`

    def __init__(self, array: Any) -> None:
        # The eager fast paths (ops/op_helpers.py) build tensors inline, without this
        # frame: allocate, then set exactly these two; `_shape` is set on first use.
        self.array = array
        self.tensor_id = new_tensor_id()

    @property
    def dtype(self) -> DType:
        try:
            return from_numpy(self.array.dtype)
        except TypeError:
            if isinstance(self.array.dtype, DType):   # a variable: a function's resource output
                return resource
            raise

    @property
    def shape(self) -> TensorShape:
        try:
            return self._shape
        except AttributeError:  # not computed yet
            shape = self._shape = shape_from_dims(self.array.shape)
            return shape

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def name(self) -> str:
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def device(self) -> str:
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    def numpy(self) -> Any:
        """The value as a NumPy array (or NumPy scalar for rank 0), as in TF."""
        value = self.array
        if isinstance(value, np.ndarray) and value.ndim:
            return value.copy()
        return value[()] if isinstance(value, np.ndarray) else value

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self.array)
        return value if dtype is None else value.astype(dtype, copy=False)

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"Only integer scalar tensors can be used as an index, "
                            f"not {self.dtype.name}")
        return int(self._scalar("index"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def _scalar(self, what: str) -> Any:
        value = self.array
        if np.ndim(value) != 0:
            if what == "bool":
                raise ValueError("The truth value of a tensor with more than one element is "
                                 "ambiguous. Use dg.reduce_any or dg.reduce_all.")
            raise TypeError(f"Only scalar tensors can be converted to Python {what}s, "
                            f"got shape {self.shape}")
        return value

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        getitem = self.__getitem__
        return (getitem(i) for i in range(self.array.shape[0]))

    def __len__(self) -> int:
        if self.array.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self.array.shape[0]

    def __eq__(self, other):  # TF2: by value, elementwise (False for None)
        return call_operator("tensor_equals", self, other)

    def __ne__(self, other):
        return call_operator("tensor_not_equals", self, other)

    def __hash__(self) -> int:  # TF2: unhashable; use tensor.ref() as a key
        raise TypeError(UNHASHABLE_TENSOR)

    def ref(self) -> Reference:
        return Reference(self)

    def __str__(self) -> str:
        return f"tf.Tensor({value_str(self.array)}, shape={self.shape}, dtype={self.dtype.name})"

    def __repr__(self) -> str:
        return (f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={value_repr(self.array)}>")

    def __format__(self, format_spec: str) -> str:
        return format_value(self.array, format_spec)

    def __reduce__(self):
        return EagerTensor, (self.array,)

    def __copy__(self) -> "EagerTensor":
        return self

    def __deepcopy__(self, memo) -> "EagerTensor":
        return self


TensorRef = Reference  # the one reference type of tensors and variables
