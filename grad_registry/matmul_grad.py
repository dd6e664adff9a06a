"""Gradients of MatMul and BatchMatMulV2 (ops/math/matmul_ops.py)."""
from __future__ import annotations

from ..ops.math.complex_ops import conj_if_complex
from ..ops.math.matmul_ops import BATCH_MATMUL, MATMUL, matmul
from .broadcast import unbroadcast
from .registry import RegisterGradient


def _matmul_grads(op, grad):
    """For C = A B: dA = G B^H, dB = A^H G, with the transpose flags folded in."""
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    skip = op.skip_input_indices
    # Only what a needed gradient reads is a value (the other may be a TensorSpec).
    a_c = None if 1 in skip else conj_if_complex(a)
    b_c = None if 0 in skip else conj_if_complex(b)
    da = db = None
    if not ta and not tb:
        if 0 not in skip:
            da = matmul(grad, b_c, transpose_b=True)
        if 1 not in skip:
            db = matmul(a_c, grad, transpose_a=True)
    elif not ta and tb:
        if 0 not in skip:
            da = matmul(grad, b_c)
        if 1 not in skip:
            db = matmul(grad, a_c, transpose_a=True)
    elif ta and not tb:
        if 0 not in skip:
            da = matmul(b_c, grad, transpose_b=True)
        if 1 not in skip:
            db = matmul(a_c, grad)
    else:
        if 0 not in skip:
            da = matmul(b_c, grad, transpose_a=True, transpose_b=True)
        if 1 not in skip:
            db = matmul(grad, a_c, transpose_a=True, transpose_b=True)
    return da, db


@RegisterGradient(MATMUL.type)
def _matmul_grad(op, grad):
    """dA = G B^T, dB = A^T G (transposes per the op's flags)."""
    return _matmul_grads(op, grad)


@RegisterGradient(BATCH_MATMUL.type)
def _batch_matmul_grad(op, grad):
    """As MatMul, per batch; broadcast batch axes are summed away."""
    da, db = _matmul_grads(op, grad)
    a, b = op.inputs
    return unbroadcast(da, a), unbroadcast(db, b)
