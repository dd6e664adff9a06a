"""Gradients of the dense linear-algebra ops (ops/linalg/linalg_ops.py): TensorFlow's formulas.

References for the formulas: M. Giles (2008), "An extended collection of matrix
derivative results for forward and reverse mode AD"; Ionescu et al. (2015) for
the spectral (eigh/svd) gradients; J. Townsend's note on the thin-SVD gradient.
"""
from __future__ import annotations

from ..ops.array.array_ops import expand_dims, zeros_like
from ..ops.math.complex_ops import complex, conj, imag, real  # noqa: A004
from ..ops.array.indexed_slices_ops import gather
from ..ops.linalg.linalg_ops import (CHOLESKY, LOG_MATRIX_DETERMINANT, MATRIX_DETERMINANT,
                                     MATRIX_INVERSE, MATRIX_SOLVE, MATRIX_TRIANGULAR_SOLVE,
                                     SELF_ADJOINT_EIG, SVD, adjoint, eigh, inv, solve, svd,
                                     triangular_solve)
from ..ops.math.math_ops import divide, square
from ..ops.math.matmul_ops import matmul
from ..ops.linalg.matrix_diag_ops import band_part, diag, diag_part, set_diag
from .broadcast import unbroadcast
from .registry import RegisterGradient


def _as_matrix_multiplier(x):
    """[...] -> [..., 1, 1], to scale whole matrices of a batch."""
    return expand_dims(expand_dims(x, -1), -1)


def _safe_reciprocal(x, epsilon=1e-20):
    """x / (x^2 + eps): 1/x away from 0, finite at 0 (TF's Lorentz broadening)."""
    return divide(x, x * x + epsilon)


def _as_dtype_of(x, like):
    """A real tensor as `like`'s dtype (complex parts without a lossy Cast back)."""
    if like.dtype.is_complex and not x.dtype.is_complex:
        return complex(x, zeros_like(x))
    return x


def _columns(x, count):
    """The first `count` columns of a batch of matrices."""
    return gather(x, list(range(count)), axis=x.shape.rank - 1)


def _last_columns(x, start, stop):
    return gather(x, list(range(start, stop)), axis=x.shape.rank - 1)


@RegisterGradient(MATRIX_INVERSE.type)
def _matrix_inverse_grad(op, grad):
    """For Y = A^-1: dA = -Y^H G Y^H (for Y = A^-H: dA = -Y G^H Y)."""
    y = op.outputs[0]
    if op.get_attr("adjoint"):
        return -matmul(y, matmul(grad, y, adjoint_a=True))
    return -matmul(y, matmul(grad, y, adjoint_b=True), adjoint_a=True)


@RegisterGradient(MATRIX_DETERMINANT.type)
def _matrix_determinant_grad(op, grad):
    """dA = grad conj(det A) A^-H per matrix (TF has det, not conj(det): equal for reals)."""
    a = op.inputs[0]
    c = op.outputs[0]
    return _as_matrix_multiplier(grad * conj(c)) * inv(a, adjoint=True)


@RegisterGradient(LOG_MATRIX_DETERMINANT.type, accepts_none=(0, 1))
def _log_matrix_determinant_grad(op, grad_sign, grad_log_abs_det):
    """dA = (Re(g_log) + i Im(g_sign conj(sign))) A^-H: d log det = tr(A^-1 dA) splits
    into d log|det| (real part) and d arg det (imaginary part, moving sign = e^(i arg)).
    For real matrices the sign is piecewise constant and this is TF's g_log A^-H."""
    a = op.inputs[0]
    sign = op.outputs[0]
    if not a.dtype.is_complex:
        scale = zeros_like(sign) if grad_log_abs_det is None else grad_log_abs_det
    else:
        zero = zeros_like(real(sign))
        scale = complex(zero if grad_log_abs_det is None else real(grad_log_abs_det),
                        zero if grad_sign is None else imag(grad_sign * conj(sign)))
    return _as_matrix_multiplier(scale) * inv(a, adjoint=True)


@RegisterGradient(MATRIX_SOLVE.type)
def _matrix_solve_grad(op, grad):
    """For C = A^-1 B: dB = A^-H G, dA = -dB C^H (adjoint: dA = -C dB^H)."""
    a = op.inputs[0]
    c = op.outputs[0]
    is_adjoint = op.get_attr("adjoint")
    grad_b = solve(a, grad, adjoint=not is_adjoint)
    if 0 in op.skip_input_indices:
        return None, grad_b
    if is_adjoint:
        grad_a = -matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -matmul(grad_b, c, adjoint_b=True)
    return grad_a, grad_b


@RegisterGradient(MATRIX_TRIANGULAR_SOLVE.type)
def _matrix_triangular_solve_grad(op, grad):
    """As MatrixSolve, with dA restricted to the triangle that was read and the
    broadcast batch axes summed away."""
    a, b = op.inputs
    c = op.outputs[0]
    is_adjoint, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = triangular_solve(a, grad, lower=lower, adjoint=not is_adjoint)
    grad_a = None
    if 0 not in op.skip_input_indices:
        if is_adjoint:
            grad_a = -matmul(c, grad_b, adjoint_b=True)
        else:
            grad_a = -matmul(grad_b, c, adjoint_b=True)
        grad_a = band_part(grad_a, -1, 0) if lower else band_part(grad_a, 0, -1)
        grad_a = unbroadcast(grad_a, a)
    return grad_a, unbroadcast(grad_b, b)


@RegisterGradient(CHOLESKY.type)
def _cholesky_grad(op, grad):
    """dA = sym(L^-H Phi(L^H G) L^-1), Phi = lower triangle with halved diagonal."""
    lower = op.outputs[0]
    middle = matmul(lower, grad, adjoint_a=True)
    middle = band_part(set_diag(middle, 0.5 * diag_part(middle)), -1, 0)
    # L^-H M L^-1 as two triangular solves instead of forming L^-1.
    left = triangular_solve(lower, middle, adjoint=True)
    grad_a = adjoint(triangular_solve(lower, adjoint(left), adjoint=True))
    return 0.5 * (grad_a + adjoint(grad_a))


def _symmetrize_lower(grad_a):
    """The gradient w.r.t. the lower triangle that eigh reads: tril(G + G^H), diagonal once."""
    grad_a = band_part(grad_a + adjoint(grad_a), -1, 0)
    return set_diag(grad_a, 0.5 * diag_part(grad_a))


@RegisterGradient(SELF_ADJOINT_EIG.type)
def _self_adjoint_eig_grad(op, grad_e, grad_v):
    """dA = V (diag(ge) + F o (V^H gV)) V^H with F_ij = 1/(e_j - e_i) (0 on the
    diagonal), restricted to the lower triangle. Valid for distinct eigenvalues."""
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        f = set_diag(_safe_reciprocal(expand_dims(e, -2) - expand_dims(e, -1)), zeros_like(e))
        middle = diag(grad_e) + f * matmul(v, grad_v, adjoint_a=True)
    else:
        _, v = eigh(op.inputs[0])
        middle = diag(grad_e)
    grad_a = matmul(v, matmul(middle, v, adjoint_b=True))
    return _symmetrize_lower(grad_a)


@RegisterGradient(SVD.type)
def _svd_grad(op, grad_s, grad_u, grad_v):
    """TensorFlow's SVD gradient (Giles; Townsend for the thin case; the complex
    gauge term). Needs static m, n; with full_matrices, |m - n| <= 1."""
    a = op.inputs[0]
    grad_s = _as_dtype_of(grad_s, a)
    if not op.get_attr("compute_uv"):
        _, u, v = svd(a, compute_uv=True)
        return matmul(u, matmul(diag(grad_s), v, adjoint_b=True))
    if a.shape.rank is None or a.shape[-2] is None or a.shape[-1] is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unknown inner matrix shape.")
    m, n = a.shape[-2], a.shape[-1]
    full_matrices = op.get_attr("full_matrices")
    s = _as_dtype_of(op.outputs[0], a)
    u, v = op.outputs[1], op.outputs[2]
    use_adjoint = m > n
    if use_adjoint:  # differentiate A^H = V S U^H instead, and take the adjoint at the end
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 "
                                  "when full_matrices is True")
    s_mat = diag(s)
    s2 = square(s)
    f = set_diag(_safe_reciprocal(expand_dims(s2, -2) - expand_dims(s2, -1)), zeros_like(s))
    s_inv_mat = diag(_safe_reciprocal(s))
    v1, grad_v1 = v, grad_v
    if full_matrices and m < n:
        v1, grad_v1 = _columns(v, m), _columns(grad_v, m)
    f_u = f * matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_v = f * v_gv
    term1_nouv = (diag(grad_s) + matmul(f_u + adjoint(f_u), s_mat)
                  + matmul(s_mat, f_v + adjoint(f_v)))
    grad_a = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = adjoint(grad_v1)
        term2_nous = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full_matrices:
            v2, grad_v2 = _last_columns(v, m, n), _last_columns(grad_v, m, n)
            term2_nous -= matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        grad_a += matmul(matmul(u, s_inv_mat), term2_nous)
    if a.dtype.is_complex:
        gauge = diag(diag_part(v_gv))
        term3_nouv = matmul(s_inv_mat, adjoint(gauge) - gauge)
        grad_a += 0.5 * matmul(u, matmul(term3_nouv, v1, adjoint_b=True))
    return adjoint(grad_a) if use_adjoint else grad_a
