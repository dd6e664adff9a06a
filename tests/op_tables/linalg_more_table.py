"""Op-table rows for qr, eig, sqrtm, lstsq (MatrixSolveLs), tridiagonal and banded solves
(issue 22), with NumPy/SciPy references."""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

import duograd as dg
from duograd.ops.linalg.structured_solve_ops import MATRIX_SOLVE_LS
from duograd.ops.dispatch import apply_op
from .spec import OpSpec, inputs, normal


def _well_conditioned(*shape):
    n = shape[-1]
    return lambda rng: rng.standard_normal(shape) * 0.3 + 2.0 * np.eye(n)


def _distinct_eigen(rng):
    """A real matrix with well-separated real eigenvalues (1, 2, 4)."""
    basis = rng.standard_normal((3, 3)) * 0.3 + np.eye(3)
    return basis @ np.diag([1.0, 2.0, 4.0]) @ np.linalg.inv(basis)


def _flat(*parts):
    """Outputs of different shapes as one vector (the table compares one array)."""
    return dg.concat([dg.reshape(p, [-1]) for p in parts], 0)


def _np_flat(*parts):
    return np.concatenate([np.reshape(p, -1) for p in parts])


def _qr_parts(a, full=False):
    return _flat(*dg.linalg.qr(a, full_matrices=full))


def _np_qr(a, full=False):
    return _np_flat(*np.linalg.qr(a, "complete" if full else "reduced"))


def _eig_invariants(a):
    e, v = dg.linalg.eig(a)
    return _flat(dg.math.real(e), dg.math.real(v * dg.math.conj(v)))


def _eig_ref(a):
    e, v = np.linalg.eig(a)
    return _np_flat(e.real, (v * v.conj()).real)


def _dense(d):
    return np.diag(d[1]) + np.diag(d[0][:-1], 1) + np.diag(d[2][1:], -1)


def _tridiagonal(rng):
    d = rng.standard_normal((3, 4))
    d[1] += 4.0
    return d


def _bands_lower(rng):
    b = rng.standard_normal((2, 4)) * 0.5
    b[0] += 3.0
    return b


def _banded_dense_lower(b):
    return np.diag(b[0]) + np.diag(b[1][1:], -1)


def _lstsq_kernel(a, b):
    return apply_op(MATRIX_SOLVE_LS, (a, b, dg.constant(0.0, dg.float64)), {"fast": True})


ROWS = [
    OpSpec("linalg.qr", _qr_parts, _np_qr, inputs(normal(4, 3))),
    OpSpec("linalg.qr_wide", _qr_parts, _np_qr, inputs(normal(2, 3))),
    OpSpec("linalg.qr_full_square", lambda a: _qr_parts(a, True), lambda a: _np_qr(a, True),
           inputs(normal(2, 3, 3))),
    OpSpec("linalg.eig", _eig_invariants, _eig_ref, inputs(_distinct_eigen), grad_rtol=1e-4),
    OpSpec("linalg.eigvals", lambda a: dg.math.real(dg.linalg.eigvals(a)),
           lambda a: np.linalg.eigvals(a).real, inputs(_distinct_eigen), order=1),
    OpSpec("linalg.sqrtm", dg.linalg.sqrtm, lambda a: sl.sqrtm(a).real,
           inputs(_well_conditioned(3, 3))),
    OpSpec("linalg.lstsq", lambda a, b: dg.linalg.lstsq(a, b, l2_regularizer=0.1),
           lambda a, b: np.linalg.solve(a.T @ a + 0.1 * np.eye(3), a.T @ b),
           inputs(normal(5, 3), normal(5, 2))),
    OpSpec("raw_ops.MatrixSolveLs", _lstsq_kernel, lambda a, b: np.linalg.lstsq(a, b)[0],
           inputs(normal(5, 3), normal(5, 2)), order=1),
    OpSpec("raw_ops.MatrixSolveLs_underdetermined", _lstsq_kernel,
           lambda a, b: np.linalg.lstsq(a, b)[0], inputs(normal(2, 4), normal(2, 1)), order=1),
    OpSpec("linalg.lstsq_exact", lambda a, b: dg.linalg.lstsq(a, b, fast=False),
           lambda a, b: np.linalg.lstsq(a, b)[0], inputs(normal(5, 3), normal(5, 2)), order=0),
    OpSpec("linalg.tridiagonal_matmul", dg.linalg.tridiagonal_matmul,
           lambda d, b: _dense(d) @ b, inputs(_tridiagonal, normal(4, 2))),
    OpSpec("linalg.tridiagonal_solve", dg.linalg.tridiagonal_solve,
           lambda d, b: np.linalg.solve(_dense(d), b), inputs(_tridiagonal, normal(4, 2))),
    OpSpec("linalg.banded_triangular_solve", dg.linalg.banded_triangular_solve,
           lambda b, r: np.linalg.solve(_banded_dense_lower(b), r),
           inputs(_bands_lower, normal(4, 2))),
    OpSpec("linalg.banded_triangular_solve_upper_adjoint",
           lambda b, r: dg.linalg.banded_triangular_solve(b, r, lower=False, adjoint=True),
           lambda b, r: np.linalg.solve((np.diag(b[1]) + np.diag(b[0][:-1], 1)).T, r),
           inputs(lambda rng: _bands_lower(rng)[::-1].copy(), normal(4, 2))),
]
