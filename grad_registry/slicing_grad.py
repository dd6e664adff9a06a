"""Gradients of slice and strided_slice (ops/array/slicing_ops.py)."""
from __future__ import annotations

from ..ops.array import array_ops, join_ops
from ..ops.array.manip_ops import pad
from ..ops.array.slicing_ops import (MASKS, SLICE, STRIDED_SLICE, STRIDED_SLICE_GRAD, strided_slice,
                                     strided_slice_grad)
from .registry import RegisterGradient


def _masks(op) -> dict:
    return {m: op.get_attr(m) for m in MASKS}


@RegisterGradient(STRIDED_SLICE.type)
def _strided_slice_grad(op, grad):
    """grad scattered back into zeros of the input's shape (StridedSliceGrad)."""
    x, begin, end, strides = op.inputs
    shape = array_ops.shape_tensor(x, begin.dtype)
    return strided_slice_grad(shape, begin, end, strides, grad, **_masks(op)), None, None, None


@RegisterGradient(STRIDED_SLICE_GRAD.type)
def _strided_slice_grad_grad(op, grad):
    """StridedSliceGrad is linear in dy; its adjoint is the strided slice itself."""
    _, begin, end, strides, _ = op.inputs
    return None, None, None, None, strided_slice(grad, begin, end, strides, **_masks(op))


@RegisterGradient(SLICE.type)
def _slice_grad(op, grad):
    """grad zero-padded back to the input's shape: begin before, the rest after."""
    x, begin, _ = op.inputs
    shape = array_ops.shape_tensor(x, begin.dtype)
    after = shape - begin - array_ops.shape(grad, begin.dtype)
    paddings = join_ops.stack([begin, after], axis=1)
    return pad(grad, paddings), None, None
