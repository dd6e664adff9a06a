"""`norm`: vector and matrix norms, composed from other ops (no op type of its own).

Decision (documented in docs/linalg.md): at a zero input the gradient of every
norm is the subgradient 0, not NaN. A plain sqrt(sum(x^2)) differentiates to
x / 0 there; we take the square root of a value that is 1 where the sum is 0
and select 0 in that case (the double-`where` remedy), so both the value and
every derivative order stay finite. Only an exact zero is special: a NaN sum
gives a NaN norm and NaN gradients, as in TensorFlow.

As in TensorFlow, the euclidean/Frobenius norm (and the vector 2-norm) of a
complex tensor has the complex dtype (a zero imaginary part); ord 1, inf,
p and the matrix 2-norm are real.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager import context
from ...framework.tensor import Tensor

from ..arg_errors import mode_error
from ..array.array_ops import expand_dims, ones_like, squeeze, transpose, where, zeros_like
from ..constant_op import convert_to_tensor
from .linalg_ops import svd
from ..math.math_ops import abs as abs_, cast, not_equal, pow as pow_, sqrt, square
from ..math.reduction_ops import reduce_max, reduce_sum

_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def _canonical_ord(ord: Any) -> Any:  # noqa: A002 (TF's name)
    if isinstance(ord, str):
        if ord in ("inf", "np.inf"):
            return np.inf
        return ord
    if isinstance(ord, (bool, np.bool_)):
        raise ValueError(f"'ord' must be a supported norm order, got {ord!r}")
    if isinstance(ord, (int, float, np.number)):
        return float(ord)
    if isinstance(ord, Tensor):
        if context.state.graph is not None:  # TF compares it with Python values
            raise NotImplementedError(f"Cannot convert a symbolic tensor ({ord}) to a numpy "
                                      "array ('ord' must be a Python value)")
        if ord.shape.num_elements() == 1:  # TF: 'fro' converted to the tensor's dtype
            raise TypeError(f"'ord' must be a supported norm order (a Python value), got {ord}")
    if hasattr(ord, "dtype") and hasattr(ord, "shape") or isinstance(ord, (list, tuple)):
        # a tensor or a sequence: TF's comparison with the supported orders fails
        raise ValueError(f"'ord' must be a supported norm order (a Python value), got {ord!r}")
    # TF compares it with numbers first: anything else is a TypeError.
    raise TypeError(f"'ord' must be a supported norm order, got {ord!r}")


def _check_args(ord: Any, axis: Any):  # noqa: A002
    """TF's validation: (ord, axis as a tuple or None, is_matrix_norm)."""
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        axis = tuple(axis)
        if not all(isinstance(a, (int, np.integer)) for a in axis) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, "
                             f"got {axis}")
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"'ord' must be a supported matrix norm in "
                             f"{list(_MATRIX_ORDS)}, got {ord!r}")
        return tuple(int(a) for a in axis), True
    if not (axis is None or isinstance(axis, (int, np.integer))):
        raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         f"got {axis}")
    if ord not in _VECTOR_ORDS and not (isinstance(ord, float) and ord > 0):
        raise ValueError(f"'ord' must be a supported vector norm ({list(_VECTOR_ORDS)} or a "
                         f"positive real), got {ord!r}")
    return (None if axis is None else (int(axis),)), False


def _safe_root(total: Any, root: Any) -> Any:
    """root(total) where total != 0 (NaN included), else 0, with gradient 0 (not
    NaN) at total == 0; total is a sum of non-negative terms or NaN."""
    nonzero = not_equal(total, 0)
    safe = where(nonzero, total, ones_like(total))
    return where(nonzero, root(safe), zeros_like(total))


def _matrix_two_norm(x: Any, axis: tuple, keepdims: bool) -> Any:
    rank = x.shape.rank
    if rank is None:
        raise ValueError("norm with ord=2 over a matrix axis pair needs a tensor of known rank")
    a0, a1 = (a % rank for a in axis)
    perm = [i for i in range(rank) if i not in (a0, a1)] + [a0, a1]
    s = svd(transpose(x, perm), compute_uv=False)
    largest = reduce_max(s, axis=-1)
    result = where(not_equal(largest, 0), largest, zeros_like(largest))
    if keepdims:
        for a in sorted((a0, a1)):
            result = expand_dims(result, a)
    return result


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002 (TF's names)
         keepdims: Optional[bool] = None, name: Optional[str] = None):
    """Vector norm (axis None or an int) or matrix norm (axis a 2-tuple), as tf.norm.

    ord: 'euclidean' (default; the Frobenius norm for matrices), 'fro' (matrices
    only), 1, 2, inf (np.inf or 'inf'), or any positive real p for vector norms.
    For complex input the euclidean/Frobenius/vector-2 norm has the input's
    complex dtype, the others are real (TF's dtypes). NaN gives NaN. The
    gradient at a zero input (e.g. of the euclidean norm at x = 0) is the
    subgradient 0, not NaN, to every order.
    """
    ord = _canonical_ord(ord)  # noqa: A001
    axis, is_matrix = _check_args(ord, axis)
    keepdims = bool(keepdims)
    x = convert_to_tensor(tensor)
    if not (x.dtype.is_floating or x.dtype.is_complex):  # TF: bool, string TypeError
        message = f"norm: the tensor must be floating or complex, got {x.dtype.name}"
        plain = x.dtype.is_bool or x.dtype.name == "string"
        raise TypeError(message) if plain else mode_error(message, TypeError)
    complex_dtype = x.dtype if x.dtype.is_complex else None
    if ord == 2 and is_matrix:
        return _matrix_two_norm(x, axis, keepdims)  # singular values are real
    if complex_dtype is not None:
        x = abs_(x)
    if ord in ("euclidean", "fro") or ord == 2:
        result = _safe_root(reduce_sum(square(x), axis, keepdims=keepdims), sqrt)
        return result if complex_dtype is None else cast(result, complex_dtype)
    magnitude = abs_(x)
    if is_matrix:
        # 1: largest column sum (sum over rows); inf: largest row sum.
        inner, outer = axis if ord == 1 else axis[::-1]
        result = reduce_max(reduce_sum(magnitude, inner, keepdims=True), outer, keepdims=True)
        return result if keepdims else squeeze(result, list(axis))
    if ord == 1:
        return reduce_sum(magnitude, axis, keepdims=keepdims)
    if ord == np.inf:
        return reduce_max(magnitude, axis, keepdims=keepdims)
    total = reduce_sum(pow_(magnitude, ord), axis, keepdims=keepdims)
    return _safe_root(total, lambda t: pow_(t, 1.0 / ord))


__all__ = ["norm"]
