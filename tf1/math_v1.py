"""TF1's math names: reductions with `reduction_indices`/`keep_dims`, `argmax` with
`dimension`, the `to_*` casts, Python-2 `div`, `arg_max`/`arg_min`."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from ..framework import dtypes
from ..ops.math import math_ops, moments_ops, reduction_ops, special_math_ops
from ..ops.array import selection_ops
from ..ops.constant_op import convert_to_tensor
from .deprecated_args import lookup


def _v1_reduction(reduce_v2: Callable) -> Callable:
    @functools.wraps(reduce_v2)
    def reduce_v1(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
                  name: Optional[str] = None, reduction_indices: Any = None,
                  keep_dims: Optional[bool] = None) -> Any:
        axis = lookup("axis", axis, "reduction_indices", reduction_indices)
        keepdims = lookup("keepdims", keepdims, "keep_dims", keep_dims)
        return reduce_v2(input_tensor, axis=axis, keepdims=bool(keepdims), name=name)
    reduce_v1.__doc__ = f"TF1's {reduce_v2.__name__}: also `reduction_indices=`, `keep_dims=`."
    return reduce_v1


reduce_sum = _v1_reduction(reduction_ops.reduce_sum)
reduce_mean = _v1_reduction(reduction_ops.reduce_mean)
reduce_prod = _v1_reduction(reduction_ops.reduce_prod)
reduce_max = _v1_reduction(reduction_ops.reduce_max)
reduce_min = _v1_reduction(reduction_ops.reduce_min)
reduce_all = _v1_reduction(reduction_ops.reduce_all)
reduce_any = _v1_reduction(reduction_ops.reduce_any)
reduce_logsumexp = _v1_reduction(special_math_ops.reduce_logsumexp)
reduce_variance = _v1_reduction(moments_ops.reduce_variance)
reduce_std = _v1_reduction(moments_ops.reduce_std)


def argmax(input: Any, axis: Any = None, name: Optional[str] = None,  # noqa: A002
           dimension: Any = None, output_type: Any = dtypes.int64) -> Any:
    """TF1's argmax: the axis may be given as `dimension`."""
    axis = lookup("axis", axis, "dimension", dimension)
    return selection_ops.argmax(input, 0 if axis is None else axis, output_type, name)


def argmin(input: Any, axis: Any = None, name: Optional[str] = None,  # noqa: A002
           dimension: Any = None, output_type: Any = dtypes.int64) -> Any:
    """TF1's argmin: the axis may be given as `dimension`."""
    axis = lookup("axis", axis, "dimension", dimension)
    return selection_ops.argmin(input, 0 if axis is None else axis, output_type, name)


def arg_max(input: Any, dimension: Any, output_type: Any = dtypes.int64,  # noqa: A002
            name: Optional[str] = None) -> Any:
    return selection_ops.argmax(input, dimension, output_type, name)


def arg_min(input: Any, dimension: Any, output_type: Any = dtypes.int64,  # noqa: A002
            name: Optional[str] = None) -> Any:
    return selection_ops.argmin(input, dimension, output_type, name)


def _to(dtype: dtypes.DType, op_name: str) -> Callable:
    def cast_to(x: Any, name: str = op_name) -> Any:
        return math_ops.cast(x, dtype, name=name)
    cast_to.__name__ = f"to_{dtype.name}"
    cast_to.__doc__ = f"TF1's cast of `x` to {dtype.name} (op name {op_name!r})."
    return cast_to


to_float = _to(dtypes.float32, "ToFloat")
to_double = _to(dtypes.float64, "ToDouble")
to_int32 = _to(dtypes.int32, "ToInt32")
to_int64 = _to(dtypes.int64, "ToInt64")
to_complex64 = _to(dtypes.complex64, "ToComplex64")
to_complex128 = _to(dtypes.complex128, "ToComplex128")


def div(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """Python 2's `/`: floor division for integers, true division otherwise."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    if x.dtype.is_integer:
        return math_ops.floordiv(x, y, name=name or "div")
    return math_ops.divide(x, y, name=name or "div")


NAMES = {name: globals()[name] for name in (
    "reduce_sum reduce_mean reduce_prod reduce_max reduce_min reduce_all reduce_any "
    "reduce_logsumexp reduce_variance reduce_std argmax argmin arg_max arg_min to_float "
    "to_double to_int32 to_int64 to_complex64 to_complex128 div").split()}
MATH_NAMES = {name: NAMES[name] for name in (
    "reduce_sum reduce_mean reduce_prod reduce_max reduce_min reduce_all reduce_any "
    "reduce_logsumexp reduce_variance reduce_std argmax argmin").split()}
