"""How Keras 3 losses line up `y_true`/`y_pred` and reduce per-sample losses.

`squeeze_or_expand_to_same_rank` follows Keras: when ranks differ by one and the
larger side ends in a size-1 axis, a rank-1 smaller side gains that axis,
otherwise the larger side loses it. `reduce_weighted_values` applies
`sample_weight` and an optional mask (a mask on "mean"/"sum_over_batch_size"
rescales the kept entries so that the mean is over them only) before the
reduction.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ...framework import dtypes
from ...ops.array import array_ops
from ...ops.math import math_ops, reduction_ops, special_math_ops
from ...ops.constant_op import convert_to_tensor

EPSILON = 1e-7  # keras.config.epsilon()
REDUCTIONS = ("sum", "sum_over_batch_size", "mean", "mean_with_sample_weight", "none", None)


def standardize_reduction(reduction: Optional[str]) -> Optional[str]:
    if reduction not in REDUCTIONS:
        allowed = "{" + ", ".join(repr(r) for r in REDUCTIONS) + "}"
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of {allowed}. "
                         f"Received: reduction={reduction}")
    return reduction


def prepare(y_true: Any, y_pred: Any) -> Tuple[Any, Any]:
    """Tensors with `y_true` cast to `y_pred`'s (floating) dtype."""
    y_pred = convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    return y_true, y_pred


def squeeze_or_expand_to_same_rank(a: Any, b: Any, expand_rank_1: bool = True) -> Tuple[Any, Any]:
    """Keras' rank alignment of two tensors whose ranks differ by one."""
    rank_a, rank_b = a.shape.rank, b.shape.rank
    if rank_a is None or rank_b is None or rank_a == rank_b:
        return a, b
    if rank_a == rank_b + 1 and a.shape[-1] == 1:
        if rank_b == 1 and expand_rank_1:
            return a, array_ops.expand_dims(b, -1)
        return array_ops.squeeze(a, [-1]), b
    if rank_b == rank_a + 1 and b.shape[-1] == 1:
        if rank_a == 1 and expand_rank_1:
            return array_ops.expand_dims(a, -1), b
        return a, array_ops.squeeze(b, [-1])
    return a, b


squeeze_to_same_rank = squeeze_or_expand_to_same_rank


def mask_to_weight(mask: Any, sample_weight: Any, dtype: Any, reduction: Optional[str]) -> Any:
    """Folds a boolean mask into the sample weights, as Keras' `apply_mask`."""
    mask = convert_to_tensor(mask)
    float_mask = math_ops.cast(mask, dtype)
    if reduction in ("mean", "sum_over_batch_size"):
        total = math_ops.cast(array_ops.size(float_mask), dtype)
        valid = reduction_ops.reduce_sum(float_mask)
        float_mask = float_mask * special_math_ops.divide_no_nan(total, valid)
    if sample_weight is None:
        return float_mask
    sample_weight = math_ops.cast(convert_to_tensor(sample_weight), dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask


def reduce_weighted_values(values: Any, sample_weight: Any = None,
                           reduction: Optional[str] = "sum_over_batch_size",
                           mask: Any = None) -> Any:
    """Applies `sample_weight` (broadcast over trailing axes), `mask` and the reduction."""
    standardize_reduction(reduction)
    values = convert_to_tensor(values)
    if mask is not None:
        sample_weight = mask_to_weight(mask, sample_weight, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = math_ops.cast(convert_to_tensor(sample_weight), values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    if reduction in (None, "none") or values.shape.rank == 0 or \
            (values.shape.rank == 1 and values.shape[0] == 0):
        return values
    total = reduction_ops.reduce_sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        count = reduction_ops.reduce_sum(sample_weight)
    else:
        count = math_ops.cast(array_ops.size(values), values.dtype)
    return special_math_ops.divide_no_nan(total, count)


class Reduction:
    """Keras' legacy reduction keys (`tf.keras.losses.Reduction`)."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls) -> Tuple[str, ...]:
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')
