"""Gradients of tile, pad, reverse and one_hot (ops/array/manip_ops.py)."""
from __future__ import annotations

from ..ops.array import array_ops, join_ops
from ..ops.math import reduction_ops
from ..ops.array.manip_ops import (MIRROR_PAD, MIRROR_PAD_GRAD, ONE_HOT, PAD, REVERSE, TILE,
                                   mirror_pad_grad, pad, reverse)
from ..ops.array.slicing_ops import slice as slice_op
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(ONE_HOT.type)


@RegisterGradient(TILE.type)
def _tile_grad(op, grad):
    """grad reshaped to [m0, d0, m1, d1, ...] and summed over the multiples axes."""
    x, multiples = op.inputs
    rank = multiples.shape[0]
    shape = array_ops.shape_tensor(x, multiples.dtype)
    split_shape = array_ops.reshape(array_ops.transpose(join_ops.stack([multiples, shape])),
                                    [-1])
    summed = reduction_ops.reduce_sum(array_ops.reshape(grad, split_shape),
                                      axis=list(range(0, 2 * rank, 2)))
    target = x.shape.as_list() if x.shape.is_fully_defined() else shape
    return array_ops.reshape(summed, target), None


def _before(paddings):
    """The first column of a [rank, 2] paddings tensor."""
    return paddings[:, 0]


@RegisterGradient(PAD.type)
def _pad_grad(op, grad):
    """The interior of grad (what the input occupied); constant_values gets None, as in TF."""
    x, paddings, _ = op.inputs
    return slice_op(grad, _before(paddings), array_ops.shape_tensor(x, paddings.dtype)), \
        None, None


@RegisterGradient(MIRROR_PAD.type)
def _mirror_pad_grad(op, grad):
    """grad with the mirrored borders added back onto the elements they copy."""
    return mirror_pad_grad(grad, op.inputs[1], op.get_attr("mode")), None


@RegisterGradient(MIRROR_PAD_GRAD.type)
def _mirror_pad_grad_grad(op, grad):
    """MirrorPadGrad is the adjoint of MirrorPad, so its own adjoint is MirrorPad."""
    return pad(grad, op.inputs[1], mode=op.get_attr("mode")), None


@RegisterGradient(REVERSE.type)
def _reverse_grad(op, grad):
    """grad reversed along the same axes."""
    return reverse(grad, op.get_attr("axis"))
