"""Gradients of FractionalMaxPool / FractionalAvgPool (ops/nn/fractional_pool_ops.py), TF's:
the gradient ops with the forward op's boundary sequences (none for the sequences)."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.nn.fractional_pool_ops import (FRACTIONAL_AVG_POOL, FRACTIONAL_MAX_POOL,
                                          fractional_pool_grad)
from .registry import RegisterGradient


@RegisterGradient(FRACTIONAL_MAX_POOL.type)
def _fractional_max_pool_grad(op, grad, unused_rows_grad, unused_cols_grad):
    """FractionalMaxPoolGrad(x, y, grad, rows, cols)."""
    return fractional_pool_grad("max", op.inputs[0], grad, op.outputs[1], op.outputs[2],
                                op.get_attr("overlapping"), orig_output=op.outputs[0])


@RegisterGradient(FRACTIONAL_AVG_POOL.type)
def _fractional_avg_pool_grad(op, grad, unused_rows_grad, unused_cols_grad):
    """FractionalAvgPoolGrad(shape(x), grad, rows, cols)."""
    return fractional_pool_grad("avg", array_ops.shape_tensor(op.inputs[0]), grad,
                                op.outputs[1], op.outputs[2], op.get_attr("overlapping"))
