"""Least squares (`dg.linalg.lstsq`, TF's MatrixSolveLs), tridiagonal products and solves
(`dg.linalg.tridiagonal_matmul` / `tridiagonal_solve`, TF's TridiagonalMatMul /
TridiagonalSolve), banded triangular solves (`dg.linalg.banded_triangular_solve`) and
`dg.linalg.cholesky_solve`, as TF.

lstsq with fast=True on statically shaped inputs is composed (Cholesky of the regularized
Gramian), as TF's; otherwise it is the MatrixSolveLs op. Tridiagonal matrices are given in
TF's formats ('compact' [..., 3, M]: superdiagonal, diagonal, subdiagonal rows;
'sequence'; 'matrix'); banded ones as [..., K, M] rows in TF's LEFT_RIGHT alignment.
Gradients: grad_registry/structured_solve_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, broadcast_shapes
from ..array import array_ops
from ..array.join_ops import concat, stack
from ..array.indexed_slices_ops import gather
from ..array.manip_ops import pad
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..math import math_ops
from ..math.complex_ops import conj
from ..math.matmul_ops import matmul
from . import linalg_ops, matrix_diag_ops


def _to_work(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32) if x.dtype == np.float16 else x


# -- cholesky_solve, lstsq ------------------------------------------------------------------
def cholesky_solve(chol: Any, rhs: Any, name: Optional[str] = None):
    """Solves A X = rhs given chol, the lower Cholesky factor of A."""
    y = linalg_ops.triangular_solve(chol, rhs, lower=True, adjoint=False)
    return linalg_ops.triangular_solve(chol, y, lower=True, adjoint=True, name=name)


def regularized_gramian_cholesky(matrix: Any, l2_regularizer: Any, first_kind: bool):
    """cholesky(A^H A + l2 I) (first kind) or cholesky(A A^H + l2 I) (second kind)."""
    gramian = matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if l2_regularizer is not None:
        gramian = matrix_diag_ops.set_diag(gramian, matrix_diag_ops.diag_part(gramian)
                                           + l2_regularizer)
    return linalg_ops.cholesky(gramian)


def _lstsq_kernel(matrix, rhs, l2_regularizer, *, fast):
    a, b = _to_work(matrix), _to_work(rhs)
    l2 = float(l2_regularizer)
    m, n = a.shape[-2], a.shape[-1]
    if b.shape[-2] != m:
        raise ValueError(f"MatrixSolveLs: matrix and rhs must have the same number of rows, "
                         f"got {m} and {b.shape[-2]}")
    if a.size == 0 or b.size == 0:
        # An empty system: X is [..., N, K] of zeros (TF: zeros for fast=True; its
        # fast=False kernel leaves the buffer uninitialised, zeros here).
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return np.zeros(batch + (n, b.shape[-1]), matrix.dtype)
    a_h = np.conj(np.swapaxes(a, -1, -2))
    if fast:
        if m >= n:
            gram = a_h @ a + l2 * np.eye(n, dtype=a.dtype)
            x = np.linalg.solve(gram, a_h @ b)
        else:
            gram = a @ a_h + l2 * np.eye(m, dtype=a.dtype)
            x = a_h @ np.linalg.solve(gram, b)
    else:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        aa = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
        bb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
        x = np.stack([np.linalg.lstsq(ai, bi, rcond=None)[0] for ai, bi in zip(aa, bb, strict=True)]) \
            if aa.shape[0] else np.zeros((0, n, b.shape[-1]), a.dtype)
        x = x.reshape(batch + (n, b.shape[-1]))
    return np.ascontiguousarray(x).astype(matrix.dtype)


def _lstsq_infer(inputs, attrs):
    a, b, l2 = inputs
    if b.dtype != a.dtype:
        raise TypeError(f"rhs has dtype {b.dtype.name}, expected {a.dtype.name}")
    if a.shape.rank is None or b.shape.rank is None:
        return [(a.dtype, TensorShape(None))]
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return [(a.dtype, batch.concatenate((a.shape[-1], b.shape[-1])))]


MATRIX_SOLVE_LS = declare_op("MatrixSolveLs", _lstsq_kernel, _lstsq_infer, input_kinds="fc",
                             grad_outputs=(0,))


_L2_CACHE_BYTES = 256000  # TF's guess: above it, a large batch runs the per-matrix kernel


def _composite(fast: bool, a: Any) -> bool:
    """TF's choice: the composed form for fast=True, except for inputs larger than the cache
    with more matrices than the smaller matrix order (then the MatrixSolveLs kernel). An
    input whose matrix order is unknown also takes the kernel here (TF composes under a
    cond)."""
    if not fast:
        return False
    shape = a.shape
    if shape.rank is None or shape[-2] is None or shape[-1] is None:
        return False
    if not shape.is_fully_defined():
        return True
    size = shape.num_elements() * np.dtype(a.dtype.as_numpy_dtype).itemsize
    io_bound = int(np.prod(shape.as_list()[:-2])) > min(shape[-2], shape[-1])
    return not (size > _L2_CACHE_BYTES and io_bound)


def lstsq(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True,
          name: Optional[str] = None):
    """The least-squares solution X of matrix X = rhs (minimum norm when underdetermined),
    with an optional l2 regularizer (fast=True: normal equations via Cholesky)."""
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype=a.dtype)
    if _composite(fast, a):
        l2 = math_ops.cast(convert_to_tensor(l2_regularizer, dtype_hint=a.dtype), a.dtype) \
            if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0 else None
        if a.shape[-2] >= a.shape[-1]:
            chol = regularized_gramian_cholesky(a, l2, first_kind=True)
            return cholesky_solve(chol, matmul(a, b, adjoint_a=True), name=name)
        chol = regularized_gramian_cholesky(a, l2, first_kind=False)
        return matmul(a, cholesky_solve(chol, b), adjoint_a=True, name=name)
    l2_t = convert_to_tensor(l2_regularizer, dtype="float64") \
        if not isinstance(l2_regularizer, Tensor) else math_ops.cast(l2_regularizer, "float64")
    return apply_op(MATRIX_SOLVE_LS, (a, b, l2_t), {"fast": bool(fast)}, name)


# -- tridiagonal ----------------------------------------------------------------------------
def _dense_tridiagonal(superdiag, maindiag, subdiag):
    """[..., M, M] from the three [..., M] diagonals (superdiag[-1], subdiag[0] unused)."""
    m = maindiag.shape[-1]
    out = np.zeros(maindiag.shape + (m,), np.result_type(superdiag, maindiag, subdiag))
    i = np.arange(m)
    out[..., i, i] = maindiag
    out[..., i[:-1], i[:-1] + 1] = superdiag[..., :-1]
    out[..., i[1:], i[1:] - 1] = subdiag[..., 1:]
    return out


def _tridiagonal_matmul_kernel(superdiag, maindiag, subdiag, rhs):
    dense = _dense_tridiagonal(superdiag[..., 0, :], maindiag[..., 0, :], subdiag[..., 0, :])
    return np.ascontiguousarray(dense @ rhs).astype(rhs.dtype)


def _tridiagonal_matmul_infer(inputs, attrs):
    rhs = inputs[3]
    for t in inputs[:3]:
        if t.dtype != rhs.dtype:
            raise TypeError(f"TridiagonalMatMul: diagonals of dtype {t.dtype.name}, rhs "
                            f"{rhs.dtype.name}")
    return [(rhs.dtype, rhs.shape)]


TRIDIAGONAL_MAT_MUL = declare_op("TridiagonalMatMul", _tridiagonal_matmul_kernel,
                                 _tridiagonal_matmul_infer, input_kinds="fc")


def _tridiagonal_solve_kernel(diagonals, rhs, *, partial_pivoting, perturb_singular):
    if diagonals.shape[-2] != 3:
        raise ValueError(f"TridiagonalSolve: diagonals must have shape [..., 3, M], got "
                         f"{list(diagonals.shape)}")
    dense = _dense_tridiagonal(diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :])
    try:
        x = np.linalg.solve(_to_work(dense), _to_work(rhs))
    except np.linalg.LinAlgError:
        raise ValueError("TridiagonalSolve: the matrix is not invertible") from None
    return np.ascontiguousarray(x).astype(rhs.dtype)


def _tridiagonal_solve_infer(inputs, attrs):
    diagonals, rhs = inputs
    if diagonals.dtype != rhs.dtype:
        raise TypeError(f"TridiagonalSolve: diagonals of dtype {diagonals.dtype.name}, rhs "
                        f"{rhs.dtype.name}")
    if diagonals.shape.rank is not None and diagonals.shape[-2] not in (None, 3):
        raise ValueError(f"Expected diagonals of shape [..., 3, M], got {diagonals.shape}")
    return [(rhs.dtype, rhs.shape)]


TRIDIAGONAL_SOLVE = declare_op("TridiagonalSolve", _tridiagonal_solve_kernel,
                               _tridiagonal_solve_infer, input_kinds="fc", grad_inputs=(0,),
                               grad_outputs=(0,))


def _three_diagonals(diagonals: Any, diagonals_format: str):
    """(superdiag, maindiag, subdiag), each [..., M], from any of TF's formats."""
    if diagonals_format == "compact":
        d = convert_to_tensor(diagonals)
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    if diagonals_format == "sequence":
        superdiag, maindiag, subdiag = (convert_to_tensor(t) for t in diagonals)
        return superdiag, maindiag, subdiag
    if diagonals_format == "matrix":
        m = convert_to_tensor(diagonals)
        rank = m.shape.rank
        if rank is None:
            raise ValueError("tridiagonal matrices in 'matrix' format need a known rank")
        edge = [[0, 0]] * (rank - 2)
        maindiag = matrix_diag_ops.diag_part(m)
        superdiag = pad(matrix_diag_ops.diag_part(m[..., :-1, 1:]), edge + [[0, 1]])
        subdiag = pad(matrix_diag_ops.diag_part(m[..., 1:, :-1]), edge + [[1, 0]])
        return superdiag, maindiag, subdiag
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                       name: Optional[str] = None):
    """The product of tridiagonal matrices and rhs [..., M, N]."""
    superdiag, maindiag, subdiag = _three_diagonals(diagonals, diagonals_format)
    rhs = convert_to_tensor(rhs, dtype=maindiag.dtype)
    return apply_op(TRIDIAGONAL_MAT_MUL, (array_ops.expand_dims(superdiag, -2),
                                          array_ops.expand_dims(maindiag, -2),
                                          array_ops.expand_dims(subdiag, -2), rhs), name=name)


def tridiagonal_solve(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                      transpose_rhs: bool = False, conjugate_rhs: bool = False,
                      name: Optional[str] = None, partial_pivoting: bool = True,
                      perturb_singular: bool = False):
    """Solves tridiagonal systems A X = rhs ([..., M, K], or [..., M] as a vector)."""
    if diagonals_format == "compact":
        d = convert_to_tensor(diagonals)
    else:
        d = stack(list(_three_diagonals(diagonals, diagonals_format)), axis=-2)
    rhs = convert_to_tensor(rhs, dtype=d.dtype)
    vector = rhs.shape.rank is not None and d.shape.rank is not None and \
        rhs.shape.rank == d.shape.rank - 1
    if vector:
        rhs = array_ops.expand_dims(rhs, -1)
    elif transpose_rhs:
        rhs = linalg_ops.matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = conj(rhs)
    if vector and conjugate_rhs:
        rhs = conj(rhs)
    x = apply_op(TRIDIAGONAL_SOLVE, (d, rhs), {"partial_pivoting": bool(partial_pivoting),
                                              "perturb_singular": bool(perturb_singular)}, name)
    return array_ops.squeeze(x, [-1]) if vector else x


# -- banded triangular ------------------------------------------------------------------------
def band_indices(num_bands: int, m: int, lower: bool) -> np.ndarray:
    """For the [K, M] band rows (LEFT_RIGHT alignment), the flat index i * M + j of the
    dense [M, M] entry each holds, and M * M for padding."""
    out = np.full((num_bands, m), m * m, np.int64)
    for row in range(num_bands):
        k = -row if lower else num_bands - 1 - row       # the diagonal this row holds
        for j in range(m):
            if k >= 0 and j + k < m:                        # superdiagonal: left-aligned
                out[row, j] = j * m + j + k
            elif k < 0 and j + k >= 0:                      # subdiagonal: right-aligned
                out[row, j] = j * m + j + k
    return out


def _dense_banded(bands, lower: bool):
    k, m = bands.shape[-2], bands.shape[-1]
    index = band_indices(k, m, lower).reshape(-1)
    flat = np.zeros(bands.shape[:-2] + (m * m + 1,), bands.dtype)
    flat[..., index] = bands.reshape(bands.shape[:-2] + (-1,))
    return flat[..., :m * m].reshape(bands.shape[:-2] + (m, m))


def _banded_kernel(bands, rhs, *, lower, adjoint):
    if bands.shape[-2] > bands.shape[-1]:
        raise ValueError(f"BandedTriangularSolve: more bands ({bands.shape[-2]}) than the "
                         f"matrix order ({bands.shape[-1]})")
    dense = _dense_banded(_to_work(bands), lower)
    if adjoint:
        dense = np.conj(np.swapaxes(dense, -1, -2))
    with np.errstate(all="ignore"):
        try:
            x = np.linalg.solve(dense, _to_work(rhs))
        except np.linalg.LinAlgError:
            raise ValueError("BandedTriangularSolve: Input matrix is not invertible.") from None
    return np.ascontiguousarray(x).astype(rhs.dtype)


def _banded_infer(inputs, attrs):
    bands, rhs = inputs
    if bands.dtype != rhs.dtype:
        raise TypeError(f"BandedTriangularSolve: bands of dtype {bands.dtype.name}, rhs "
                        f"{rhs.dtype.name}")
    if bands.shape.rank is None or rhs.shape.rank is None:
        return [(rhs.dtype, TensorShape(None))]
    k, m, rows = bands.shape[-2], bands.shape[-1], rhs.shape[-2]
    if m is not None and rows is not None and m != rows:
        raise ValueError(f"Dimensions must be equal, but are {m} and {rows} for "
                         f"BandedTriangularSolve (bands {bands.shape}, rhs {rhs.shape})")
    if k is not None and m is not None and k > m:
        raise ValueError(f"BandedTriangularSolve: the number of bands {k} must be at most the "
                         f"matrix order {m}")
    batch = broadcast_shapes(bands.shape[:-2], rhs.shape[:-2])
    return [(rhs.dtype, batch.concatenate(rhs.shape[-2:]))]


BANDED_TRIANGULAR_SOLVE = declare_op("BandedTriangularSolve", _banded_kernel, _banded_infer,
                                     input_kinds="fc", grad_inputs=(0,), grad_outputs=(0,))


def banded_triangular_solve(bands: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                            name: Optional[str] = None):
    """Solves A X = rhs (or A^H X = rhs) for triangular A given by its K bands."""
    b = convert_to_tensor(bands)
    return apply_op(BANDED_TRIANGULAR_SOLVE, (b, convert_to_tensor(rhs, dtype=b.dtype)),
                    {"lower": bool(lower), "adjoint": bool(adjoint)}, name)


def bands_of(matrix: Any, num_bands: int, lower: bool):
    """The [..., K, M] band rows of dense [..., M, M] matrices (TF's matrix_diag_part with
    k = (-(K-1), 0) or (0, K-1) and LEFT_RIGHT alignment), by a gather."""
    m = matrix.shape[-1]
    flat = array_ops.reshape(matrix, concat([array_ops.shape_tensor(matrix)[:-2],
                                             [m * m]], 0))
    flat = concat([flat, array_ops.zeros_like(flat[..., :1])], -1)
    return gather(flat, constant(band_indices(num_bands, m, lower)), axis=-1)


LINALG_NAMES = {"lstsq": lstsq, "tridiagonal_matmul": tridiagonal_matmul,
                "tridiagonal_solve": tridiagonal_solve,
                "banded_triangular_solve": banded_triangular_solve,
                "cholesky_solve": cholesky_solve}
