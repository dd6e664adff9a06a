"""roll and ensure_shape (primitives, as TF), and the compositions repeat, sequence_mask,
broadcast_static_shape and broadcast_dynamic_shape. Gradients: array_more_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from . import array_ops, join_ops, manip_ops
from ..math import math_ops, reduction_ops
from ..arg_errors import mode_error
from ..constant_op import convert_to_tensor
from .creation_ops import range as range_op
from ..dispatch import apply_op
from .indexed_slices_ops import gather
from ..tensor_util import constant_value

_state = context.state


def _roll_kernel(x, shift, axis):
    return np.roll(x, tuple(np.reshape(shift, -1)), tuple(np.reshape(axis, -1)))


def _roll_infer(inputs, attrs):
    x, shift, axis = inputs
    if not (shift.dtype.is_integer and axis.dtype.is_integer):
        raise TypeError("roll: shift and axis must be integer tensors")
    return [(x.dtype, x.shape)]


ROLL = declare_op("Roll", _roll_kernel, _roll_infer, grad_inputs=(1, 2))


def roll(input: Any, shift: Any, axis: Any, name: Optional[str] = None):  # noqa: A002
    """Elements shifted by `shift` along `axis`, wrapping around (scalars or vectors)."""
    x = convert_to_tensor(input)
    shift = convert_to_tensor(shift, dtype_hint=dtypes.int32)
    axis = convert_to_tensor(axis, dtype_hint=dtypes.int32)
    return apply_op(ROLL, (x, shift, axis), name=name)


def _ensure_shape_kernel(x, *, shape):
    if not shape.is_compatible_with(TensorShape(x.shape)):
        raise InvalidArgumentError(None, None, f"Shape of tensor {list(x.shape)} is not "
                                   f"compatible with expected shape {shape}.")
    return x


def _ensure_shape_infer(inputs, attrs):
    shape = attrs["shape"]
    if not shape.is_compatible_with(inputs[0].shape):
        raise ValueError(f"Shape {inputs[0].shape} is incompatible with {shape}")
    return [(inputs[0].dtype, inputs[0].shape.merge_with(shape))]


ENSURE_SHAPE = declare_op("EnsureShape", _ensure_shape_kernel, _ensure_shape_infer,
                          grad_inputs=())


def ensure_shape(x: Any, shape: Any, name: Optional[str] = None):
    """x, checked at run time to have a shape compatible with `shape`."""
    return apply_op(ENSURE_SHAPE, (convert_to_tensor(x),), {"shape": as_shape(shape)}, name)


def repeat(input: Any, repeats: Any, axis: Optional[int] = None,  # noqa: A002
           name: Optional[str] = None):
    """Each element (or slice along `axis`) repeated `repeats` times; flattened if axis
    is None. Built as TF builds it (copies tiled, then the kept ones gathered), so the
    gradient sums the copies into a dense tensor, as TF's does."""
    x = convert_to_tensor(input)
    if axis is None:
        x = array_ops.reshape(x, [-1])
        axis = 0
    elif x.shape.rank == 0:  # TF repeats a scalar as a vector of one element
        x = array_ops.reshape(x, [1])
    rank = x.shape.rank
    if rank is not None and not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    repeats = convert_to_tensor(repeats)
    if not repeats.dtype.is_integer:  # TF: TypeError from the int32/int64 attr of its ops
        raise TypeError(f"repeat: `repeats` must be int32 or int64, got {repeats.dtype.name}")
    counts = constant_value(repeats)
    if counts is None:
        raise ValueError("repeat needs statically known repeats")
    if rank is None:
        raise ValueError("repeat along an axis needs a tensor of known rank")
    axis = axis % rank
    counts = counts.reshape(-1)
    single = counts.size == 1
    most = max(int(counts.max()), 0) if counts.size else 0
    # A new axis after `axis` holding `most` copies, merged into `axis`.
    multiples = [1] * (rank + 1)
    multiples[axis + 1] = most
    tiled = manip_ops.tile(array_ops.expand_dims(x, axis + 1), multiples)
    shape = array_ops.shape(x)
    merged = join_ops.concat([shape[:axis], shape[axis:axis + 1] * most,
                              shape[axis + 1:]], 0)
    if single:
        return array_ops.reshape(tiled, merged, name=name)
    dims = x.shape.dims  # known: the rank was checked above
    length = dims[axis] if dims is not None else None
    if length is not None and length != counts.size:
        raise ValueError(f"repeat: Dimensions {length} and {counts.size} are not compatible")
    # Copy j of slice i is kept when j < repeats[i] (a negative count keeps none, as TF).
    keep = np.flatnonzero(np.arange(most) < counts[:, None]).astype(np.int32)
    return gather(array_ops.reshape(tiled, merged), keep, axis=axis, name=name)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool_,
                  name: Optional[str] = None):
    """mask[..., j] = j < lengths[...]."""
    lengths = convert_to_tensor(lengths)
    if maxlen is None:  # TF: max(0, the largest length): a negative length masks nothing
        maxlen = reduction_ops.reduce_max(lengths) if lengths.shape.num_elements() != 0 \
            else convert_to_tensor(0, lengths.dtype)
        maxlen = math_ops.maximum(convert_to_tensor(0, lengths.dtype), maxlen)
    else:
        maxlen = convert_to_tensor(maxlen)
    if maxlen.shape.rank not in (None, 0):
        raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received "
                         f"`maxlen` = {maxlen} with shape '{maxlen.shape}' instead")
    if not (maxlen.dtype.is_integer or maxlen.dtype.is_floating):
        raise TypeError(f"sequence_mask: maxlen must be a number, got {maxlen.dtype.name}")
    positions = range_op(0, maxlen, 1, dtype=maxlen.dtype)
    mask = math_ops.less(positions,
                         math_ops.cast(array_ops.expand_dims(lengths, -1), maxlen.dtype))
    dtype = dtypes.as_dtype(dtype)
    return mask if dtype == dtypes.bool_ else math_ops.cast(mask, dtype, name=name)


def broadcast_static_shape(shape_x: TensorShape, shape_y: TensorShape) -> TensorShape:
    """The broadcast of two static shapes; ValueError if they are incompatible."""
    x, y = as_shape(shape_x), as_shape(shape_y)
    if x.dims is None or y.dims is None:
        return TensorShape(None)
    dims_x, dims_y = list(x.dims), list(y.dims)
    n = max(len(dims_x), len(dims_y))
    dims_x = [1] * (n - len(dims_x)) + dims_x
    dims_y = [1] * (n - len(dims_y)) + dims_y
    out = []
    for a, b in zip(dims_x, dims_y, strict=True):
        if a == 1 or a == b:
            out.append(b)
        elif b == 1:
            out.append(a)
        elif a is None or b is None:
            out.append(b if a is None else a)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any, name: Optional[str] = None):
    """The broadcast of two shape vectors, as a tensor."""
    x = convert_to_tensor(shape_x)
    index_dtypes = (dtypes.int32, dtypes.int64)
    if _state.graph is not None and x.dtype not in index_dtypes:
        raise TypeError(f"BroadcastArgs: shapes must be int32 or int64, got {x.dtype.name}")
    y = shape_y if isinstance(shape_y, Tensor) else convert_to_tensor(shape_y, dtype=x.dtype)
    if x.dtype not in index_dtypes or y.dtype != x.dtype:
        raise mode_error(f"BroadcastArgs: shapes must both be int32 or both int64, got "
                         f"{x.dtype.name} and {y.dtype.name}", TypeError)
    static_x, static_y = constant_value(x), constant_value(y)
    if static_x is not None and static_y is not None:
        result = broadcast_static_shape(TensorShape(static_x.tolist()),
                                        TensorShape(static_y.tolist()))
        return convert_to_tensor(np.array(result.as_list(), x.dtype.as_numpy_dtype))
    ones_x = array_ops.zeros(x, dtype=dtypes.int8)
    ones_y = array_ops.zeros(y, dtype=dtypes.int8)
    return array_ops.shape(ones_x + ones_y, out_type=x.dtype, name=name)


__all__ = ["roll", "ensure_shape", "repeat", "sequence_mask", "broadcast_static_shape",
           "broadcast_dynamic_shape"]
