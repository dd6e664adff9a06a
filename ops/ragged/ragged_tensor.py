"""A minimal dg.RaggedTensor: what dg.strings.split of a vector returns (as TF's does),
and dg.ragged.constant.

A RaggedTensor is `values` (a tensor, or a RaggedTensor for more than one ragged
dimension) cut into rows by `row_splits` (int64, starting at 0, non-decreasing): row i
is values[row_splits[i]:row_splits[i + 1]]. It offers TF's read side: values,
row_splits, flat_values, nested_row_splits, ragged_rank, dtype, shape, nrows(),
row_lengths(), bounding_shape(), to_list() (eager), to_tensor(default_value) (an op:
both modes) and TF's repr. It is no Tensor: ops do not take it, and it is never
differentiable. Everything else of tf.RaggedTensor (ragged ops, dispatch, from_* but
from_row_splits) is not provided (docs/differences.md)."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..math import math_ops


def _dense_kernel(flat_values: np.ndarray, default_value: np.ndarray,
                  *nested_splits: np.ndarray) -> np.ndarray:
    """The rows padded with `default_value` to the bounding shape."""
    lengths = []   # per ragged dimension: the longest row
    starts: List[np.ndarray] = [np.zeros(1, np.int64)]
    for splits in nested_splits:
        sizes = np.diff(splits)
        lengths.append(int(sizes.max()) if sizes.size else 0)
        starts.append(splits)
    shape = (len(nested_splits[0]) - 1,) + tuple(lengths) + flat_values.shape[1:]
    out = np.empty(shape, flat_values.dtype)
    out[...] = default_value
    _fill(out, flat_values, nested_splits, 0, 0, len(nested_splits[0]) - 1, ())
    return out


def _fill(out, flat_values, nested_splits, level, first, last, index) -> None:
    """Copies rows first..last of ragged dimension `level` into out[index + (row, ...)]
    (the recursion is on the ragged rank, a handful of levels, not on graph depth)."""
    splits = nested_splits[level]
    for row in range(first, last):
        begin, end = int(splits[row]), int(splits[row + 1])
        where = index + (row - first,)
        if level + 1 == len(nested_splits):
            out[where][:end - begin] = flat_values[begin:end]
        else:
            _fill(out, flat_values, nested_splits, level + 1, begin, end, where)


def _dense_infer(inputs, attrs):
    flat, _, *splits = inputs
    inner = tuple(flat.shape.dims[1:]) if flat.shape.rank else ()
    rows = splits[0].shape[0] - 1 if splits[0].shape.rank == 1 and \
        splits[0].shape[0] is not None else None
    return [(flat.dtype, TensorShape((rows,) + (None,) * len(splits) + inner))]


RAGGED_TENSOR_TO_TENSOR = declare_op("RaggedTensorToTensor", _dense_kernel, _dense_infer,
                                     grad_inputs=())


class RaggedTensor:
    """Rows of different lengths: `values` cut by `row_splits` (TF's read-only core)."""

    def __init__(self, values: Any, row_splits: Any,
                 uniform_row_length: Optional[int] = None) -> None:
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length   # rows all this long (static)

    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: Optional[str] = None,
                        validate: bool = True) -> "RaggedTensor":
        """values cut at row_splits (a vector starting at 0, non-decreasing)."""
        splits = convert_to_tensor(row_splits, dtype_hint=dtypes.int64)
        if not splits.dtype.is_integer:
            raise TypeError(f"row_splits must be int32 or int64, got {splits.dtype.name}")
        if splits.shape.rank not in (None, 1):
            raise ValueError(f"row_splits must be a vector, got shape {splits.shape}")
        if validate and hasattr(splits, "numpy"):
            s = splits.numpy()
            if s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0):
                raise ValueError(f"row_splits must start at 0 and not decrease, got "
                                 f"{s.tolist()}")
        values = values if isinstance(values, RaggedTensor) else convert_to_tensor(values)
        return cls(values, math_ops.cast(splits, dtypes.int64))

    # -- structure ----------------------------------------------------------------------
    @property
    def values(self) -> Any:
        return self._values

    @property
    def row_splits(self) -> Any:
        return self._row_splits

    @property
    def flat_values(self) -> Any:
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values.values
        return values

    @property
    def nested_row_splits(self) -> tuple:
        splits, values = [self._row_splits], self._values
        while isinstance(values, RaggedTensor):
            splits.append(values.row_splits)
            values = values.values
        return tuple(splits)

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> dtypes.DType:
        return self.flat_values.dtype

    @property
    def shape(self) -> TensorShape:
        splits = self._row_splits.shape
        rows = splits[0] - 1 if splits.rank == 1 and splits[0] is not None else None
        inner = self.flat_values.shape
        lengths, values = [self._uniform_row_length], self._values
        while isinstance(values, RaggedTensor):
            lengths.append(values._uniform_row_length)  # noqa: SLF001 (same class)
            values = values.values
        return TensorShape((rows,) + tuple(lengths) +
                           (tuple(inner.dims[1:]) if inner.rank else ()))

    def nrows(self, out_type: Any = dtypes.int64) -> Any:
        return math_ops.cast(array_ops.shape(self._row_splits)[0] - 1, out_type)

    def row_lengths(self) -> Any:
        return self._row_splits[1:] - self._row_splits[:-1]

    def bounding_shape(self) -> Any:
        return array_ops.shape(self.to_tensor(), out_type=dtypes.int64)

    # -- conversion ---------------------------------------------------------------------
    def to_tensor(self, default_value: Any = None, name: Optional[str] = None) -> Any:
        """A dense tensor of the bounding shape, the gaps filled with `default_value`
        (TF's default: zero, or the empty string)."""
        flat = self.flat_values
        if default_value is None:
            default_value = "" if flat.dtype is dtypes.string else 0
        default = convert_to_tensor(default_value, dtype=flat.dtype)
        return apply_op(RAGGED_TENSOR_TO_TENSOR, (flat, default) + self.nested_row_splits,
                        name=name)

    def to_list(self) -> list:
        """The rows as nested Python lists (eager mode)."""
        flat = self.flat_values.numpy()
        rows: Any = list(flat)
        for splits in reversed(self.nested_row_splits):
            s = splits.numpy()
            rows = [rows[int(s[i]):int(s[i + 1])] for i in range(len(s) - 1)]
        return _plain(rows)

    def numpy(self) -> Any:
        """TF's: an object array of the rows (eager mode)."""
        rows = self.to_list()
        out = np.empty(len(rows), dtype=object)
        out[:] = [np.asarray(r) if self.ragged_rank == 1 else r for r in rows]
        return out

    def __repr__(self) -> str:
        if not isinstance(self.flat_values, EagerTensor):
            return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"
        rows = self.to_list()
        if self.ragged_rank > 1:
            return "<tf.RaggedTensor [" + ",\n ".join(repr(r) for r in rows) + "]>"
        return f"<tf.RaggedTensor {rows!r}>"

    __str__ = __repr__


def _plain(rows: Any) -> Any:
    """Rows of NumPy scalars as Python values (bytes stay bytes), as TF's to_list."""
    if isinstance(rows, list):
        return [_plain(r) for r in rows]
    if isinstance(rows, np.ndarray):
        return rows.tolist()
    return rows.item() if isinstance(rows, np.generic) else rows


# -- dg.ragged.constant --------------------------------------------------------------------
def _depth(value: Any) -> int:
    """The nesting depth of the scalars in `value` (ValueError when it differs)."""
    if not isinstance(value, (list, tuple)):
        return 0
    depths = {_depth(v) for v in value}
    if len(depths) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    return 1 + (depths.pop() if depths else 0)


def ragged_constant(pylist: Any, dtype: Any = None, ragged_rank: Optional[int] = None,
             inner_shape: Any = None, name: Optional[str] = None,
             row_splits_dtype: Any = dtypes.int64) -> Any:
    """A RaggedTensor of nested Python lists (every level but the innermost ragged by
    default); a scalar is a plain tensor, as TF's."""
    depth = _depth(pylist)
    if depth == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    rank = depth - 1 if ragged_rank is None else int(ragged_rank)
    if not 0 < rank < depth:
        raise ValueError(f"ragged_rank must be in [1, {depth - 1}], got {ragged_rank}")
    level_splits = []
    rows: list = list(pylist)
    for _ in range(rank):  # the ragged levels: flatten one level, noting the splits
        sizes = [len(r) for r in rows]
        level_splits.append(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))
        rows = [item for r in rows for item in r]
    flat = convert_to_tensor(rows, dtype=dtype) if rows else \
        constant_empty(dtype, depth - rank - 1)
    result: Any = flat
    for splits in reversed(level_splits):
        result = RaggedTensor(result, convert_to_tensor(
            splits, dtype=dtypes.as_dtype(row_splits_dtype)))
    return result


def constant_empty(dtype: Any, inner_rank: int) -> Any:
    """The flat values of a ragged constant with no scalar at all: float32, as TF's."""
    return convert_to_tensor(np.zeros((0,) * (inner_rank + 1), np.float32),
                             dtype=dtypes.float32 if dtype is None else dtype)


RAGGED_NAMES = {"constant": ragged_constant}
