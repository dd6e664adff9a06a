"""dynamic_partition, dynamic_stitch, invert_permutation, math.angle and linalg.cross:
primitives as in TF. Gradients: grad_registry/partition_grad.py."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from ...eager import context
from ...framework.errors import InvalidArgumentError
from ...framework.tensor import Tensor
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from . import array_ops
from ..math import math_ops
from ..constant_op import convert_to_tensor
from ..arg_errors import mode_error
from ..dispatch import apply_op
from ..op_helpers import apply_binary, apply_unary
from ..shape_rules import broadcast_binary


def _partition_kernel(data, partitions, *, num_partitions):
    parts = np.asarray(partitions)
    if data.shape[:parts.ndim] != parts.shape:
        raise ValueError(f"data.shape {data.shape} must start with partitions.shape "
                         f"{parts.shape}")
    if parts.size and (parts.min() < 0 or parts.max() >= num_partitions):
        raise ValueError(f"partitions must be in [0, {num_partitions}), got "
                         f"{parts.min()}..{parts.max()}")
    return [data[parts == p] for p in range(num_partitions)]


def _partition_infer(inputs, attrs):
    data, partitions = inputs
    if not partitions.dtype.is_integer:
        raise TypeError(f"partitions must be int32, got {partitions.dtype.name}")
    tail = data.shape.dims[partitions.shape.rank:] \
        if data.shape.rank is not None and partitions.shape.rank is not None else None
    shape = TensorShape(None) if tail is None else TensorShape((None,) + tuple(tail))
    return [(data.dtype, shape)] * attrs["num_partitions"]


DYNAMIC_PARTITION = declare_op("DynamicPartition", _partition_kernel, _partition_infer,
                               num_outputs=-1, grad_inputs=(1,))


def dynamic_partition(data: Any, partitions: Any, num_partitions: int,
                      name: Optional[str] = None) -> List[Any]:
    """The elements of `data` (slices along the leading dims of `partitions`) split into
    num_partitions tensors by partition index, in order."""
    data = convert_to_tensor(data)
    partitions = convert_to_tensor(partitions, dtype_hint=dtypes.int32)
    return apply_op(DYNAMIC_PARTITION, (data, partitions),
                    {"num_partitions": int(num_partitions)}, name)


def _stitch_kernel(*arrays):
    half = len(arrays) // 2
    indices, data = arrays[:half], arrays[half:]
    rows = max((int(np.max(i)) + 1 for i in indices if np.size(i)), default=0)
    tail = data[0].shape[np.ndim(indices[0]):]
    out = np.zeros((rows,) + tail, dtype=data[0].dtype)
    for idx, values in zip(indices, data, strict=True):   # later entries win, as TF
        out[np.asarray(idx).reshape(-1)] = values.reshape((-1,) + tail)
    return out


def _stitch_infer(inputs, attrs):
    half = len(inputs) // 2
    indices, data = inputs[:half], inputs[half:]
    for t in indices:
        if not t.dtype.is_integer:
            raise TypeError(f"dynamic_stitch indices must be int32, got {t.dtype.name}")
    first, values = indices[0], data[0]
    if first.shape.rank is None or values.shape.rank is None:
        return [(values.dtype, TensorShape(None))]
    return [(values.dtype, TensorShape((None,) + tuple(values.shape.dims[first.shape.rank:])))]


DYNAMIC_STITCH = declare_op("DynamicStitch", _stitch_kernel, _stitch_infer,
                            grad_inputs=None)


def _stitch_lists(indices: Any, data: Any) -> tuple:
    """TF's argument lists: a list or tuple each (TypeError otherwise); eagerly two
    tensors also pass, as lists of their rows (TF's fast path unpacks them)."""
    both_tensors = isinstance(indices, Tensor) and isinstance(data, Tensor)
    if not (both_tensors and context.state.graph is None):
        for what, value in (("indices", indices), ("data", data)):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"Expected list for '{what}' argument to 'DynamicStitch' Op, "
                                f"not {type(value).__name__}.")
        return indices, data
    return list(indices), list(data)


def dynamic_stitch(indices: Sequence[Any], data: Sequence[Any], name: Optional[str] = None):
    """merged[indices[m][i, ...]] = data[m][i, ...]; later entries win for repeated indices."""
    indices, data = _stitch_lists(indices, data)
    if len(indices) != len(data) or not indices:
        raise ValueError("dynamic_stitch needs as many (non-zero) index tensors as data tensors")
    indices = [convert_to_tensor(i, dtype_hint=dtypes.int32) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    bad = [t.dtype.name for t in indices if not t.dtype.is_integer]
    if bad:
        raise mode_error(f"dynamic_stitch: indices must be int32, got {bad[0]}", TypeError)
    return apply_op(DYNAMIC_STITCH, tuple(indices) + tuple(data), name=name)


def _invert_permutation(x):
    if x.ndim != 1 or sorted(x.tolist()) != list(range(x.size)):
        raise ValueError(f"invert_permutation needs a permutation of 0..n-1, got {x.tolist()}")
    out = np.empty_like(x)
    out[x] = np.arange(x.size, dtype=x.dtype)
    return out


def _invert_permutation_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.rank} (invert_permutation)")
    return [(x.dtype, x.shape)]


INVERT_PERMUTATION = declare_op("InvertPermutation", _invert_permutation,
                                _invert_permutation_infer, input_kinds="i", grad_inputs=())


def invert_permutation(x: Any, name: Optional[str] = None):
    """y with y[x[i]] = i."""
    return apply_unary(INVERT_PERMUTATION, convert_to_tensor(x, dtype_hint=dtypes.int32), name)


ANGLE = declare_op("Angle", np.angle,
                   lambda inputs, attrs: [(inputs[0].dtype.real_dtype, inputs[0].shape)],
                   input_kinds="fc", grad_inputs=(0,))


def angle(input: Any, name: Optional[str] = None):  # noqa: A002 (TF's name)
    """The argument of a complex number; for real input pi where x < 0, else 0 (as TF)."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return apply_unary(ANGLE, x, name)
    zeros = array_ops.zeros_like(x)
    return array_ops.where(math_ops.less(x, zeros), zeros + np.pi, zeros, name=name)


def _cross_infer(inputs, attrs):
    specs = broadcast_binary(inputs, attrs)
    for spec in inputs:
        last = spec.shape.dims[-1] if spec.shape.rank else None
        if last is not None and last != 3:
            raise ValueError(f"cross needs vectors of size 3 in the last dimension, got {last}")
    return specs


def _cross_kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not a.ndim or not b.ndim or a.shape[-1] != 3 or b.shape[-1] != 3:   # fed shapes
        raise InvalidArgumentError(None, None, "Cross: inputs must have a last dimension "
                                   f"of 3, got shapes {a.shape} and {b.shape}")
    return np.cross(a, b)


CROSS = declare_op("Cross", _cross_kernel, _cross_infer, input_kinds="fiu")


def cross(a: Any, b: Any, name: Optional[str] = None):
    """The cross product of 3-vectors along the last dimension."""
    return apply_binary(CROSS, a, b, name)


__all__ = ["dynamic_partition", "dynamic_stitch"]
MATH_NAMES = {"invert_permutation": invert_permutation, "angle": angle}
LINALG_NAMES = {"cross": cross}
