"""Summing several gradients of one tensor: shared by both backprop engines."""
from __future__ import annotations

from typing import Any, List, Optional

from ..framework.indexed_slices import IndexedSlices
from ..ops.array import array_ops
from ..ops.math import reduction_ops
from ..ops.array.indexed_slices_ops import concat_indexed_slices, densify


class AggregationMethod:
    """How `gradients` sums the gradients flowing into one tensor."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_METHODS = (AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
            AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)


def check_aggregation_method(method: Optional[int]) -> int:
    if method is None:
        return AggregationMethod.DEFAULT
    if method not in _METHODS:
        raise ValueError(f"Invalid aggregation_method specified {method}.")
    return method


def aggregate(grads: List[Any], method: int = AggregationMethod.ADD_N) -> Any:
    """One gradient from several: IndexedSlices stay sparse when all are sparse."""
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(g, IndexedSlices) for g in grads):
        return concat_indexed_slices(grads)
    grads = [densify(g) if isinstance(g, IndexedSlices) else g for g in grads]
    if method == AggregationMethod.ADD_N:
        return reduction_ops.add_n(grads)
    total = grads[0]
    for g in grads[1:]:   # pairwise sums: each part can be released once added
        total = reduction_ops.add_n([total, g])
    return total


def zeros_for(tensor: Any) -> Any:
    """Zeros shaped like `tensor` (a tensor or a spec), static shape when known."""
    shape = tensor.shape
    if shape.is_fully_defined():
        return array_ops.zeros(shape, tensor.dtype)
    return array_ops.zeros_like(tensor)
