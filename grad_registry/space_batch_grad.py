"""Gradients of SpaceToBatchND / BatchToSpaceND / SpaceToDepth / DepthToSpace
(ops/array/space_batch_ops.py): each op's adjoint is its inverse, as in TF."""
from __future__ import annotations

from ..ops.array import space_batch_ops as sb
from .registry import RegisterGradient


@RegisterGradient(sb.SPACE_TO_BATCH_ND.type)
def _space_to_batch_nd_grad(op, grad):
    """batch_to_space(grad, block_shape, paddings); none for the int inputs."""
    return sb.batch_to_space(grad, op.inputs[1], op.inputs[2]), None, None


@RegisterGradient(sb.BATCH_TO_SPACE_ND.type)
def _batch_to_space_nd_grad(op, grad):
    """space_to_batch_nd(grad, block_shape, crops)."""
    return sb.space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None


@RegisterGradient(sb.SPACE_TO_DEPTH.type)
def _space_to_depth_grad(op, grad):
    """depth_to_space(grad, block_size)."""
    return sb.depth_to_space(grad, op.get_attr("block_size"), op.get_attr("data_format"))


@RegisterGradient(sb.DEPTH_TO_SPACE.type)
def _depth_to_space_grad(op, grad):
    """space_to_depth(grad, block_size)."""
    return sb.space_to_depth(grad, op.get_attr("block_size"), op.get_attr("data_format"))
