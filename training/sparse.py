"""Sparse (IndexedSlices) gradients for optimizers: row bookkeeping, never densified.

An IndexedSlices gradient names rows of a variable; repeated rows add up.
Optimizers sum the repeats first (`unique_rows`), then read, compute and
write only those rows (`gather`, then `Variable.scatter_update` in place), so a step
costs what the batch touches, not what the table holds.
"""
from __future__ import annotations

from typing import Any, Sequence, Tuple

from ..framework.indexed_slices import IndexedSlices
from ..ops.array.array_ops import expand_dims, shape
from ..ops.array.scatter_ops import tensor_scatter_nd_update
from ..ops.array.sort_ops import unique
from ..ops.array.indexed_slices_ops import gather, unsorted_segment_sum


def is_sparse(grad: Any) -> bool:
    return isinstance(grad, IndexedSlices)


def unique_rows(indices: Any, values: Sequence[Any]) -> Tuple[Any, list]:
    """The distinct rows of `indices` and, for each of `values`, its sum per row."""
    rows, position = unique(indices)
    count = shape(rows)[0]
    return rows, [unsorted_segment_sum(v, position, count) for v in values]


def rows_of(tensor: Any, rows: Any) -> Any:
    """`tensor[rows]`: a variable's read is its buffer (no copy), so this costs the rows."""
    return gather(tensor, rows)


def with_rows(dense: Any, rows: Any, row_values: Any) -> Any:
    """`dense` with rows `rows` replaced by `row_values` (rows distinct)."""
    return tensor_scatter_nd_update(dense, expand_dims(rows, -1), row_values)


__all__ = ["is_sparse", "unique_rows", "rows_of", "with_rows"]
