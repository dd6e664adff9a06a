"""Gradients of the collective ops (one registry serves eager mode and graphs)."""
from __future__ import annotations

from ..grad_registry.registry import NotDifferentiable, RegisterGradient
from ..ops.array.array_ops import zeros_like
from ..framework.indexed_slices import IndexedSlices
from ..ops.array.indexed_slices_ops import densify
from .collective_ops import ALL_REDUCE, BROADCAST, REPLICA_ID, all_reduce_tensors


@RegisterGradient(ALL_REDUCE.type)
def _all_reduce_grad(op, *grads):
    """Returns all_reduce(grads): each replica's input reaches every replica's output.

    For SUM, dL/dx_r = sum over replicas s of dL_s/dy_s; MEAN scales the same sum
    by 1/n. Both are the same all-reduce of the upstream gradients, done as one
    fused collective for all floating inputs; integer inputs get None."""
    engine, reduce_op = op.get_attr("engine"), op.get_attr("reduce_op")
    floating = [i for i, x in enumerate(op.inputs) if x.dtype.is_floating or x.dtype.is_complex]
    upstream = [zeros_like(op.outputs[i]) if grads[i] is None else
                densify(grads[i]) if isinstance(grads[i], IndexedSlices) else grads[i]
                for i in floating]
    reduced = all_reduce_tensors(upstream, reduce_op, engine)
    dxs = [None] * len(op.inputs)
    for i, dx in zip(floating, reduced, strict=True):
        dxs[i] = dx
    return dxs


# Broadcast copies the root's value: no gradient flows back through it (as TF's CollectiveBcast).
NotDifferentiable(BROADCAST.type)
NotDifferentiable(REPLICA_ID.type)
