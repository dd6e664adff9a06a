"""tf.math.count_nonzero (and TF1's spelling): how many elements differ from zero.

A composite, as in TF: not_equal(x, 0) cast to int64, summed over `axis`, cast to
`dtype`. The count is a step function of x, so it carries no gradient.
"""
from __future__ import annotations

from typing import Any, Optional

from ...framework import dtypes
from ..array.array_ops import zeros
from ..constant_op import convert_to_tensor
from .math_ops import cast, not_equal
from .reduction_ops import reduce_sum


def count_nonzero(input: Any, axis: Any = None, keepdims: Optional[bool] = None,  # noqa: A002
                  dtype: Any = dtypes.int64, name: Optional[str] = None):
    """The number of non-zero elements of `input` along `axis` (None: all), as `dtype`.

    NaN counts as non-zero and -0.0 as zero; booleans count their True values."""
    x = convert_to_tensor(input)
    zero = zeros([], dtype=x.dtype)
    flags = cast(not_equal(x, zero), dtypes.int64)
    counts = reduce_sum(flags, axis=axis, keepdims=bool(keepdims))
    return cast(counts, dtype, name=name)


def count_nonzero_v1(input_tensor: Any = None, axis: Any = None,
                     keepdims: Optional[bool] = None, dtype: Any = dtypes.int64,
                     name: Optional[str] = None, reduction_indices: Any = None,
                     keep_dims: Optional[bool] = None, input: Any = None):  # noqa: A002
    """TF1's count_nonzero: also takes `reduction_indices`, `keep_dims` and `input`."""
    if input is not None:
        if input_tensor is not None:
            raise ValueError("Cannot specify both 'input' and 'input_tensor'")
        input_tensor = input
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'")
        axis = reduction_indices
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
        keepdims = keep_dims
    return count_nonzero(input_tensor, axis=axis, keepdims=keepdims, dtype=dtype, name=name)


__all__ = ["count_nonzero"]
