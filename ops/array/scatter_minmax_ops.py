"""TensorScatterMax / TensorScatterMin (`dg.tensor_scatter_nd_max`, `dg.tensor_scatter_nd_min`):
`tensor` with each indexed slice replaced by its elementwise max / min with `updates`
(repeated indices fold in turn), as TF. Gradient: grad_registry/scatter_minmax_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op


def _checked_index(indices: np.ndarray, shape, op_type: str) -> tuple:
    """indices [..., K] as a NumPy advanced index into `shape` (InvalidArgument when out of
    range, as TF's CPU kernel)."""
    if indices.ndim == 0:
        raise ValueError(f"{op_type}: indices must be at least 1-D, got a scalar")
    k = indices.shape[-1]
    if k > len(shape) or k == 0:
        raise ValueError(f"{op_type}: the index depth {k} must be in [1, rank {len(shape)}]")
    for j in range(k):
        bad = (indices[..., j] < 0) | (indices[..., j] >= shape[j])
        if np.any(bad):
            position = np.argwhere(bad)[0].tolist()
            raise ValueError(f"{op_type}: indices{position} = "
                             f"{indices[tuple(position)].tolist()} does not index into shape "
                             f"{list(shape)}")
    return tuple(np.moveaxis(indices, -1, 0))


def _kernel(op_type: str, fold):
    def kernel(tensor, indices, updates):
        index = _checked_index(np.asarray(indices).astype(np.int64), tensor.shape, op_type)
        expected = indices.shape[:-1] + tensor.shape[indices.shape[-1]:]
        if updates.shape != expected:
            raise ValueError(f"{op_type}: updates must have shape {list(expected)}, got "
                             f"{list(updates.shape)}")
        out = tensor.copy()
        fold.at(out, index, updates)
        return out
    return kernel


def _infer(inputs, attrs):
    tensor, indices, updates = inputs
    if not indices.dtype.is_integer:
        raise TypeError(f"indices must be int32 or int64, got {indices.dtype.name}")
    if updates.dtype != tensor.dtype:
        raise TypeError(f"updates has dtype {updates.dtype.name}, expected "
                        f"{tensor.dtype.name} like the tensor")
    k = indices.shape.dims[-1] if indices.shape.rank else None
    if (k is not None and tensor.shape.rank is not None and updates.shape.rank is not None
            and indices.shape.rank is not None):
        expected = TensorShape(indices.shape.dims[:-1] + tensor.shape.dims[k:])
        if not expected.is_compatible_with(updates.shape):
            raise ValueError(f"updates must have shape {expected}, got {updates.shape}")
    return [(tensor.dtype, tensor.shape)]


TENSOR_SCATTER_MAX = declare_op("TensorScatterMax", _kernel("TensorScatterMax", np.maximum),
                                _infer, input_kinds="fiu", same_dtype=slice(0, 3, 2),
                                grad_outputs=(0,))
TENSOR_SCATTER_MIN = declare_op("TensorScatterMin", _kernel("TensorScatterMin", np.minimum),
                                _infer, input_kinds="fiu", same_dtype=slice(0, 3, 2),
                                grad_outputs=(0,))


def _apply(op_def, tensor: Any, indices: Any, updates: Any, name: Optional[str]):
    tensor = convert_to_tensor(tensor)
    updates = convert_to_tensor(updates, dtype_hint=tensor.dtype)
    return apply_op(op_def, (tensor, convert_to_tensor(indices), updates), name=name)


def tensor_scatter_nd_max(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None):
    """`tensor` with max(slice, update) at each index in `indices`."""
    return _apply(TENSOR_SCATTER_MAX, tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor: Any, indices: Any, updates: Any, name: Optional[str] = None):
    """`tensor` with min(slice, update) at each index in `indices`."""
    return _apply(TENSOR_SCATTER_MIN, tensor, indices, updates, name)


__all__ = ["tensor_scatter_nd_max", "tensor_scatter_nd_min"]
