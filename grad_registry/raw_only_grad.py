"""Gradients of the ops of ops/array/raw_only_ops.py, TF's decisions: ApproximateEqual,
BroadcastGradientArgs and ConcatOffset are not differentiable; PreventGradient's gradient is
a LookupError naming its message; ScatterNdNonAliasingAdd passes the gradient to the input
and gathers it for the updates; CheckNumericsV2 checks the gradient too; ConjugateTranspose
transposes the gradient back, conjugated; ParallelDynamicStitch gathers it per data tensor."""
from __future__ import annotations

from ..ops.array import raw_only_ops as raw
from ..ops.array.indexed_slices_ops import gather
from ..ops.array.partition_ops import invert_permutation
from ..ops.array.scatter_ops import gather_nd
from .registry import NotDifferentiable, RegisterGradient

NotDifferentiable(raw.APPROXIMATE_EQUAL.type)
NotDifferentiable(raw.BROADCAST_GRADIENT_ARGS.type)
NotDifferentiable(raw.CONCAT_OFFSET.type)


@RegisterGradient(raw.PREVENT_GRADIENT.type)
def _prevent_gradient_grad(op, grad):
    """Differentiating through it is an error, as TF's."""
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


@RegisterGradient(raw.SCATTER_ND_NON_ALIASING_ADD.type)
def _scatter_nd_non_aliasing_add_grad(op, grad):
    """(grad, None, gather_nd(grad, indices))."""
    return grad, None, gather_nd(grad, op.inputs[1])


@RegisterGradient(raw.CHECK_NUMERICS_V2.type)
def _check_numerics_v2_grad(op, grad):
    """The gradient checked for NaN and +-Inf too."""
    return raw.check_numerics_v2(
        grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. "
        + op.get_attr("message"))


@RegisterGradient(raw.CONJUGATE_TRANSPOSE.type)
def _conjugate_transpose_grad(op, grad):
    """(conjugate_transpose(grad, invert_permutation(perm)), None)."""
    return raw.conjugate_transpose(grad, invert_permutation(op.inputs[1])), None


@RegisterGradient(raw.PARALLEL_DYNAMIC_STITCH.type)
def _parallel_dynamic_stitch_grad(op, grad):
    """Each data tensor gets grad at its indices (none for the indices), as DynamicStitch."""
    half = len(op.inputs) // 2
    return [None] * half + [gather(grad, op.inputs[i]) for i in range(half)]
