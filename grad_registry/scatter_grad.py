"""Gradients of gather_nd, scatter_nd and tensor_scatter_nd_* (ops/array/scatter_ops.py)."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math import math_ops
from ..ops.array.scatter_ops import (GATHER_ND, SCATTER_ND, TENSOR_SCATTER_ADD, TENSOR_SCATTER_SUB,
                                     TENSOR_SCATTER_UPDATE, gather_nd, scatter_nd,
                                     tensor_scatter_nd_update)
from .registry import RegisterGradient


@RegisterGradient(GATHER_ND.type)
def _gather_nd_grad(op, grad):
    """grad scattered (added) back to the gathered positions of zeros like params."""
    params, indices = op.inputs
    return scatter_nd(indices, grad, array_ops.shape_tensor(params, indices.dtype)), None


@RegisterGradient(SCATTER_ND.type)
def _scatter_nd_grad(op, grad):
    """d updates = grad gathered at indices."""
    return None, gather_nd(grad, op.inputs[0]), None


@RegisterGradient(TENSOR_SCATTER_UPDATE.type)
def _tensor_scatter_update_grad(op, grad):
    """tensor: grad with the overwritten slices zeroed; updates: grad at indices."""
    _, indices, updates = op.inputs
    zeros = array_ops.zeros_like(gather_nd(grad, indices))
    return tensor_scatter_nd_update(grad, indices, zeros), None, gather_nd(grad, indices)


@RegisterGradient(TENSOR_SCATTER_ADD.type)
def _tensor_scatter_add_grad(op, grad):
    """tensor: grad; updates: grad at indices."""
    return grad, None, gather_nd(grad, op.inputs[1])


@RegisterGradient(TENSOR_SCATTER_SUB.type)
def _tensor_scatter_sub_grad(op, grad):
    """tensor: grad; updates: -grad at indices."""
    return grad, None, math_ops.negative(gather_nd(grad, op.inputs[1]))
