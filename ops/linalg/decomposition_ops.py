"""QR (`dg.linalg.qr`), the general eigendecomposition (`dg.linalg.eig`, `dg.linalg.eigvals`)
and the principal matrix square root (`dg.linalg.sqrtm`), as TF's Qr, Eig and
MatrixSquareRoot ops on batches of matrices. QR and Eig use NumPy's LAPACK (their signs and
eigenvector scaling agree with TF's); the square root comes from `scipy.linalg.sqrtm` (the
optional `duograd[scipy]` extra). Gradients: grad_registry/decomposition_grad.py."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..scipy_support import scipy_module

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128,
               dtypes.complex64: dtypes.complex64, dtypes.complex128: dtypes.complex128}


def matrix_parts(shape: TensorShape, square: bool, op_type: str):
    """(batch shape, rows, cols) of a static shape [..., m, n]; None for unknown rank."""
    if shape.rank is None:
        return None
    if shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {shape.rank} for {op_type} "
                         f"(input shape {shape})")
    m, n = shape[-2], shape[-1]
    if square and m is not None and n is not None and m != n:
        raise ValueError(f"{op_type}: input matrices must be square, got shape {shape}")
    return shape[:-2], m, n


def _check_matrices(x: np.ndarray, square: bool, op_type: str) -> None:
    if x.ndim < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.ndim} for {op_type} "
                         f"(input shape {list(x.shape)})")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{op_type}: input matrices must be square, got shape "
                         f"{list(x.shape)}")


# -- QR ----------------------------------------------------------------------------------
def _qr(x, *, full_matrices):
    _check_matrices(x, False, "Qr")
    work = x.astype(np.float32) if x.dtype == np.float16 else x
    q, r = np.linalg.qr(work, mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _qr_infer(inputs, attrs):
    x = inputs[0]
    parts = matrix_parts(x.shape, False, "Qr")
    if parts is None:
        return [(x.dtype, TensorShape(None))] * 2
    batch, m, n = parts
    k = None if m is None or n is None else min(m, n)
    if attrs["full_matrices"]:
        return [(x.dtype, batch.concatenate((m, m))), (x.dtype, batch.concatenate((m, n)))]
    return [(x.dtype, batch.concatenate((m, k))), (x.dtype, batch.concatenate((k, n)))]


QR = declare_op("Qr", _qr, _qr_infer, num_outputs=2, input_kinds="fc", grad_inputs=(0,),
                grad_outputs=(0, 1))


def qr(input: Any, full_matrices: bool = False, name: Optional[str] = None):  # noqa: A002
    """(q, r) with q orthonormal columns and r upper triangular, input = q r."""
    return tuple(apply_op(QR, (convert_to_tensor(input),),
                          {"full_matrices": bool(full_matrices)}, name))


# -- Eig ---------------------------------------------------------------------------------
def _eig(x, *, compute_v, Tout):
    _check_matrices(x, True, "Eig")
    out_dtype = np.dtype(Tout)
    if not np.isfinite(x).all():
        raise ValueError("Eig: the input contains NaN or inf")
    work = x.astype(np.float32) if x.dtype == np.float16 else x
    if compute_v:
        e, v = np.linalg.eig(work)
        return e.astype(out_dtype), np.ascontiguousarray(v).astype(out_dtype)
    return np.linalg.eigvals(work).astype(out_dtype), np.zeros((0,), out_dtype)


def _eig_infer(inputs, attrs):
    x = inputs[0]
    out = dtypes.as_dtype(attrs["Tout"])
    parts = matrix_parts(x.shape, True, "Eig")
    if parts is None:
        return [(out, TensorShape(None))] * 2
    batch, m, n = parts
    n = m if m is not None else n
    v_shape = batch.concatenate((n, n)) if attrs["compute_v"] else TensorShape((0,))
    return [(out, batch.concatenate((n,))), (out, v_shape)]


EIG = declare_op("Eig", _eig, _eig_infer, num_outputs=2, input_kinds="fc", grad_inputs=(0,),
                 grad_outputs=(0, 1))


def _eig_op(tensor: Any, compute_v: bool, name: Optional[str]):
    x = convert_to_tensor(tensor)
    if x.dtype not in _COMPLEX_OF:
        raise TypeError(f"eig: input must be float32, float64, complex64 or complex128, got "
                        f"{x.dtype.name}")
    out = _COMPLEX_OF[x.dtype]
    return apply_op(EIG, (x,), {"compute_v": compute_v, "Tout": out.as_numpy_dtype}, name)


def eig(tensor: Any, name: Optional[str] = None) -> Tuple[Any, Any]:
    """(eigenvalues, eigenvectors) of general square matrices, complex-valued (columns of
    the eigenvector matrix, each of unit norm)."""
    e, v = _eig_op(tensor, True, name)
    return e, v


def eigvals(tensor: Any, name: Optional[str] = None):
    """The (complex) eigenvalues of general square matrices."""
    return _eig_op(tensor, False, name)[0]


# -- MatrixSquareRoot ------------------------------------------------------------------------
def _sqrtm(x):
    _check_matrices(x, True, "MatrixSquareRoot")
    linalg = scipy_module("linalg", "MatrixSquareRoot")
    flat = x.reshape((-1,) + x.shape[-2:])
    out = np.empty(flat.shape, dtype=np.result_type(x.dtype, np.float32))
    for i, matrix in enumerate(flat):
        if not np.isfinite(matrix).all():
            out[i] = np.nan
            continue
        root = linalg.sqrtm(matrix.astype(np.float64 if x.dtype.kind == "f" else np.complex128))
        root = np.asarray(root)
        if x.dtype.kind == "f":
            # A real matrix with a negative real eigenvalue has no real principal root:
            # TF's real Schur method answers NaN there.
            if np.iscomplexobj(root) and np.abs(root.imag).max() > 1e-8 * max(
                    1.0, np.abs(root).max()):
                out[i] = np.nan
                continue
            root = root.real
        out[i] = root
    return out.reshape(x.shape).astype(x.dtype)


def _square_same(inputs, attrs):
    x = inputs[0]
    parts = matrix_parts(x.shape, True, "MatrixSquareRoot")
    if parts is None:
        return [(x.dtype, TensorShape(None))]
    batch, m, n = parts
    m = m if m is not None else n
    return [(x.dtype, batch.concatenate((m, m)))]


MATRIX_SQUARE_ROOT = declare_op("MatrixSquareRoot", _sqrtm, _square_same, input_kinds="fc",
                                grad_inputs=(), grad_outputs=(0,))


def sqrtm(input: Any, name: Optional[str] = None):  # noqa: A002 (TF's name)
    """The principal square root of each square matrix (NaN where a real one does not
    exist)."""
    return apply_op(MATRIX_SQUARE_ROOT, (convert_to_tensor(input),), name=name)


LINALG_NAMES = {"qr": qr, "eig": eig, "eigvals": eigvals, "sqrtm": sqrtm}
