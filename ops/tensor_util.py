"""Static values of graph tensors (TF's `constant_value`), for shape inference."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..eager.eager_tensor import EagerTensor
from ..framework.tensor_shape import TensorShape, unknown_shape


def constant_value(tensor: Any) -> Optional[np.ndarray]:
    """The value of `tensor` if it is known without running anything, else None."""
    if isinstance(tensor, EagerTensor):
        return np.asarray(tensor.array)
    op = getattr(tensor, "op", None)
    if op is None:
        return None
    if op.type == "Const":
        return op.attrs["value"]
    if op.type == "Shape":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
    if op.type == "Pack":
        parts = [constant_value(t) for t in op.inputs]
        if all(p is not None for p in parts):
            return np.stack(parts, axis=op.attrs.get("axis", 0))
    return None


def shape_from_tensor(tensor: Any) -> TensorShape:
    """The static shape a 1-D shape tensor describes (unknown entries as None)."""
    value = constant_value(tensor)
    if value is not None:
        return TensorShape(tuple(None if d < 0 else int(d) for d in value.reshape(-1)))
    length = tensor.shape[0] if tensor.shape.rank == 1 else None
    if tensor.op.type == "Pack":
        return TensorShape(tuple(_scalar_or_none(t) for t in tensor.op.inputs))
    return unknown_shape(length)


def _scalar_or_none(tensor: Any) -> Optional[int]:
    value = constant_value(tensor)
    return None if value is None else int(value)
