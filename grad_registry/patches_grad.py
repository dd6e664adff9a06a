"""Gradients of ExtractImagePatches / ExtractVolumePatches (ops/array/patches_ops.py), composed
as TF's: every patch entry's gradient is added (unsorted_segment_sum) to the input element
it copies, found from the patches of an index image; padding entries (index 0) are dropped.
The input's spatial dims must be static, as in TF."""
from __future__ import annotations

import numpy as np

from ..ops.array import array_ops
from ..ops.array.indexed_slices_ops import unsorted_segment_sum
from ..ops.array.join_ops import concat
from ..ops.array.patches_ops import EXTRACT_IMAGE_PATCHES, EXTRACT_VOLUME_PATCHES, patch_indices
from ..ops.constant_op import constant
from .registry import RegisterGradient


def _patches_grad(op, grad):
    x = op.inputs[0]
    dims = x.shape.dims
    spatial = None if dims is None else dims[1:-1]
    if spatial is None or None in spatial:
        raise ValueError(f"{op.type}'s gradient needs the input's spatial dimensions to be "
                         f"known, got shape {x.shape}")
    attrs = {k: op.get_attr(k) for k in ("ksizes", "strides", "rates", "padding")}
    indices = patch_indices(spatial, attrs)
    size = int(np.prod(spatial))
    x_shape = array_ops.shape_tensor(x)
    batch, channels = x_shape[:1], x_shape[-1:]
    per_entry = array_ops.reshape(grad, concat(
        [batch, constant([indices.size], x_shape.dtype.as_numpy_dtype), channels], 0))
    per_entry = array_ops.transpose(per_entry, [1, 0, 2])           # [P, B, C]
    summed = unsorted_segment_sum(per_entry, constant(indices), size + 1)[1:]
    n = len(spatial)
    summed = array_ops.reshape(summed, concat(
        [constant(list(spatial), x_shape.dtype.as_numpy_dtype), batch, channels], 0))
    return array_ops.transpose(summed, [n] + list(range(n)) + [n + 1])


RegisterGradient(EXTRACT_IMAGE_PATCHES.type)(_patches_grad)
RegisterGradient(EXTRACT_VOLUME_PATCHES.type)(_patches_grad)
