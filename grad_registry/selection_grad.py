"""Gradients of argmax/argmin (none) and top_k (ops/array/selection_ops.py)."""
from __future__ import annotations

from ..framework import dtypes
from ..ops.array import array_ops
from ..ops.math import cumulative_ops, reduction_ops
from ..ops.array.indexed_slices_ops import unsorted_segment_sum
from ..ops.array.selection_ops import ARG_MAX, ARG_MIN, TOP_K
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(ARG_MAX.type)
NotDifferentiable(ARG_MIN.type)


def _rows_and_width(x):
    """(number of rows, last-axis length, shape with the last axis set to 1) of x."""
    dims = x.shape.as_list()
    if x.shape.is_fully_defined():
        rows = 1
        for d in dims[:-1]:
            rows *= d
        return rows, dims[-1], dims[:-1] + [1]
    shape = array_ops.shape(x)
    is_last = [False] * (len(dims) - 1) + [True]
    ones = array_ops.ones_like(shape)
    rows = reduction_ops.reduce_prod(array_ops.where(is_last, ones, shape))
    width = reduction_ops.reduce_sum(array_ops.where(is_last, shape, array_ops.zeros_like(shape)))
    return rows, width, array_ops.where(is_last, ones, shape)


@RegisterGradient(TOP_K.type, accepts_none=(1,))
def _top_k_grad(op, grad, _indices_grad):
    """grad of the values scattered back to the positions they were taken from."""
    x = op.inputs[0]
    indices = op.outputs[1]
    if x.shape.rank is None:
        raise ValueError("the gradient of top_k needs an input of known rank")
    rows, width, row_shape = _rows_and_width(x)
    count = [rows] if isinstance(rows, int) else array_ops.reshape(rows, [1])
    row_ids = cumulative_ops.cumsum(array_ops.ones(count, dtypes.int32), exclusive=True)
    offsets = array_ops.reshape(row_ids * width, row_shape)
    flat_ids = array_ops.reshape(indices + offsets, [-1])
    scattered = unsorted_segment_sum(array_ops.reshape(grad, [-1]), flat_ids, rows * width)
    return array_ops.reshape(scattered, array_ops.shape_tensor(x))
