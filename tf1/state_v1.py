"""TF1 state and utility names: `scatter_update`/`scatter_add`/`scatter_sub` on a
variable, `count_nonzero`, and the deprecated `Print` (an identity that prints)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import control_dependencies
from ..ops.array import array_ops
from ..ops.math import math_ops, reduction_ops
from ..ops.debugging import print_ops
from ..ops.constant_op import convert_to_tensor
from .deprecated_args import lookup


def _slices(indices: Any, updates: Any) -> IndexedSlices:
    return IndexedSlices(convert_to_tensor(updates), convert_to_tensor(indices))


def scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                   name: Optional[str] = None) -> Any:
    """Sets rows `indices` of variable `ref` to `updates`; returns the variable."""
    return ref.scatter_update(_slices(indices, updates), use_locking, name)


def scatter_add(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Any:
    return ref.scatter_add(_slices(indices, updates), use_locking, name)


def scatter_sub(ref: Any, indices: Any, updates: Any, use_locking: bool = False,
                name: Optional[str] = None) -> Any:
    return ref.scatter_sub(_slices(indices, updates), use_locking, name)


def count_nonzero(input_tensor: Any = None, axis: Any = None, keepdims: Optional[bool] = None,
                  dtype: Any = dtypes.int64, name: Optional[str] = None,
                  reduction_indices: Any = None, keep_dims: Optional[bool] = None,
                  input: Any = None) -> Any:  # noqa: A002 (TF's name)
    """The number of non-zero elements along `axis` (all by default)."""
    value = convert_to_tensor(input_tensor if input_tensor is not None else input)
    axis = lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = lookup("keepdims", keepdims, "keep_dims", keep_dims)
    nonzero = math_ops.cast(math_ops.not_equal(value, array_ops.zeros_like(value)), dtypes.int64)
    return math_ops.cast(reduction_ops.reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims)),
                         dtype, name=name)


def Print(input_: Any, data: Sequence[Any], message: Optional[str] = None,  # noqa: N802
          first_n: Any = None, summarize: Optional[int] = None,
          name: Optional[str] = None) -> Any:
    """TF1's `tf.Print`: `input_`, printing `message` and `data` (to stderr) when run."""
    printed = print_ops.print(*([message] if message else []), *data,
                              summarize=3 if summarize is None else summarize)
    if printed is None:  # eager: printed already
        return array_ops.identity(input_, name=name)
    with control_dependencies([printed]):
        return array_ops.identity(input_, name=name)


NAMES = {"scatter_update": scatter_update, "scatter_add": scatter_add,
         "scatter_sub": scatter_sub, "count_nonzero": count_nonzero, "Print": Print}
