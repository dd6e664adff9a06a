"""Op-table rows for dg.linalg: forward vs NumPy, graph == eager, gradients.

Spectral ops (eigh, svd) are checked to order 1 through gauge-invariant
functions of their outputs (eigenvalues, squared eigen/singular vector entries),
on inputs with well separated eigen/singular values. Everything else is checked
to order 2.
"""
from __future__ import annotations

import numpy as np

import duograd as dg
from .spec import OpSpec, inputs, normal

la = dg.linalg


def well_conditioned(*shape):
    """Random matrices plus 4 I: invertible with a modest condition number."""
    return lambda rng: rng.standard_normal(shape) + 4 * np.eye(shape[-1])


def spd_ish(*shape):
    """B B^T + n I plus a small non-symmetric part (the tested function symmetrizes)."""
    def make(rng):
        b = rng.standard_normal(shape)
        return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1]) \
            + 0.1 * rng.standard_normal(shape)
    return make


def separated_symmetric(*shape):
    """Symmetric matrices with eigenvalues about -2, 0.5, 3, 6, ... (distinct)."""
    def make(rng):
        n = shape[-1]
        q, _ = np.linalg.qr(rng.standard_normal(shape))
        evals = np.array([-2.0, 0.5, 3.0, 6.0, 9.5][:n])
        return (q * evals) @ np.swapaxes(q, -1, -2)
    return make


def separated_singular(*shape):
    """Matrices with singular values about 5, 3, 1.5, 0.7 (distinct, nonzero)."""
    def make(rng):
        m, n = shape[-2:]
        k = min(m, n)
        u, _ = np.linalg.qr(rng.standard_normal(shape[:-2] + (m, m)))
        v, _ = np.linalg.qr(rng.standard_normal(shape[:-2] + (n, n)))
        s = np.array([5.0, 3.0, 1.5, 0.7][:k])
        return (u[..., :, :k] * s) @ np.swapaxes(v[..., :, :k], -1, -2)
    return make


def _sym(a):
    return (a + la.matrix_transpose(a)) * 0.5


def _np_sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


def _t(a):
    return np.swapaxes(a, -1, -2)


def _eigh_invariants(a):
    """Eigenvalues stacked over squared eigenvector entries (sign-invariant)."""
    e, v = la.eigh(a)
    return dg.concat([dg.expand_dims(e, -2), v * v], axis=-2)


def _np_eigh_invariants(a):
    e, v = np.linalg.eigh(a)
    return np.concatenate([e[..., None, :], v * v], axis=-2)


def _svd_invariants(full_matrices):
    """s, squared entries of u and v, and (thin case) u v^T: all sign-invariant."""
    def fn(a):
        s, u, v = la.svd(a, full_matrices=full_matrices)
        parts = [dg.reshape(s, [-1]), dg.reshape(u * u, [-1]), dg.reshape(v * v, [-1])]
        if not full_matrices:
            parts.append(dg.reshape(dg.matmul(u, v, transpose_b=True), [-1]))
        return dg.concat(parts, axis=0)
    return fn


def _np_svd_invariants(full_matrices):
    def ref(a):
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
        v = _t(vh)
        parts = [s.reshape(-1), (u * u).reshape(-1), (v * v).reshape(-1)]
        if not full_matrices:
            parts.append((u @ vh).reshape(-1))
        return np.concatenate(parts)
    return ref


def complex_well_conditioned(*shape):
    return lambda rng: (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
                        + 4 * np.eye(shape[-1]))


def complex_normal(*shape):
    return lambda rng: rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _herm(a):
    return (a + la.adjoint(a)) * 0.5


def _np_herm(a):
    return (a + np.conj(_t(a))) / 2


def _abs2(z):
    return dg.math.real(z * dg.math.conj(z))


def _complex_eigh_invariants(a):
    """Real eigenvalues over |v|^2 (phase-invariant) of the Hermitian part of a."""
    e, v = la.eigh(_herm(a))
    return dg.concat([dg.expand_dims(dg.math.real(e), -2), _abs2(v)], axis=-2)


def _np_complex_eigh_invariants(a):
    e, v = np.linalg.eigh(_np_herm(a))
    return np.concatenate([e[..., None, :], np.abs(v) ** 2], axis=-2)


def _complex_svd_invariants(a):
    """s, |u|^2, |v|^2 and u v^H (phase-invariant), flattened into one real vector."""
    s, u, v = la.svd(a)
    recon = dg.matmul(u, v, adjoint_b=True)
    parts = [s, _abs2(u), _abs2(v), dg.math.real(recon), dg.math.imag(recon)]
    return dg.concat([dg.reshape(p, [-1]) for p in parts], axis=0)


def _np_complex_svd_invariants(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    recon = u @ vh
    parts = [s, np.abs(u) ** 2, np.abs(_t(vh)) ** 2, recon.real, recon.imag]
    return np.concatenate([p.reshape(-1) for p in parts])


def _tensor_diag_ref(d):
    return np.diag(d.reshape(-1)).reshape(d.shape + d.shape)


ROWS = [
    OpSpec("linalg_matvec", la.matvec, lambda a, b: np.einsum("...ij,...j->...i", a, b),
           inputs(normal(2, 3, 4), normal(2, 4))),
    OpSpec("linalg_matvec_transpose_a", lambda a, b: la.matvec(a, b, transpose_a=True),
           lambda a, b: a.T @ b, inputs(normal(3, 4), normal(3))),
    OpSpec("linalg_matmul", la.matmul, np.matmul, inputs(normal(2, 2, 3), normal(2, 3, 2))),
    OpSpec("linalg_inv", la.inv, np.linalg.inv, inputs(well_conditioned(3, 3))),
    OpSpec("linalg_inv_batch", la.inv, np.linalg.inv, inputs(well_conditioned(2, 3, 3))),
    OpSpec("linalg_inv_adjoint", lambda a: la.inv(a, adjoint=True),
           lambda a: _t(np.linalg.inv(a)), inputs(well_conditioned(2, 3, 3))),
    OpSpec("linalg_det", la.det, np.linalg.det, inputs(well_conditioned(3, 3))),
    OpSpec("linalg_det_batch", la.det, np.linalg.det, inputs(well_conditioned(2, 1, 3, 3))),
    OpSpec("linalg_slogdet", la.slogdet, lambda a: list(np.linalg.slogdet(a)),
           inputs(lambda rng: rng.standard_normal((3, 3, 3))
                  + np.array([4., -4., 4.])[:, None, None] * np.eye(3))),
    OpSpec("linalg_solve", la.solve, np.linalg.solve,
           inputs(well_conditioned(3, 3), normal(3, 2))),
    OpSpec("linalg_solve_batch", la.solve, np.linalg.solve,
           inputs(well_conditioned(2, 3, 3), normal(2, 3, 1))),
    OpSpec("linalg_solve_adjoint", lambda a, b: la.solve(a, b, adjoint=True),
           lambda a, b: np.linalg.solve(_t(a), b),
           inputs(well_conditioned(2, 3, 3), normal(2, 3, 2))),
    OpSpec("linalg_cholesky", lambda a: la.cholesky(_sym(a)),
           lambda a: np.linalg.cholesky(_np_sym(a)), inputs(spd_ish(3, 3))),
    OpSpec("linalg_cholesky_batch", lambda a: la.cholesky(_sym(a)),
           lambda a: np.linalg.cholesky(_np_sym(a)), inputs(spd_ish(2, 3, 3))),
    OpSpec("linalg_triangular_solve_lower", la.triangular_solve,
           lambda a, b: np.linalg.solve(np.tril(a), b),
           inputs(well_conditioned(3, 3), normal(3, 2))),
    OpSpec("linalg_triangular_solve_upper_adjoint",
           lambda a, b: la.triangular_solve(a, b, lower=False, adjoint=True),
           lambda a, b: np.linalg.solve(_t(np.triu(a)), b),
           inputs(well_conditioned(2, 3, 3), normal(2, 3, 2))),
    OpSpec("linalg_triangular_solve_broadcast", la.triangular_solve,
           lambda a, b: np.linalg.solve(np.tril(a), b),
           inputs(well_conditioned(3, 3), normal(2, 3, 2))),
    OpSpec("linalg_trace", la.trace, lambda x: np.trace(x, axis1=-2, axis2=-1),
           inputs(normal(2, 3, 4))),
    OpSpec("linalg_diag_part_square", la.diag_part,
           lambda x: np.diagonal(x, axis1=-2, axis2=-1), inputs(normal(2, 3, 3))),
    OpSpec("linalg_diag_part_wide", la.diag_part,
           lambda x: np.diagonal(x, axis1=-2, axis2=-1), inputs(normal(2, 3, 4))),
    OpSpec("linalg_diag", la.diag, lambda d: d[..., None] * np.eye(3), inputs(normal(2, 3))),
    OpSpec("linalg_set_diag", la.set_diag,
           lambda x, d: np.where(np.eye(4, 3, dtype=bool), d[..., None, :], x),
           inputs(normal(2, 4, 3), normal(2, 3))),
    OpSpec("linalg_band_part", lambda x: la.band_part(x, 1, 0),
           lambda x: np.tril(x) - np.tril(x, -2), inputs(normal(2, 4, 3))),
    OpSpec("linalg_band_part_upper", lambda x: la.band_part(x, 0, -1), np.triu,
           inputs(normal(3, 4))),
    OpSpec("linalg_tensor_diag", la.tensor_diag, _tensor_diag_ref, inputs(normal(2, 3))),
    OpSpec("linalg_tensor_diag_part", la.tensor_diag_part,
           lambda x: np.diagonal(x.reshape(6, 6)).reshape(2, 3), inputs(normal(2, 3, 2, 3))),
    OpSpec("linalg_eigh", _eigh_invariants, _np_eigh_invariants,
           inputs(separated_symmetric(4, 4)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_eigh_batch_symmetrized", lambda a: _eigh_invariants(_sym(a)),
           lambda a: _np_eigh_invariants(_np_sym(a)),
           inputs(separated_symmetric(2, 3, 3)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_eigvalsh", la.eigvalsh, np.linalg.eigvalsh,
           inputs(separated_symmetric(2, 3, 3)), order=1),
    OpSpec("linalg_svd_square", _svd_invariants(False), _np_svd_invariants(False),
           inputs(separated_singular(3, 3)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_svd_wide_batch", _svd_invariants(False), _np_svd_invariants(False),
           inputs(separated_singular(2, 2, 4)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_svd_tall", _svd_invariants(False), _np_svd_invariants(False),
           inputs(separated_singular(4, 3)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_svd_full_wide", _svd_invariants(True), _np_svd_invariants(True),
           inputs(separated_singular(2, 3)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_svd_full_tall", _svd_invariants(True), _np_svd_invariants(True),
           inputs(separated_singular(4, 3)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_svd_values", lambda a: la.svd(a, compute_uv=False),
           lambda a: np.linalg.svd(a, compute_uv=False), inputs(separated_singular(2, 3, 4)),
           order=1),
    OpSpec("linalg_complex_inv", la.inv, np.linalg.inv, inputs(complex_well_conditioned(2, 3, 3))),
    OpSpec("linalg_complex_inv_adjoint", lambda a: la.inv(a, adjoint=True),
           lambda a: np.conj(_t(np.linalg.inv(a))), inputs(complex_well_conditioned(3, 3))),
    OpSpec("linalg_complex_det", la.det, np.linalg.det, inputs(complex_well_conditioned(2, 3, 3))),
    OpSpec("linalg_complex_slogdet", la.slogdet, lambda a: list(np.linalg.slogdet(a)),
           inputs(complex_well_conditioned(2, 3, 3))),
    OpSpec("linalg_complex_solve_adjoint", lambda a, b: la.solve(a, b, adjoint=True),
           lambda a, b: np.linalg.solve(np.conj(_t(a)), b),
           inputs(complex_well_conditioned(2, 3, 3), complex_normal(2, 3, 2))),
    OpSpec("linalg_complex_cholesky", lambda a: la.cholesky(_herm(a)),
           lambda a: np.linalg.cholesky(_np_herm(a)), inputs(complex_well_conditioned(3, 3))),
    OpSpec("linalg_complex_triangular_solve",
           lambda a, b: la.triangular_solve(a, b, lower=False, adjoint=True),
           lambda a, b: np.linalg.solve(np.conj(_t(np.triu(a))), b),
           inputs(complex_well_conditioned(3, 3), complex_normal(2, 3, 2))),
    OpSpec("linalg_complex_eigh", _complex_eigh_invariants, _np_complex_eigh_invariants,
           inputs(complex_normal(2, 3, 3)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_complex_svd", _complex_svd_invariants, _np_complex_svd_invariants,
           inputs(complex_normal(3, 3)), order=1, rtol=1e-6, atol=1e-9),
    OpSpec("linalg_complex_norm", lambda x: la.norm(x, axis=-1),
           lambda x: np.linalg.norm(x, axis=-1), inputs(complex_normal(2, 3))),
    OpSpec("linalg_norm", la.norm, np.linalg.norm, inputs(normal(2, 3))),
    OpSpec("linalg_norm_axis", lambda x: la.norm(x, axis=1, keepdims=True),
           lambda x: np.linalg.norm(x, axis=1, keepdims=True), inputs(normal(2, 3))),
    OpSpec("linalg_norm_fro", lambda x: la.norm(x, "fro", axis=(-2, -1)),
           lambda x: np.linalg.norm(x, "fro", axis=(-2, -1)), inputs(normal(2, 3, 4))),
    OpSpec("linalg_norm_1", lambda x: la.norm(x, 1, axis=-1),
           lambda x: np.linalg.norm(x, 1, axis=-1), inputs(normal(2, 3))),
    OpSpec("linalg_norm_inf", lambda x: la.norm(x, np.inf, axis=0),
           lambda x: np.linalg.norm(x, np.inf, axis=0), inputs(normal(4, 3))),
    OpSpec("linalg_norm_p3", lambda x: la.norm(x, 3, axis=-1),
           lambda x: np.sum(np.abs(x) ** 3, -1) ** (1 / 3), inputs(normal(2, 3))),
    OpSpec("linalg_norm_matrix_1", lambda x: la.norm(x, 1, axis=(1, 2), keepdims=True),
           lambda x: np.linalg.norm(x, 1, axis=(1, 2), keepdims=True), inputs(normal(2, 3, 4))),
    OpSpec("linalg_norm_matrix_inf", lambda x: la.norm(x, "inf", axis=(0, 1)),
           lambda x: np.linalg.norm(x, np.inf, axis=(0, 1)), inputs(normal(3, 4))),
    OpSpec("linalg_norm_matrix_2", lambda x: la.norm(x, 2, axis=(0, 2)),
           lambda x: np.linalg.norm(x, 2, axis=(0, 2)), inputs(normal(3, 2, 3))),
]
