"""Dense linear algebra on batches of matrices (leading axes are batch axes).

Op types are TensorFlow's: MatrixInverse, MatrixDeterminant, LogMatrixDeterminant,
MatrixSolve, Cholesky, MatrixTriangularSolve, SelfAdjointEigV2, Svd. Kernels use
NumPy's LAPACK bindings (float16 is computed in float32 and cast back). Bad
matrices (singular, not positive definite) raise ValueError or LinAlgError in the
kernel, which both modes turn into InvalidArgumentError naming the op.
Gradients (TensorFlow's formulas): grad_registry/linalg_grad.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape, broadcast_shapes
from ..arg_errors import bool_attr
from ..array.array_ops import expand_dims, squeeze, transpose
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..math.matmul_ops import matmul
from ..op_helpers import apply_unary, binary_operands
from ..shape_rules import check_same_dtype

FLOAT = "fc"


def _lapack(func):
    """Runs `func` on float16 input in float32 (LAPACK has no half precision)."""
    def kernel(x, *args, **attrs):
        if x.dtype == np.float16:
            out = func(x.astype(np.float32), *[a.astype(np.float32) for a in args], **attrs)
            if isinstance(out, tuple):
                return tuple(o.astype(np.float16) for o in out)
            return out.astype(np.float16)
        return func(x, *args, **attrs)
    kernel.__name__ = func.__name__
    return kernel


def _matrix_parts(shape: TensorShape, square: bool):
    """(batch, rows, cols) of a static shape [..., m, n]; None for unknown rank."""
    if shape.rank is None:
        return None
    if shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {shape.rank} (shape {shape})")
    m, n = shape[-2], shape[-1]
    if square and m is not None and n is not None and m != n:
        raise ValueError(f"Input matrices must be square, got shape {shape} "
                         f"(dimensions must be equal, but are {m} and {n})")
    if square:
        m = n = m if m is not None else n
    return shape[:-2], m, n


def _square_same(inputs, attrs):
    x = inputs[0]
    parts = _matrix_parts(x.shape, square=True)
    if parts is None:
        return [(x.dtype, TensorShape(None))]
    batch, m, n = parts
    return [(x.dtype, batch.concatenate((m, n)))]


def _square_to_batch(num_outputs: int):
    def infer(inputs, attrs):
        x = inputs[0]
        parts = _matrix_parts(x.shape, square=True)
        batch = TensorShape(None) if parts is None else parts[0]
        return [(x.dtype, batch)] * num_outputs
    return infer


# -- inverse, determinants ---------------------------------------------------------------
def _inv_kernel(x, *, adjoint=False):
    try:
        out = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise ValueError("Input is not invertible.") from None
    return np.conj(np.swapaxes(out, -1, -2)) if adjoint else out


def _det_kernel(x):
    return np.asarray(np.linalg.det(x), dtype=x.dtype)


def _slogdet_kernel(x):
    sign, logdet = np.linalg.slogdet(x)
    return np.asarray(sign, dtype=x.dtype), np.asarray(logdet, dtype=x.dtype)


MATRIX_INVERSE = declare_op("MatrixInverse", _lapack(_inv_kernel), _square_same,
                            input_kinds=FLOAT, grad_inputs=(), grad_outputs=(0,))
MATRIX_DETERMINANT = declare_op("MatrixDeterminant", _lapack(_det_kernel), _square_to_batch(1),
                                input_kinds=FLOAT, grad_inputs=(0,), grad_outputs=(0,))
LOG_MATRIX_DETERMINANT = declare_op("LogMatrixDeterminant", _lapack(_slogdet_kernel),
                                    _square_to_batch(2), num_outputs=2, input_kinds=FLOAT,
                                    grad_inputs=(0,), grad_outputs=(0,))


# -- solves ---------------------------------------------------------------------------------
def _solve_kernel(matrix, rhs, *, adjoint=False):
    if matrix.shape[:-2] != rhs.shape[:-2] or matrix.shape[-1] != rhs.shape[-2]:
        raise ValueError(f"matrix of shape {matrix.shape} and rhs of shape {rhs.shape} are "
                         "incompatible (need [..., M, M] and [..., M, K] with equal batch axes)")
    if adjoint:
        matrix = np.conj(np.swapaxes(matrix, -1, -2))
    try:
        return np.linalg.solve(matrix, rhs)
    except np.linalg.LinAlgError:
        raise ValueError("Input matrix is not invertible.") from None


def _system_parts(inputs):
    """dtype, (batch, m) of a square matrix and (batch, m, k) of a right-hand side;
    None for the parts when a rank is unknown."""
    matrix, rhs = inputs
    dtype = check_same_dtype(inputs)
    parts = _matrix_parts(matrix.shape, square=True)
    rhs_parts = _matrix_parts(rhs.shape, square=False)
    if parts is None or rhs_parts is None:
        return dtype, None, None
    return dtype, parts, rhs_parts


def _solve_infer(inputs, attrs):
    matrix, rhs = inputs
    dtype, parts, rhs_parts = _system_parts(inputs)
    if parts is None:
        return [(dtype, TensorShape(None))]
    batch, m, _ = parts
    rhs_batch, rhs_m, k = rhs_parts
    if batch.rank != rhs_batch.rank or not batch.is_compatible_with(rhs_batch):
        raise ValueError(f"matrix of shape {matrix.shape} and rhs of shape {rhs.shape} must "
                         "have the same batch dimensions")
    if m is not None and rhs_m is not None and m != rhs_m:
        raise ValueError(f"Dimensions must be equal, but are {m} and {rhs_m} "
                         f"(matrix {matrix.shape}, rhs {rhs.shape})")
    return [(dtype, batch.merge_with(rhs_batch).concatenate((m if m is not None else rhs_m, k)))]


def _triangular_solve_kernel(matrix, rhs, *, lower=True, adjoint=False):
    """TF 2.21 substitutes whatever the diagonal: a zero on it gives Inf or NaN in the
    unknowns that depend on it, not an error."""
    tri = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        tri = np.conj(np.swapaxes(tri, -1, -2))
    batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    tri = np.broadcast_to(tri, batch + matrix.shape[-2:])
    rhs = np.broadcast_to(rhs, batch + rhs.shape[-2:])
    if not np.isfinite(tri).all() or np.any(np.diagonal(tri, axis1=-2, axis2=-1) == 0):
        return _substitute(tri, rhs, lower != adjoint)
    return np.linalg.solve(tri, rhs)


def _substitute(tri: np.ndarray, rhs: np.ndarray, lower: bool) -> np.ndarray:
    """Forward (lower) or back substitution: a NaN or Inf in the matrix, or a zero on
    its diagonal, reaches exactly the unknowns that depend on it, as in TF (LU
    pivoting would not)."""
    n = tri.shape[-1]
    out = np.zeros(np.broadcast_shapes(tri.shape[:-1], rhs.shape[:-1]) + rhs.shape[-1:],
                   np.result_type(tri, rhs))
    with np.errstate(divide="ignore", invalid="ignore"):   # Inf and NaN are the answer
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            known = slice(0, i) if lower else slice(i + 1, n)
            partial = np.einsum("...j,...jk->...k", tri[..., i, known], out[..., known, :])
            out[..., i, :] = (rhs[..., i, :] - partial) / tri[..., i, i:i + 1]
    return out


def _triangular_solve_infer(inputs, attrs):
    matrix, rhs = inputs
    dtype, parts, rhs_parts = _system_parts(inputs)
    if parts is None:
        return [(dtype, TensorShape(None))]
    batch, m, _ = parts
    rhs_batch, rhs_m, k = rhs_parts
    if m is not None and rhs_m is not None and m != rhs_m:
        raise ValueError(f"Dimensions must be equal, but are {m} and {rhs_m} "
                         f"(matrix {matrix.shape}, rhs {rhs.shape})")
    out_batch = broadcast_shapes(batch, rhs_batch)
    return [(dtype, out_batch.concatenate((m if m is not None else rhs_m, k)))]


MATRIX_SOLVE = declare_op("MatrixSolve", _lapack(_solve_kernel), _solve_infer, input_kinds=FLOAT,
                          grad_inputs=(0,), grad_outputs=(0,),
                          same_dtype=slice(None))
MATRIX_TRIANGULAR_SOLVE = declare_op("MatrixTriangularSolve", _lapack(_triangular_solve_kernel),
                                     _triangular_solve_infer, input_kinds=FLOAT,
                                     grad_inputs=(0,), grad_outputs=(0,),
                                     same_dtype=slice(None))


# -- decompositions ---------------------------------------------------------------------------
def _cholesky_kernel(x):
    """The lower Cholesky factor of each matrix; as TF 2.21, a matrix that is not
    positive definite gets NaN in its lower triangle (zeros above), not an error."""
    try:
        return np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        pass
    out = np.zeros(x.shape, x.dtype)
    flat_in = x.reshape((-1,) + x.shape[-2:])
    flat_out = out.reshape(flat_in.shape)
    failed = np.tril(np.ones(x.shape[-2:], bool))
    for i, matrix in enumerate(flat_in):
        try:
            flat_out[i] = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError:
            flat_out[i][failed] = np.nan
    return out


def _eigh_kernel(x, *, compute_v=True):
    if compute_v:
        e, v = np.linalg.eigh(x, UPLO="L")
        return e.astype(x.dtype), v
    return np.linalg.eigvalsh(x, UPLO="L").astype(x.dtype), np.zeros((0,), x.dtype)


def _eigh_infer(inputs, attrs):
    x = inputs[0]
    parts = _matrix_parts(x.shape, square=True)
    if parts is None:
        e_shape = v_shape = TensorShape(None)
    else:
        batch, n, _ = parts
        e_shape, v_shape = batch.concatenate((n,)), batch.concatenate((n, n))
    if not attrs.get("compute_v", True):
        v_shape = TensorShape((0,))
    return [(x.dtype, e_shape), (x.dtype, v_shape)]


def _svd_kernel(x, *, compute_uv=True, full_matrices=False):
    bad = ~np.isfinite(x).all(axis=(-2, -1))  # LAPACK rejects these: TF answers NaN
    if bad.any():
        x = np.where(bad[..., None, None], 0, x)
    if not compute_uv:
        empty = np.zeros((0,), x.dtype)
        s = np.linalg.svd(x, compute_uv=False)
        return _nan_where(bad, s), empty, empty
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    v = np.ascontiguousarray(np.conj(np.swapaxes(vh, -1, -2)))
    return _nan_where(bad, s), _nan_where(bad, u), _nan_where(bad, v)


def _nan_where(bad: np.ndarray, value: np.ndarray) -> np.ndarray:
    """`value` with the batch items marked in `bad` set to NaN."""
    if not bad.any():
        return value
    value = value.copy()
    value[bad] = np.nan
    return value


def _svd_infer(inputs, attrs):
    x = inputs[0]
    real = x.dtype.real_dtype
    parts = _matrix_parts(x.shape, square=False)
    if not attrs.get("compute_uv", True):
        s_shape = TensorShape(None) if parts is None else \
            parts[0].concatenate((None if None in parts[1:] else min(parts[1:]),))
        return [(real, s_shape), (x.dtype, TensorShape((0,))), (x.dtype, TensorShape((0,)))]
    if parts is None:
        return [(real, TensorShape(None)), (x.dtype, TensorShape(None)),
                (x.dtype, TensorShape(None))]
    batch, m, n = parts
    k = None if m is None or n is None else min(m, n)
    full = attrs.get("full_matrices", False)
    return [(real, batch.concatenate((k,))),
            (x.dtype, batch.concatenate((m, m if full else k))),
            (x.dtype, batch.concatenate((n, n if full else k)))]


CHOLESKY = declare_op("Cholesky", _lapack(_cholesky_kernel), _square_same, input_kinds=FLOAT,
                      grad_inputs=(), grad_outputs=(0,))
SELF_ADJOINT_EIG = declare_op("SelfAdjointEigV2", _lapack(_eigh_kernel), _eigh_infer,
                              num_outputs=2, input_kinds=FLOAT, grad_inputs=(0,),
                              grad_outputs=(0, 1))
SVD = declare_op("Svd", _lapack(_svd_kernel), _svd_infer, num_outputs=3, input_kinds=FLOAT,
                 grad_inputs=(0,), grad_outputs=(0, 1, 2))


# -- public functions ---------------------------------------------------------------------------
def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False):
    """Swaps the last two axes (conjugating complex values when `conjugate`)."""
    a = convert_to_tensor(a)
    rank = a.shape.rank
    if rank is None:
        raise ValueError("matrix_transpose needs a tensor of known rank")
    if rank < 2:
        raise ValueError(f"matrix_transpose needs rank >= 2, got shape {a.shape}")
    perm = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    return transpose(a, perm, name=name, conjugate=conjugate)


def adjoint(matrix: Any, name: Optional[str] = None):
    """The conjugate transpose of the last two axes."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False, name: Optional[str] = None):
    """Matrix-vector product over batches: [..., m, n] x [..., n] -> [..., m]."""
    a, b = binary_operands("MatMul", a, b)
    product = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return squeeze(product, [-1], name=name)


def inv(input: Any, adjoint: bool = False, name: Optional[str] = None):  # noqa: A002
    """The inverse (or, with `adjoint`, its conjugate transpose) of each matrix."""
    return apply_unary(MATRIX_INVERSE, input, name, {"adjoint": bool_attr(adjoint, "adjoint")})


def det(input: Any, name: Optional[str] = None):  # noqa: A002 (TF's name)
    """The determinant of each matrix: [..., m, m] -> [...]."""
    return apply_unary(MATRIX_DETERMINANT, input, name)


def slogdet(input: Any, name: Optional[str] = None):  # noqa: A002
    """(sign, log|det|) of each matrix; stable where det over- or underflows."""
    sign, log_abs_det = apply_unary(LOG_MATRIX_DETERMINANT, input, name)
    return sign, log_abs_det


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: Optional[str] = None):
    """X with matrix @ X = rhs (adjoint(matrix) @ X = rhs with `adjoint`); batch axes
    of matrix [..., M, M] and rhs [..., M, K] must be equal, as in TensorFlow."""
    matrix, rhs = binary_operands(MATRIX_SOLVE.type, matrix, rhs)
    return apply_op(MATRIX_SOLVE, (matrix, rhs), {"adjoint": bool_attr(adjoint, "adjoint")}, name)


def triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                     name: Optional[str] = None):
    """Solves with the lower (or upper) triangle of `matrix`; the other triangle is
    ignored. Batch axes broadcast."""
    matrix, rhs = binary_operands(MATRIX_TRIANGULAR_SOLVE.type, matrix, rhs)
    attrs = {"lower": bool_attr(lower, "lower"), "adjoint": bool_attr(adjoint, "adjoint")}
    return apply_op(MATRIX_TRIANGULAR_SOLVE, (matrix, rhs), attrs, name)


def cholesky(input: Any, name: Optional[str] = None):  # noqa: A002
    """Lower-triangular L with L L^H = input, for Hermitian positive definite input."""
    return apply_unary(CHOLESKY, input, name)


def eigh(tensor: Any, name: Optional[str] = None):
    """(e, v): ascending eigenvalues and eigenvectors (columns) of self-adjoint
    matrices; only the lower triangle is read. The gradient is TensorFlow's and is
    valid for distinct eigenvalues (eigenvectors are defined up to sign/phase, so
    only losses invariant to that have meaningful gradients through v)."""
    e, v = apply_unary(SELF_ADJOINT_EIG, tensor, name, {"compute_v": True})
    return e, v


def eigvalsh(tensor: Any, name: Optional[str] = None):
    """Eigenvalues of self-adjoint matrices (ascending)."""
    return apply_unary(SELF_ADJOINT_EIG, tensor, name, {"compute_v": False})[0]


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True,
        name: Optional[str] = None):
    """Singular value decomposition tensor = u diag(s) v^H, returned as (s, u, v) in
    TensorFlow's order with v not transposed; only s when `compute_uv` is False.
    s is real (descending). Gradients through u, v need distinct singular values and
    gauge-invariant losses; with full_matrices they need |m - n| <= 1 (as in TF)."""
    attrs = {"compute_uv": bool_attr(compute_uv, "compute_uv"),
             "full_matrices": bool_attr(full_matrices, "full_matrices")}
    s, u, v = apply_unary(SVD, tensor, name, attrs)
    return (s, u, v) if compute_uv else s


__all__ = ["matmul", "matvec", "matrix_transpose", "adjoint", "inv", "det", "slogdet", "solve",
           "triangular_solve", "cholesky", "eigh", "eigvalsh", "svd"]
