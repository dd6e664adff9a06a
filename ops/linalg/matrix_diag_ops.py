"""Diagonals and bands of (batches of) matrices, and of tensors (`tensor_diag`).

Op types are TensorFlow's: MatrixDiag, MatrixDiagPart, MatrixSetDiag,
MatrixBandPart (batched over leading axes, main diagonal only), and Diag /
DiagPart (`tf.linalg.tensor_diag` / `tensor_diag_part`). `trace` is composed.
Gradients: grad_registry/matrix_diag_grad.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..op_helpers import apply_unary
from ..math.reduction_ops import reduce_sum
from ..shape_rules import check_same_dtype, same_as_input

NUMERIC = "fciu"


def _at_least(shape: TensorShape, rank: int) -> None:
    if shape.rank is not None and shape.rank < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.rank} "
                         f"(shape {shape})")


def _min_dim(m: Optional[int], n: Optional[int]) -> Optional[int]:
    return None if m is None or n is None else min(m, n)


# -- MatrixDiag: [..., n] -> [..., n, n] ------------------------------------------------
def _matrix_diag_kernel(diagonal):
    n = diagonal.shape[-1]
    out = np.zeros(diagonal.shape + (n,), dtype=diagonal.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = diagonal
    return out


def _matrix_diag_infer(inputs, attrs):
    d = inputs[0]
    _at_least(d.shape, 1)
    if d.shape.rank is None:
        return [(d.dtype, TensorShape(None))]
    return [(d.dtype, d.shape.concatenate((d.shape[-1],)))]


MATRIX_DIAG = declare_op("MatrixDiag", _matrix_diag_kernel, _matrix_diag_infer,
                         input_kinds=NUMERIC + "b", grad_inputs=())


# -- MatrixDiagPart: [..., m, n] -> [..., min(m, n)] ------------------------------------
def _matrix_diag_part_kernel(x):
    return np.ascontiguousarray(np.diagonal(x, axis1=-2, axis2=-1))


def _matrix_diag_part_infer(inputs, attrs):
    x = inputs[0]
    _at_least(x.shape, 2)
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    return [(x.dtype, x.shape[:-2].concatenate((_min_dim(x.shape[-2], x.shape[-1]),)))]


MATRIX_DIAG_PART = declare_op("MatrixDiagPart", _matrix_diag_part_kernel, _matrix_diag_part_infer,
                              input_kinds=NUMERIC + "b", grad_inputs=())


# -- MatrixSetDiag: input [..., m, n], diagonal [..., min(m, n)] -------------------------
def _matrix_set_diag_kernel(x, diagonal):
    k = min(x.shape[-2], x.shape[-1])
    if diagonal.shape != x.shape[:-2] + (k,):
        raise ValueError(f"diagonal must have shape {x.shape[:-2] + (k,)} for an input of "
                         f"shape {x.shape}, got {diagonal.shape}")
    out = x.copy()
    idx = np.arange(k)
    out[..., idx, idx] = diagonal
    return out


def _matrix_set_diag_infer(inputs, attrs):
    x, d = inputs
    dtype = check_same_dtype(inputs)
    _at_least(x.shape, 2)
    _at_least(d.shape, 1)
    if x.shape.rank is not None:
        expected = x.shape[:-2].concatenate((_min_dim(x.shape[-2], x.shape[-1]),))
        if not expected.is_compatible_with(d.shape):
            raise ValueError(f"diagonal of shape {d.shape} does not fit an input of shape "
                             f"{x.shape} (expected {expected})")
    return [(dtype, x.shape)]


MATRIX_SET_DIAG = declare_op("MatrixSetDiag", _matrix_set_diag_kernel, _matrix_set_diag_infer,
                             input_kinds=NUMERIC + "b", grad_inputs=(),
                             same_dtype=slice(None))


# -- MatrixBandPart: keep num_lower sub- and num_upper super-diagonals (-1: all) --------
def _band_part_kernel(x, *, num_lower, num_upper):
    m, n = x.shape[-2], x.shape[-1]
    offset = np.arange(n)[None, :] - np.arange(m)[:, None]  # column - row
    keep = np.ones((m, n), dtype=bool)
    if num_lower >= 0:
        keep &= offset >= -num_lower
    if num_upper >= 0:
        keep &= offset <= num_upper
    return np.where(keep, x, np.zeros((), dtype=x.dtype))


def _band_part_infer(inputs, attrs):
    _at_least(inputs[0].shape, 2)
    return same_as_input(inputs, attrs)


MATRIX_BAND_PART = declare_op("MatrixBandPart", _band_part_kernel, _band_part_infer,
                              input_kinds=NUMERIC + "b", grad_inputs=())


# -- Diag / DiagPart: rank k <-> rank 2k ----------------------------------------------
def _diag_kernel(diagonal):
    if diagonal.ndim == 0:
        raise ValueError("Input must be at least rank 1, got rank 0")
    size = diagonal.size
    out = np.zeros((size, size), dtype=diagonal.dtype)
    out[np.arange(size), np.arange(size)] = diagonal.reshape(-1)
    return out.reshape(diagonal.shape + diagonal.shape)


def _diag_infer(inputs, attrs):
    d = inputs[0]
    if d.shape.rank is None:
        return [(d.dtype, TensorShape(None))]
    if d.shape.rank == 0:
        raise ValueError("Input must be at least rank 1, got rank 0")
    return [(d.dtype, d.shape.concatenate(d.shape))]


def _diag_part_kernel(x):
    k = x.ndim // 2
    if x.ndim % 2 or x.shape[:k] != x.shape[k:]:
        raise ValueError(f"Input must have shape s + s (even rank), got {x.shape}")
    size = int(np.prod(x.shape[:k], dtype=np.int64))
    flat = x.reshape(size, size)
    return np.ascontiguousarray(np.diagonal(flat)).reshape(x.shape[:k])


def _diag_part_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    rank = x.shape.rank
    if rank == 0 or rank % 2:
        raise ValueError(f"Input must have even rank >= 2, got shape {x.shape}")
    k = rank // 2
    return [(x.dtype, x.shape[:k].merge_with(x.shape[k:]))]


DIAG = declare_op("Diag", _diag_kernel, _diag_infer, input_kinds=NUMERIC, grad_inputs=())
DIAG_PART = declare_op("DiagPart", _diag_part_kernel, _diag_part_infer, input_kinds=NUMERIC,
                       grad_inputs=())


# -- public functions ----------------------------------------------------------------------
def diag(diagonal: Any, name: str = "diag"):
    """Batched diagonal matrices: [..., n] -> [..., n, n] (`tf.linalg.diag`, k=0)."""
    return apply_unary(MATRIX_DIAG, diagonal, name)


def diag_part(input: Any, name: str = "diag_part"):  # noqa: A002 (TF's name)
    """Main diagonals of a batch of matrices: [..., m, n] -> [..., min(m, n)]."""
    return apply_unary(MATRIX_DIAG_PART, input, name)


def set_diag(input: Any, diagonal: Any, name: str = "set_diag"):  # noqa: A002
    """`input` with its main diagonals replaced by `diagonal` (batched)."""
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype_hint=x.dtype)
    return apply_op(MATRIX_SET_DIAG, (x, d), name=name)


def band_part(input: Any, num_lower: int, num_upper: int, name: str = "band_part"):  # noqa: A002
    """Zeroes everything outside a band: `num_lower` sub-, `num_upper` super-diagonals
    (-1 keeps the whole triangle); `band_part(x, -1, 0)` is the lower triangle."""
    return apply_unary(MATRIX_BAND_PART, input, name,
                       {"num_lower": int(num_lower), "num_upper": int(num_upper)})


def tensor_diag(diagonal: Any, name: Optional[str] = None):
    """A rank-2k tensor with `diagonal` (rank k) on its diagonal: out[i.., i..] = d[i..]."""
    return apply_unary(DIAG, diagonal, name)


def tensor_diag_part(input: Any, name: Optional[str] = None):  # noqa: A002
    """The inverse of `tensor_diag`: input of shape s + s -> its diagonal of shape s."""
    return apply_unary(DIAG_PART, input, name)


def trace(x: Any, name: Optional[str] = None):
    """Sum of the main diagonal of each matrix in the batch: [..., m, n] -> [...]."""
    return reduce_sum(diag_part(x), axis=-1, name=name)


__all__ = ["diag", "diag_part", "set_diag", "band_part", "tensor_diag", "tensor_diag_part",
           "trace"]
