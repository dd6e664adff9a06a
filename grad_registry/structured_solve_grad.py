"""Gradients of MatrixSolveLs, TridiagonalMatMul, TridiagonalSolve and BandedTriangularSolve
(ops/linalg/structured_solve_ops.py), TF's formulas."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.array.join_ops import stack
from ..ops.array.manip_ops import pad
from ..ops.linalg import linalg_ops
from ..ops.linalg import structured_solve_ops as ss
from ..ops.math import complex_ops, math_ops, reduction_ops
from ..ops.math.matmul_ops import matmul
from .broadcast import unbroadcast
from .registry import RegisterGradient


# -- MatrixSolveLs -------------------------------------------------------------------------
def _l2(op, a):
    return math_ops.cast(op.inputs[2], a.dtype)


def _overdetermined(op, grad):
    """X = (A^H A + l I)^-1 A^H B: backprop through the normal equations of the first kind."""
    a, b = op.inputs[0], op.inputs[1]
    x = op.outputs[0]
    chol = ss.regularized_gramian_cholesky(a, _l2(op, a), first_kind=True)
    z = ss.cholesky_solve(chol, grad)
    xzt = matmul(x, z, adjoint_b=True)
    zx_sym = xzt + linalg_ops.matrix_transpose(xzt)
    grad_a = -matmul(a, zx_sym) + matmul(b, z, adjoint_b=True)
    return grad_a, matmul(a, z), None


def _underdetermined(op, grad):
    """X = A^H (A A^H + l I)^-1 B: normal equations of the second kind."""
    a, b = op.inputs[0], op.inputs[1]
    chol = ss.regularized_gramian_cholesky(a, _l2(op, a), first_kind=False)
    grad_b = ss.cholesky_solve(chol, matmul(a, grad))
    tmp = ss.cholesky_solve(chol, b)
    a1 = -matmul(grad_b, matmul(tmp, a, adjoint_a=True))
    a2 = matmul(tmp, grad - matmul(a, grad_b, adjoint_a=True), adjoint_b=True)
    return a1 + a2, grad_b, None


@RegisterGradient(ss.MATRIX_SOLVE_LS.type)
def _matrix_solve_ls_grad(op, grad):
    """TF's: defined for fast=True only (ValueError otherwise, as TF); needs the matrix's
    static shape to pick the over- or underdetermined form."""
    if op.get_attr("fast") is False:
        raise ValueError("Gradient not defined for fast=False")
    shape = op.inputs[0].shape
    if shape.rank is None or shape[-2] is None or shape[-1] is None:
        raise ValueError("MatrixSolveLs's gradient needs the matrix's static shape")
    return (_overdetermined if shape[-2] >= shape[-1] else _underdetermined)(op, grad)


# -- tridiagonal -----------------------------------------------------------------------------
def _left_shift(x):
    """x moved up one row along the next-to-last axis, a zero row entering at the bottom."""
    rank = x.shape.rank
    return pad(x[..., 1:, :], [[0, 0]] * (rank - 2) + [[0, 1], [0, 0]])


def _right_shift(x):
    rank = x.shape.rank
    return pad(x[..., :-1, :], [[0, 0]] * (rank - 2) + [[1, 0], [0, 0]])


@RegisterGradient(ss.TRIDIAGONAL_MAT_MUL.type)
def _tridiagonal_matmul_grad(op, grad):
    """TF's: each diagonal's gradient is a row-sum of shifted conj(rhs) * grad, rhs's the
    transposed tridiagonal product."""
    superdiag_conj = linalg_ops.matrix_transpose(op.inputs[0], conjugate=True)
    maindiag_conj = linalg_ops.matrix_transpose(op.inputs[1], conjugate=True)
    subdiag_conj = linalg_ops.matrix_transpose(op.inputs[2], conjugate=True)
    rhs_conj = complex_ops.conj(op.inputs[3])
    superdiag_grad = reduction_ops.reduce_sum(_left_shift(rhs_conj) * grad, axis=-1)
    maindiag_grad = reduction_ops.reduce_sum(rhs_conj * grad, axis=-1)
    subdiag_grad = reduction_ops.reduce_sum(_right_shift(rhs_conj) * grad, axis=-1)
    rhs_grad = _right_shift(superdiag_conj * grad) + maindiag_conj * grad + \
        _left_shift(subdiag_conj * grad)
    return (array_ops.expand_dims(superdiag_grad, -2), array_ops.expand_dims(maindiag_grad, -2),
            array_ops.expand_dims(subdiag_grad, -2), rhs_grad)


def _transpose_tridiagonal(diags):
    """The compact diagonals of the transposed matrix."""
    diag = diags[..., 1, :]
    rank = diags.shape.rank
    edge = [[0, 0]] * (rank - 2)
    superdiag = pad(diags[..., 2, 1:], edge + [[0, 1]])
    subdiag = pad(diags[..., 0, :-1], edge + [[1, 0]])
    return stack([superdiag, diag, subdiag], axis=-2)


def _matmul_three_diagonals(x, y_tr):
    """The three diagonals (compact format) of x @ y_tr^T, in O(M K)."""
    rank = y_tr.shape.rank
    edge = [[0, 0]] * (rank - 2)
    diag = reduction_ops.reduce_sum(x * y_tr, axis=-1)
    superdiag = reduction_ops.reduce_sum(x * pad(y_tr[..., 1:, :], edge + [[0, 1], [0, 0]]), -1)
    subdiag = reduction_ops.reduce_sum(x * pad(y_tr[..., :-1, :], edge + [[1, 0], [0, 0]]), -1)
    return stack([superdiag, diag, subdiag], axis=-2)


@RegisterGradient(ss.TRIDIAGONAL_SOLVE.type)
def _tridiagonal_solve_grad(op, grad):
    """(-diagonals of grad_rhs x^T, solve(A^T, grad))."""
    diags = op.inputs[0]
    x = op.outputs[0]
    grad_rhs = ss.tridiagonal_solve(_transpose_tridiagonal(diags), grad,
                                    partial_pivoting=op.get_attr("partial_pivoting"),
                                    perturb_singular=op.get_attr("perturb_singular"))
    return -_matmul_three_diagonals(grad_rhs, x), grad_rhs


# -- banded ---------------------------------------------------------------------------------
@RegisterGradient(ss.BANDED_TRIANGULAR_SOLVE.type)
def _banded_triangular_solve_grad(op, grad):
    """TF's: as MatrixTriangularSolve's, with the matrix gradient cut to the bands."""
    a, b = op.inputs
    c = op.outputs[0]
    adjoint_a, lower_a = op.get_attr("adjoint"), op.get_attr("lower")
    num_bands = a.shape[-2]
    if num_bands is None or a.shape[-1] is None:
        raise ValueError("BandedTriangularSolve's gradient needs the bands' static shape")
    grad_b = ss.banded_triangular_solve(a, grad, lower=lower_a, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = -matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -matmul(grad_b, c, adjoint_b=True)
    grad_a = ss.bands_of(grad_a, num_bands, lower_a)
    return unbroadcast(grad_a, a), unbroadcast(grad_b, b)


