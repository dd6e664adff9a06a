"""Gradients of the ops in ops/array/partition_ops.py, as TF's."""
from __future__ import annotations

from ..framework.indexed_slices import IndexedSlices
from ..ops.array import array_ops, creation_ops
from ..ops.math import complex_ops
from ..ops.array.indexed_slices_ops import gather, unsorted_segment_sum
from ..ops.array.partition_ops import (ANGLE, CROSS, DYNAMIC_PARTITION, DYNAMIC_STITCH,
                                       INVERT_PERMUTATION, cross, dynamic_partition, dynamic_stitch)
from .broadcast import unbroadcast
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(INVERT_PERMUTATION.type)


@RegisterGradient(DYNAMIC_PARTITION.type)
def _dynamic_partition_grad(op, *grads):
    """The parts' gradients stitched back to the positions their elements came from."""
    data, partitions = op.inputs
    positions = array_ops.reshape(creation_ops.range(array_ops.size(partitions)),
                                  array_ops.shape(partitions))
    parts = dynamic_partition(positions, partitions, op.get_attr("num_partitions"))
    stitched = dynamic_stitch(parts, list(grads))
    return array_ops.reshape(stitched, array_ops.shape_tensor(data)), None


@RegisterGradient(DYNAMIC_STITCH.type)
def _dynamic_stitch_grad(op, grad):
    """Each data tensor gets grad at its indices (none for the indices)."""
    half = len(op.inputs) // 2
    if isinstance(grad, IndexedSlices):
        rows = array_ops.shape_tensor(op.outputs[0])[0]
        grad = unsorted_segment_sum(grad.values, grad.indices, rows)
    return [None] * half + [gather(grad, op.inputs[i]) for i in range(half)]


@RegisterGradient(ANGLE.type)
def _angle_grad(op, grad):
    """-grad / (Im(x) + i Re(x)), as TF."""
    x = op.inputs[0]
    rotated = complex_ops.complex(complex_ops.imag(x), complex_ops.real(x))
    return -complex_ops.complex(grad, array_ops.zeros_like(grad)) / rotated


@RegisterGradient(CROSS.type)
def _cross_grad(op, grad):
    """(cross(b, grad), cross(grad, a)), unbroadcast."""
    a, b = op.inputs
    return unbroadcast(cross(b, grad), a), unbroadcast(cross(grad, a), b)
