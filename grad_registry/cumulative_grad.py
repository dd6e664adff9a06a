"""Gradients of Cumsum and Cumprod (ops/math/cumulative_ops.py)."""
from __future__ import annotations

from ..framework import dtypes
from ..ops.array import array_ops
from ..ops.math import cumulative_ops, math_ops, reduction_ops
from ..ops.math.complex_ops import conj_if_complex as conj
from ..ops.math.cumulative_ops import CUMPROD, CUMSUM
from .registry import RegisterGradient


@RegisterGradient(CUMSUM.type)
def _cumsum_grad(op, grad):
    """cumsum(grad) running the other way (same exclusive flag)."""
    return cumulative_ops.cumsum(grad, op.get_attr("axis"), exclusive=op.get_attr("exclusive"),
                                 reverse=not op.get_attr("reverse"))


def _move_axis_last(x, axis):
    """x with `axis` moved last, and the permutation that undoes it (None: no move)."""
    rank = x.shape.rank
    if rank is None:
        raise ValueError("the gradient of Cumprod needs a tensor of known rank")
    axis %= rank
    if axis == rank - 1:
        return x, None
    perm = [i for i in range(rank) if i != axis] + [axis]
    inverse = [0] * rank
    for i, p in enumerate(perm):
        inverse[p] = i
    return array_ops.transpose(x, perm), inverse


@RegisterGradient(CUMPROD.type)
def _cumprod_grad(op, grad):
    """dx_k = sum_i g_i * conj(prod of the factors of y_i other than x_k).

    Computed without dividing by x (TensorFlow divides, which is wrong where x has a
    zero): the factor products come from a cumprod of an n x n matrix whose row k
    holds x_j only on the far side of k, so the cost is O(n^2) along the axis.
    """
    axis, exclusive, reverse = (op.get_attr("axis"), op.get_attr("exclusive"),
                                op.get_attr("reverse"))
    x, inverse = _move_axis_last(conj(op.inputs[0]), axis)
    grad, _ = _move_axis_last(grad, axis)
    iota = cumulative_ops.cumsum(array_ops.ones_like(x, dtype=dtypes.int32), -1, exclusive=True)
    k = array_ops.expand_dims(iota, -1)     # the input being differentiated (rows)
    i = array_ops.expand_dims(iota, -2)     # the output position (columns)
    far_side = math_ops.less(i, k) if reverse else math_ops.greater(i, k)
    x_row = array_ops.expand_dims(x, -2)
    between = cumulative_ops.cumprod(array_ops.where(far_side, x_row, array_ops.ones_like(x_row)),
                                     -1, exclusive=exclusive, reverse=reverse)
    if exclusive:
        uses_k = far_side
    else:
        uses_k = math_ops.less_equal(i, k) if reverse else math_ops.greater_equal(i, k)
    weighted = array_ops.where(uses_k, between, array_ops.zeros_like(between)) * \
        array_ops.expand_dims(grad, -2)
    before = cumulative_ops.cumprod(x, -1, exclusive=True, reverse=reverse)
    dx = reduction_ops.reduce_sum(weighted, -1) * before
    return dx if inverse is None else array_ops.transpose(dx, inverse)
