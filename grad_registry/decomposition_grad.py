"""Gradients of Qr, Eig and MatrixSquareRoot (ops/linalg/decomposition_ops.py), TF's formulas:
QR's for m >= n and for wide matrices through the leading square block (not for
full_matrices with m > n, as TF); Eig's for distinct eigenvalues (eq. 4.77 of Boeddeker et
al.); sqrtm's by solving the Sylvester equation R dX + dX R = dA as a Kronecker system."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.array.creation_ops import eye
from ..ops.array.join_ops import concat
from ..ops.linalg import linalg_ops, matrix_diag_ops
from ..ops.linalg.decomposition_ops import EIG, MATRIX_SQUARE_ROOT, QR, eig
from ..ops.math import complex_ops, math_ops
from ..ops.math.matmul_ops import matmul
from .registry import RegisterGradient


def _adjoint(x):
    return linalg_ops.adjoint(x)


def _solve_upper_right(x, r):
    """x @ inverse(r)^H for upper-triangular r (TF's _TriangularSolve)."""
    return _adjoint(linalg_ops.triangular_solve(r, _adjoint(x), lower=False, adjoint=False))


def _qr_square_or_deep(q, r, dq, dr):
    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - _adjoint(qdq)
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - _adjoint(rdr)
    tril = matrix_diag_ops.band_part(qdq_ + rdr_, -1, 0)
    result = matmul(q, dr + _solve_upper_right(tril, r)) + \
        _solve_upper_right(dq - matmul(q, qdq), r)
    if q.dtype.is_complex:
        m = rdr - _adjoint(qdq)
        eye_m = matrix_diag_ops.set_diag(array_ops.zeros_like(m), matrix_diag_ops.diag_part(m))
        correction = eye_m - math_ops.cast(complex_ops.real(eye_m), q.dtype)
        result = result + _solve_upper_right(matmul(q, _adjoint(correction)), r)
    return result


@RegisterGradient(QR.type)
def _qr_grad(op, dq, dr):
    """TF's QR gradient; NotImplementedError for dynamic shapes and for full_matrices with
    more rows than columns, as TF."""
    q, r = op.outputs
    if r.shape.rank is None or r.shape[-2] is None or r.shape[-1] is None:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received "
                                  f"r.shape: {r.shape}")
    if r.shape[-2] > r.shape[-1] and q.shape[-2] == q.shape[-1]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={r.shape}")
    dq = array_ops.zeros_like(q) if dq is None else dq
    dr = array_ops.zeros_like(r) if dr is None else dr
    num_rows, num_cols = q.shape[-2], r.shape[-1]
    if num_rows >= num_cols:
        return _qr_square_or_deep(q, r, dq, dr)
    a = op.inputs[0]
    y = a[..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dr[..., :, num_rows:]
    du = dr[..., :, :num_rows]
    dy = matmul(q, dv)
    dx = _qr_square_or_deep(q, u, dq + matmul(y, dv, adjoint_b=True), du)
    return concat([dx, dy], axis=-1)


def _safe_reciprocal(x, epsilon=1e-20):
    return x / (x * x + epsilon)


@RegisterGradient(EIG.type)
def _eig_grad(op, grad_e, grad_v):
    """TF's Eig gradient (distinct eigenvalues), cast back to the input's dtype."""
    e = op.outputs[0]
    grad_e = array_ops.zeros_like(e) if grad_e is None else grad_e
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        grad_v = array_ops.zeros_like(v) if grad_v is None else grad_v
        vt = _adjoint(v)
        f = matrix_diag_ops.set_diag(
            _safe_reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
            array_ops.zeros_like(e))
        f = complex_ops.conj(f)
        vgv = matmul(vt, grad_v)
        mid = matrix_diag_ops.diag(grad_e)
        diag_grad_part = matrix_diag_ops.diag(
            matrix_diag_ops.diag_part(math_ops.cast(complex_ops.real(vgv), vgv.dtype)))
        mid = mid + f * (vgv - matmul(matmul(vt, v), diag_grad_part))
        grad_a = linalg_ops.solve(vt, matmul(mid, vt))
    else:
        _, v = eig(op.inputs[0])
        vt = _adjoint(v)
        grad_a = linalg_ops.solve(vt, matmul(matrix_diag_ops.diag(grad_e), vt))
    x = op.inputs[0]
    if x.dtype.is_complex:
        return grad_a
    return complex_ops.real(grad_a)


def _kronecker(b1, b2, order):
    """Batched Kronecker products of [..., m, m] matrices, [..., m*m, m*m]."""
    batch = array_ops.shape_tensor(b1)[:-2]
    b1 = array_ops.reshape(b1, concat([batch, [order, 1, order, 1]], 0))
    b2 = array_ops.reshape(b2, concat([batch, [1, order, 1, order]], 0))
    return array_ops.reshape(b1 * b2, concat([batch, [order * order, order * order]], 0))


@RegisterGradient(MATRIX_SQUARE_ROOT.type)
def _sqrtm_grad(op, grad):
    """vec(dA^T) solved against I (x) R^T + R (x) I, then transposed back (TF's)."""
    root = op.outputs[0]
    order = root.shape[-1]
    if order is None:
        raise ValueError("MatrixSquareRoot's gradient needs a static matrix order")
    identity = array_ops.ones_like(root) * eye(order, dtype=root.dtype)
    ksum = _kronecker(identity, linalg_ops.matrix_transpose(root), order) + \
        _kronecker(root, identity, order)
    batch = array_ops.shape_tensor(root)[:-2]
    vec_da = array_ops.reshape(linalg_ops.matrix_transpose(grad),
                               concat([batch, [order * order, 1]], 0))
    vec_dsqrtm = linalg_ops.solve(ksum, vec_da)
    return linalg_ops.matrix_transpose(array_ops.reshape(vec_dsqrtm, array_ops.shape_tensor(root)))
