"""TensorStridedSliceUpdate: `input` with the strided slice input[begin:end:strides] (TF's masks)
replaced by `value` (broadcast to the slice), as TF's op (reached in TF through
tf.raw_ops; here `tensor_strided_slice_update`). Gradient:
grad_registry/strided_slice_update_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from .slicing_ops import MASKS, numpy_index


def _kernel(x, begin, end, strides, value, **attrs):
    out = x.copy()
    index = numpy_index(x.shape, begin, end, strides, attrs)
    target = out[index]
    try:
        np.broadcast_to(value, np.shape(target))
    except ValueError:
        raise ValueError(f"TensorStridedSliceUpdate: value of shape {list(value.shape)} does not "
                         f"broadcast to the slice shape {list(np.shape(target))}") from None
    out[index] = value
    return out


def _infer(inputs, attrs):
    x, begin, end, strides, value = inputs
    for t in (begin, end, strides):
        if not t.dtype.is_integer:
            raise TypeError(f"begin, end and strides must be int32 or int64, got {t.dtype.name}")
    if value.dtype != x.dtype:
        raise TypeError(f"value has dtype {value.dtype.name}, expected {x.dtype.name}")
    return [(x.dtype, x.shape)]


TENSOR_STRIDED_SLICE_UPDATE = declare_op("TensorStridedSliceUpdate", _kernel, _infer,
                                         grad_inputs=(1, 2, 3, 4))


def tensor_strided_slice_update(input_: Any, begin: Any, end: Any, strides: Any, value: Any,
                                begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                                new_axis_mask: int = 0, shrink_axis_mask: int = 0,
                                name: Optional[str] = None):
    """input_ with input_[begin:end:strides] (TF's masks) set to `value`."""
    x = convert_to_tensor(input_)
    index_dtype = begin.dtype if hasattr(begin, "dtype") else None
    begin, end, strides = (convert_to_tensor(v, dtype=index_dtype) if index_dtype is not None
                           else convert_to_tensor(np.asarray(v, np.int32))
                           for v in (begin, end, strides))
    value = convert_to_tensor(value, dtype=x.dtype)
    attrs = dict(zip(MASKS, (int(begin_mask), int(end_mask), int(ellipsis_mask),
                             int(new_axis_mask), int(shrink_axis_mask)), strict=True))
    return apply_op(TENSOR_STRIDED_SLICE_UPDATE, (x, begin, end, strides, value), attrs, name)
