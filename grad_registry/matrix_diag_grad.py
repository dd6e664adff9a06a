"""Gradients of the diagonal and band ops (ops/linalg/matrix_diag_ops.py)."""
from __future__ import annotations

from ..ops.array.array_ops import shape_tensor, zeros, zeros_like
from ..ops.linalg.matrix_diag_ops import (DIAG, DIAG_PART, MATRIX_BAND_PART, MATRIX_DIAG,
                                          MATRIX_DIAG_PART, MATRIX_SET_DIAG, band_part, diag,
                                          diag_part, set_diag, tensor_diag, tensor_diag_part)
from .registry import RegisterGradient


@RegisterGradient(MATRIX_DIAG.type)
def _matrix_diag_grad(op, grad):
    """d diagonal = diag_part(grad)."""
    return diag_part(grad)


@RegisterGradient(MATRIX_DIAG_PART.type)
def _matrix_diag_part_grad(op, grad):
    """grad placed on the diagonal of a zero matrix of the input's shape."""
    x = op.inputs[0]
    m, n = (x.shape[-2], x.shape[-1]) if x.shape.rank is not None else (None, None)
    if m is not None and m == n:
        return diag(grad)
    return set_diag(zeros(shape_tensor(x), x.dtype), grad)


@RegisterGradient(MATRIX_SET_DIAG.type)
def _matrix_set_diag_grad(op, grad):
    """d input = grad with its diagonal zeroed; d diagonal = diag_part(grad)."""
    grad_diag = diag_part(grad)
    return set_diag(grad, zeros_like(grad_diag)), grad_diag


@RegisterGradient(MATRIX_BAND_PART.type)
def _matrix_band_part_grad(op, grad):
    """The same band of grad."""
    return band_part(grad, op.get_attr("num_lower"), op.get_attr("num_upper"))


@RegisterGradient(DIAG.type)
def _diag_grad(op, grad):
    """d diagonal = tensor_diag_part(grad)."""
    return tensor_diag_part(grad)


@RegisterGradient(DIAG_PART.type)
def _diag_part_grad(op, grad):
    """d input = tensor_diag(grad)."""
    return tensor_diag(grad)
