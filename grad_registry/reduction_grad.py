"""Gradients of reductions and add_n (ops/math/reduction_ops.py)."""
from __future__ import annotations

from ..ops.array import array_ops, join_ops
from ..ops.math import cumulative_ops, math_ops, reduction_ops
from ..ops.math.complex_ops import conj_if_complex
from ..ops.math.reduction_ops import ADD_N, ALL, ANY, EUCLIDEAN_NORM, MAX, MEAN, MIN, PROD, SUM
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(ALL.type)
NotDifferentiable(ANY.type)


def _keepdims_shape(op):
    """The reduced shape with kept (size-1) axes, so grad broadcasts against x."""
    dims = op.inputs[0].shape.dims
    if dims is None:
        return None
    axis = op.get_attr("axis")
    axes = range(len(dims)) if axis is None else axis
    if None not in dims:
        return [1 if i in axes else d for i, d in enumerate(dims)]
    return None


def _restore_reduced(op, grad):
    """grad reshaped to keep the reduced axes (a no-op when keepdims was set)."""
    if op.get_attr("keepdims"):
        return grad
    kept = _keepdims_shape(op)
    if kept is not None:
        return array_ops.reshape(grad, kept)
    x = op.inputs[0]
    axis = op.get_attr("axis")
    rank = x.shape.rank
    if axis is None and rank is None:
        return grad   # a full reduction of unknown rank: the scalar broadcasts as it is
    axes = range(rank) if axis is None else axis
    for a in sorted(axes):
        grad = array_ops.expand_dims(grad, a)
    return grad


def _broadcast_like(grad, x):
    dims = x.shape.dims
    if dims is not None and None not in dims:
        return array_ops.broadcast_to(grad, list(dims))
    return array_ops.broadcast_to(grad, array_ops.shape(x))


def _num_elements(dims):
    """The element count of static `dims` (None when unknown)."""
    if dims is None or None in dims:
        return None
    count = 1
    for d in dims:
        count *= d
    return count


@RegisterGradient(SUM.type)
def _sum_grad(op, grad):
    """grad broadcast back over the summed axes."""
    return _broadcast_like(_restore_reduced(op, grad), op.inputs[0])


@RegisterGradient(MEAN.type)
def _mean_grad(op, grad):
    """grad / n broadcast back over the averaged axes."""
    x = op.inputs[0]
    x_size = _num_elements(x.shape.dims)
    y_size = _num_elements(op.outputs[0].shape.dims)
    if x_size is not None and y_size is not None:
        count = max(x_size // max(y_size, 1), 1)
        scaled = grad / count
    else:
        count = math_ops.cast(array_ops.size(x), grad.dtype) / math_ops.cast(
            math_ops.maximum(array_ops.size(op.outputs[0]), 1), grad.dtype)
        scaled = grad / count
    return _broadcast_like(_restore_reduced(op, scaled), x)


def _extremum_grad(op, grad):
    """grad split evenly among the elements equal to the extremum."""
    x = op.inputs[0]
    y = _restore_reduced(op, op.outputs[0])
    mask = math_ops.cast(math_ops.equal(x, y), grad.dtype)
    axis = op.get_attr("axis")
    count = reduction_ops.reduce_sum(mask, axis, keepdims=True)
    return mask * _restore_reduced(op, grad) / count


RegisterGradient(MAX.type)(_extremum_grad)
RegisterGradient(MIN.type)(_extremum_grad)


@RegisterGradient(EUCLIDEAN_NORM.type)
def _euclidean_norm_grad(op, grad):
    """x * grad / norm, as TF (no conj; NaN where the norm is 0, as TF). Not TF's
    x / (norm / grad): that is NaN at grad = 0, where forward mode differentiates it."""
    x = op.inputs[0]
    norm = _restore_reduced(op, op.outputs[0])
    return (x * _restore_reduced(op, grad)) / norm


@RegisterGradient(PROD.type)
def _prod_grad(op, grad):
    """grad * conj(product of the other elements), from exclusive cumulative products
    (no division, so exact where x has zeros, and differentiable again)."""
    x = op.inputs[0]
    axis = op.get_attr("axis")
    rank = x.shape.rank
    if rank is None and axis is None:   # unknown rank, full product: work on x flattened
        flat = array_ops.reshape(x, [-1])
        others = cumulative_ops.cumprod(flat, axis=0, exclusive=True) * cumulative_ops.cumprod(
            flat, axis=0, exclusive=True, reverse=True)
        partial = array_ops.reshape(others, array_ops.shape_tensor(x))
        return _broadcast_like(grad, x) * conj_if_complex(partial)
    if rank is None:
        partial = _others_product_unknown_rank(x, list(axis))
        return _broadcast_like(_restore_reduced(op, grad), x) * conj_if_complex(partial)
    axes = list(range(rank)) if axis is None else list(axis)
    other = [i for i in range(rank) if i not in axes]
    perm = axes + other
    moved = array_ops.transpose(x, perm)
    flat = array_ops.reshape(moved, _reduced_by_other(x, axes, other))
    left = cumulative_ops.cumprod(flat, axis=0, exclusive=True)
    right = cumulative_ops.cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = array_ops.reshape(left * right, array_ops.shape_tensor(moved))
    inverse = [0] * rank
    for i, p in enumerate(perm):
        inverse[p] = i
    partial = array_ops.transpose(others, inverse)
    return _broadcast_like(_restore_reduced(op, grad), x) * conj_if_complex(partial)


def _others_product_unknown_rank(x, axes):
    """The product over `axes` of x without each element itself, for x of unknown rank
    (no transpose, whose perm must be static): along the first axis the exclusive
    products, times, axis by axis, the exclusive products of x already reduced over the
    axes before it. Each factor covers one part of the other elements; no division."""
    partial = None
    reduced = x
    for i, a in enumerate(axes):
        if i:
            reduced = reduction_ops.reduce_prod(reduced, axes[i - 1], keepdims=True)
        part = _exclusive_products_along(reduced, a)
        partial = part if partial is None else partial * part
    return partial if partial is not None else array_ops.ones_like(x)


def _exclusive_products_along(t, axis):
    """For each element of t (unknown rank), the product of the others along `axis`:
    t seen as a rank-3 [before, axis, after] block, so that the cumulative products
    (and their gradients, which need a known rank) work on it."""
    shape = array_ops.shape(t)
    before = reduction_ops.reduce_prod(shape[:axis])
    after = reduction_ops.reduce_prod(shape[axis + 1:]) if axis != -1 else 1
    block = array_ops.reshape(t, join_ops.stack([before, shape[axis], after]))
    both = cumulative_ops.cumprod(block, axis=1, exclusive=True) * cumulative_ops.cumprod(
        block, axis=1, exclusive=True, reverse=True)
    return array_ops.reshape(both, shape)


def _reduced_by_other(x, axes, other):
    """The 2-D shape [size of the reduced axes, size of the others] of x."""
    dims = x.shape.as_list()
    if all(dims[a] is not None for a in axes):
        reduced = 1
        for a in axes:
            reduced *= dims[a]
        return [reduced, -1]
    if all(dims[a] is not None for a in other):
        size = 1
        for a in other:
            size *= dims[a]
        return [-1, size]
    shape = array_ops.shape(x)
    in_axes = [i in axes for i in range(len(dims))]
    ones = array_ops.ones_like(shape)
    return join_ops.stack([reduction_ops.reduce_prod(array_ops.where(in_axes, shape, ones)),
                           reduction_ops.reduce_prod(array_ops.where(in_axes, ones, shape))])


@RegisterGradient(ADD_N.type)
def _add_n_grad(op, grad):
    """grad to every input."""
    return [grad] * len(op.inputs)
