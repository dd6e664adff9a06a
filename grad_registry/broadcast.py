"""Undoing broadcasting: the one helper every binary op's gradient uses."""
from __future__ import annotations

from typing import Any

from ..ops.array import array_ops
from ..ops.math import reduction_ops


def unbroadcast(grad: Any, x: Any) -> Any:
    """Sums `grad` down to the shape of input `x` (statically when shapes are known)."""
    if grad is None:
        return None
    x_dims = x.shape.dims
    g_dims = grad.shape.dims
    if x_dims == g_dims and x_dims is not None and None not in x_dims:
        return grad
    if x_dims is None or g_dims is None or None in x_dims or None in g_dims:
        return array_ops.sum_to_shape(grad, array_ops.shape(x))
    lead = len(g_dims) - len(x_dims)
    axes = list(range(lead)) + [i + lead for i, d in enumerate(x_dims)
                                if d == 1 and g_dims[i + lead] != 1]
    if axes:
        grad = reduction_ops.reduce_sum(grad, axes, keepdims=True)
    if lead:
        grad = array_ops.reshape(grad, x_dims)
    return grad
