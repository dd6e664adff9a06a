"""Gradients of concat, stack, split and unstack (ops/array/join_ops.py)."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.array.join_ops import CONCAT, PACK, SPLIT, SPLIT_V, UNPACK, concat, split, stack, unstack
from .registry import RegisterGradient


@RegisterGradient(CONCAT.type)
def _concat_grad(op, grad):
    """grad sliced back into the pieces that were joined."""
    axis = op.get_attr("axis")
    sizes = []
    for t in op.inputs:
        d = t.shape[axis] if t.shape.rank is not None else None
        sizes.append(d if d is not None else array_ops.shape(t)[axis])
    return split(grad, sizes, axis=axis)


@RegisterGradient(PACK.type)
def _pack_grad(op, grad):
    """grad unstacked along the new axis."""
    return unstack(grad, num=len(op.inputs), axis=op.get_attr("axis"))


@RegisterGradient(SPLIT.type)
def _split_grad(op, *grads):
    """The pieces' gradients joined back along the split axis."""
    return concat(list(grads), axis=op.get_attr("axis"))


@RegisterGradient(SPLIT_V.type)
def _split_v_grad(op, *grads):
    """The pieces' gradients joined back along the split axis; none for the sizes."""
    return concat(list(grads), axis=op.get_attr("axis")), None


@RegisterGradient(UNPACK.type)
def _unpack_grad(op, *grads):
    """The slices' gradients stacked back along the unstacked axis."""
    return stack(list(grads), axis=op.get_attr("axis"))
