"""Gradients of TensorScatterMax / TensorScatterMin (ops/array/scatter_minmax_ops.py), TF's:
the gradient goes to whichever of the tensor element and the updates equal the output,
split evenly between ties."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.array.scatter_minmax_ops import TENSOR_SCATTER_MAX, TENSOR_SCATTER_MIN
from ..ops.array.scatter_ops import gather_nd, scatter_nd
from ..ops.math import math_ops
from .registry import RegisterGradient


def _scatter_min_or_max_grad(op, grad):
    """(grad * [x == out] / n, None, gather(grad / n) * [y == out]), n the tie count."""
    x, indices, y = op.inputs
    output = op.outputs[0]
    x_indicators = math_ops.cast(math_ops.equal(x, output), grad.dtype)
    y_indicators = math_ops.cast(math_ops.equal(y, gather_nd(output, indices)), grad.dtype)
    ys_indicators = scatter_nd(indices, y_indicators, array_ops.shape(x, out_type=indices.dtype))
    indicators = x_indicators + ys_indicators  # every element >= 1
    x_grad = grad * x_indicators / indicators
    y_grad = gather_nd(grad / indicators, indices) * y_indicators
    return x_grad, None, y_grad


RegisterGradient(TENSOR_SCATTER_MAX.type)(_scatter_min_or_max_grad)
RegisterGradient(TENSOR_SCATTER_MIN.type)(_scatter_min_or_max_grad)
