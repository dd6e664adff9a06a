"""Joining and splitting: concat, stack, unstack, split. Gradients: join_grad.py."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..framework.op_def import declare_op
from ..framework.tensor_shape import TensorShape
from .constant_op import convert_to_tensor
from .dispatch import apply_op
from .shape_rules import check_same_dtype


def _concat_kernel(*xs, axis):
    return np.concatenate(xs, axis=axis)


def _concat_infer(inputs, attrs):
    dtype = check_same_dtype(inputs)
    axis = attrs["axis"]
    ranks = {t.shape.rank for t in inputs} - {None}
    if not ranks:
        return [(dtype, TensorShape(None))]
    if len(ranks) > 1:
        raise ValueError(f"ConcatOp: inputs must have the same rank, got {sorted(ranks)}")
    rank = ranks.pop()
    if not -rank <= axis < rank:
        raise ValueError(f"ConcatOp: axis {axis} out of range for rank {rank}")
    axis %= rank
    dims = [None] * rank
    total = 0
    for t in inputs:
        if t.shape.rank is None:
            total = None
            continue
        for i, d in enumerate(t.shape.dims):
            if i == axis:
                total = None if total is None or d is None else total + d
            elif d is not None:
                if dims[i] is not None and dims[i] != d:
                    raise ValueError(f"ConcatOp: dimension {i} of the inputs differ: "
                                     f"{[t.shape for t in inputs]}")
                dims[i] = d
    dims[axis] = total
    return [(dtype, TensorShape(tuple(dims)))]


CONCAT = declare_op("ConcatV2", _concat_kernel, _concat_infer, grad_inputs=())


def concat(values: Sequence[Any], axis: int, name: Optional[str] = "concat"):
    """Joins tensors along an existing axis."""
    tensors = [convert_to_tensor(v) for v in values]
    if len(tensors) == 1:
        return tensors[0]
    rank = tensors[0].shape.rank
    axis = int(axis)
    if rank is not None and axis < 0:
        axis += rank
    return apply_op(CONCAT, tensors, {"axis": axis}, name)


def _pack_kernel(*xs, axis):
    return np.stack(xs, axis=axis)


def _pack_infer(inputs, attrs):
    dtype = check_same_dtype(inputs)
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not shape.is_compatible_with(t.shape):
            raise ValueError(f"Shapes of all inputs must match: {shape} != {t.shape}")
        shape = shape.merge_with(t.shape)
    if shape.rank is None:
        return [(dtype, TensorShape(None))]
    axis = attrs["axis"]
    dims = list(shape.dims)
    if not -(len(dims) + 1) <= axis <= len(dims):
        raise ValueError(f"axis {axis} out of range for stacking rank-{len(dims)} tensors")
    dims.insert(axis % (len(dims) + 1), len(inputs))
    return [(dtype, TensorShape(tuple(dims)))]


PACK = declare_op("Pack", _pack_kernel, _pack_infer, grad_inputs=())


def stack(values: Sequence[Any], axis: int = 0, name: Optional[str] = "stack"):
    """Joins same-shape tensors along a new axis."""
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise ValueError("stack needs at least one tensor")
    dtype_hint = tensors[0].dtype
    tensors = [t if t.dtype == dtype_hint else convert_to_tensor(v, dtype_hint=dtype_hint)
               for t, v in zip(tensors, values)]
    rank = tensors[0].shape.rank
    axis = int(axis)
    if rank is not None and axis < 0:
        axis += rank + 1
    return apply_op(PACK, tensors, {"axis": axis}, name)


__all__ = ["concat", "stack"]
