"""Gradients of ApproxTopK, NthElement and IsotonicRegression (ops/nn/ranking_ops.py), TF's."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.array.creation_ops import range as range_
from ..ops.array.indexed_slices_ops import gather
from ..ops.array.scatter_ops import scatter_nd
from ..ops.math import math_ops, reduction_ops
from ..ops.math.segment_ops import unsorted_segment_mean
from ..ops.nn.ranking_ops import APPROX_TOP_K, ISOTONIC_REGRESSION, NTH_ELEMENT
from ..ops.array.join_ops import concat
from .registry import RegisterGradient


@RegisterGradient(APPROX_TOP_K.type)
def _approx_top_k_grad(op, grad, unused_indices_grad):
    """grad scattered back to the positions the top-k values came from."""
    indices = op.outputs[1]
    shape = indices.shape
    if not shape.is_fully_defined():
        raise ValueError("ApproxTopK's gradient needs static shapes, as TF's")
    dims = shape.as_list()
    rank = len(dims)
    axis = op.get_attr("reduction_dimension") % rank
    coordinates = []
    for d in range(rank):
        if d == axis:
            coordinates.append(array_ops.expand_dims(indices, -1))
            continue
        iota_shape = [1] * (rank + 1)
        iota_shape[d] = dims[d]
        iota = array_ops.reshape(math_ops.cast(range_(dims[d]), indices.dtype),
                                 iota_shape)
        coordinates.append(array_ops.broadcast_to(iota, dims + [1]))
    lifted = concat(coordinates, -1)
    return scatter_nd(lifted, grad, array_ops.shape_tensor(op.inputs[0]))


@RegisterGradient(NTH_ELEMENT.type)
def _nth_element_grad(op, grad):
    """grad split evenly over the input entries equal to the output (ties share it)."""
    x, y = op.inputs[0], op.outputs[0]
    indicators = math_ops.cast(math_ops.equal(array_ops.expand_dims(y, -1), x), grad.dtype)
    grad = array_ops.expand_dims(grad, -1)
    count = array_ops.expand_dims(reduction_ops.reduce_sum(indicators, -1), -1)
    return math_ops.divide(indicators, count) * grad, None


@RegisterGradient(ISOTONIC_REGRESSION.type)
def _isotonic_regression_grad(op, grad_output, unused_grad_segments):
    """Each entry's gradient replaced by the mean over its segment (the fit is the segment
    mean of the input)."""
    segments = op.outputs[1]
    shape = array_ops.shape_tensor(grad_output)
    n = shape[-1]
    size = array_ops.size(segments)
    flat_grad = array_ops.reshape(grad_output, [-1])
    # Segment ids are per row: offset each row's by its first flat position.
    ids = array_ops.reshape(segments, [-1]) + (range_(size) // n) * n
    means = unsorted_segment_mean(flat_grad, ids, size)
    return array_ops.reshape(gather(means, ids), shape)
