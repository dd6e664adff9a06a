"""The gradient of TensorStridedSliceUpdate (ops/array/strided_slice_update_ops.py), TF's:
the input's gradient is grad with the slice zeroed, the value's the slice of grad summed
down to the value's shape."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.array.slicing_ops import MASKS, strided_slice
from ..ops.array.strided_slice_update_ops import (TENSOR_STRIDED_SLICE_UPDATE,
                                                   tensor_strided_slice_update)
from .broadcast import unbroadcast
from .registry import RegisterGradient


@RegisterGradient(TENSOR_STRIDED_SLICE_UPDATE.type)
def _tensor_strided_slice_update_grad(op, grad):
    """(update(grad, slice, 0), None, None, None, sum_to_value_shape(grad[slice]))."""
    begin, end, strides, value = op.inputs[1:5]
    masks = {m: op.get_attr(m) for m in MASKS}
    dy = strided_slice(grad, begin, end, strides, **masks)
    dx = tensor_strided_slice_update(grad, begin, end, strides, array_ops.zeros_like(dy),
                                     **masks)
    return dx, None, None, None, unbroadcast(dy, value)
