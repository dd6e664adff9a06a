"""Static values of graph tensors (TF's `constant_value`), for shape inference."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..eager.eager_tensor import EagerTensor
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape, unknown_shape


def constant_value(tensor: Any) -> Optional[np.ndarray]:
    """The value of `tensor` if it is known without running anything, else None.

    Sees through identities and through a function graph's captures of outer
    constants (a cond/while body reading a shape defined outside it)."""
    tensor = _through_captures(tensor)
    if isinstance(tensor, EagerTensor):
        return np.asarray(tensor.array)
    op = getattr(tensor, "op", None)
    if op is None:
        return None
    if op.type == "ConcatV2":  # e.g. concat([[5], shape], 0) of constant shapes
        parts = [p for p in (constant_value(t) for t in op.inputs) if p is not None and p.ndim]
        if len(parts) == len(op.inputs):
            return np.concatenate(parts, axis=op.attrs["axis"])
    if op.type == "Const":
        return op.attrs["value"]
    if op.type == "Shape":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
    if op.type == "Pack":
        parts = [p for p in (constant_value(t) for t in op.inputs) if p is not None]
        if len(parts) == len(op.inputs):
            return np.stack(parts, axis=op.attrs.get("axis", 0))
    if op.type == "Size" and op.inputs[0].shape.is_fully_defined():
        return np.array(op.inputs[0].shape.num_elements(), dtype=tensor.dtype.as_numpy_dtype)
    if op.type == "Rank" and op.inputs[0].shape.rank is not None:
        return np.array(op.inputs[0].shape.rank, dtype=tensor.dtype.as_numpy_dtype)
    if op.type == "AddN":   # e.g. the total size of several tensors
        parts = [p for p in (constant_value(t) for t in op.inputs) if p is not None]
        if len(parts) == len(op.inputs):
            return np.sum(parts, axis=0).astype(tensor.dtype.as_numpy_dtype)
    if op.type in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    return None


def _through_captures(tensor: Any) -> Any:
    """The value an Identity or a capture placeholder stands for (iteratively)."""
    while True:
        op = getattr(tensor, "op", None)
        if op is None:
            return tensor
        if op.type == "Identity":
            tensor = op.inputs[0]
        elif op.type == "Placeholder" and op.graph.building_function:
            source = op.graph.capture_source(tensor)
            if not isinstance(source, Tensor):
                return tensor  # an argument, or a variable's handle
            tensor = source
        else:
            return tensor


def shape_from_tensor(tensor: Any) -> TensorShape:
    """The static shape a 1-D shape tensor describes (unknown entries as None)."""
    value = constant_value(tensor)
    if value is not None:
        return TensorShape(tuple(None if d < 0 else int(d) for d in value.reshape(-1)))
    length = tensor.shape[0] if tensor.shape.rank == 1 else None
    tensor = _through_captures(tensor)
    op = tensor.op
    if op.type == "Pack":
        return TensorShape(tuple(_scalar_or_none(t) for t in op.inputs))
    if op.type == "Shape":  # the shape of a partially known tensor
        return op.inputs[0].shape
    if op.type == "ConcatV2":  # e.g. concat([shape(x)[:1], [-1], shape(x)[2:]], 0)
        parts = [shape_from_tensor(t) for t in op.inputs]
        if all(p.rank is not None for p in parts):
            return TensorShape(tuple(d for p in parts for d in p.as_list()))
    if op.type == "StridedSlice" and _is_plain_slice(op):  # shape(x)[a:b:c]
        source = shape_from_tensor(op.inputs[0])
        bounds = [b for b in (constant_value(t) for t in op.inputs[1:]) if b is not None]
        if source.dims is not None and len(bounds) == 3 and all(b.size == 1 for b in bounds):
            start, stop, step = (int(b.reshape(-1)[0]) for b in bounds)
            begin = None if op.attrs["begin_mask"] & 1 else start
            end = None if op.attrs["end_mask"] & 1 else stop
            return TensorShape(source.dims[begin:end:step])
    return unknown_shape(length)


def _is_plain_slice(op: Any) -> bool:
    """A one-spec strided slice with no ellipsis, new axis or shrunk axis."""
    return not (op.attrs["ellipsis_mask"] or op.attrs["new_axis_mask"]
                or op.attrs["shrink_axis_mask"])


def _scalar_or_none(tensor: Any) -> Optional[int]:
    value = constant_value(tensor)
    return None if value is None or int(value) < 0 else int(value)  # -1: inferred by reshape
