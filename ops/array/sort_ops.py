"""Sorting: sort, argsort (one op with both outputs) and unique. Gradients: sort_grad.py.

TensorFlow builds sort/argsort from TopKV2; here one `Sort` op returns the
sorted values and the permutation together (stable: ties keep their order),
so the gradient of the values is the permutation undone.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.tensor import Tensor
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..arg_errors import by_mode, mode_error
from ..constant_op import convert_to_tensor
from ..shape_rules import normalize_axis
from ..dispatch import apply_op

_state = context.state

DIRECTIONS = ("ASCENDING", "DESCENDING")


def _sort_kernel(x, *, axis, descending):
    if not descending:
        order = np.argsort(x, axis=axis, kind="stable")
    else:  # stable descending: sort the reversed array, then map positions back
        n = x.shape[axis]
        order = np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
    return np.take_along_axis(x, order, axis), order.astype(np.int32)


def _sort_infer(inputs, attrs):
    x = inputs[0]
    rank = x.shape.rank
    axis = attrs["axis"]
    if rank is not None and not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    if x.dtype.is_complex or x.dtype.is_bool:
        raise TypeError(f"sort does not support dtype {x.dtype.name}")
    return [(x.dtype, x.shape), (dtypes.int32, x.shape)]


SORT = declare_op("Sort", _sort_kernel, _sort_infer, num_outputs=2, grad_inputs=(),
                  grad_outputs=(1,))


def _sort(values: Any, axis: int, direction: str, name: Optional[str]):
    if direction not in DIRECTIONS:
        raise ValueError(f"{direction!r} is not a valid direction; use 'ASCENDING' or "
                         f"'DESCENDING'")
    values = convert_to_tensor(values)
    if values.dtype.is_complex or values.dtype.is_bool or values.dtype == dtypes.string:
        raise mode_error(f"sort does not support dtype {values.dtype.name} (TopKV2's T)",
                         TypeError)
    rank = values.shape.rank
    if isinstance(axis, int) and not -2**63 <= axis < 2**63:  # TF's conversion of axis
        raise by_mode(ValueError, TypeError)(
            f"sort: Can't convert Python int {axis} to a tensor (out of int64 range)")
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, (bool, np.bool_)):
        unconvertible = axis is not None and _state.graph is not None and \
            not isinstance(axis, (str, list, tuple, Tensor, float))  # TF: a TypeError
        raise (TypeError if unconvertible else ValueError)(
            f"sort: axis must be a constant scalar int, got {axis!r}")
    try:
        axis = normalize_axis(int(axis), rank)
    except ValueError as error:  # TF: the kernel's InvalidArgumentError eagerly
        raise mode_error(str(error), ValueError) from None
    if rank is None and axis != -1:
        raise ValueError("sort along an axis other than -1 needs a tensor of known rank")
    return apply_op(SORT, (values,), {"axis": axis, "descending": direction == "DESCENDING"},
                    name)


def sort(values: Any, axis: int = -1, direction: str = "ASCENDING", name: Optional[str] = None):
    """`values` sorted along `axis`."""
    return _sort(values, axis, direction, name)[0]


def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = False,
            name: Optional[str] = None):
    """The int32 indices that sort `values` along `axis` (always stable here)."""
    return _sort(values, axis, direction, name)[1]


def _unique_kernel(x, *, out_idx):
    if x.ndim != 1:
        raise ValueError(f"unique expects a 1D vector, got shape {x.shape}")
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")      # order of first occurrence, as in TF
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    np_idx = out_idx.as_numpy_dtype
    return values[order], rank[inverse.reshape(-1)].astype(np_idx)


def _unique_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank not in (None, 1):
        raise ValueError(f"unique expects a 1D vector, got shape {x.shape}")
    return [(x.dtype, TensorShape((None,))), (attrs["out_idx"], x.shape.merge_with([None]))]


UNIQUE = declare_op("Unique", _unique_kernel, _unique_infer, num_outputs=2, grad_inputs=())


def unique(x: Any, out_idx: Any = dtypes.int32, name: Optional[str] = None):
    """(y, idx): the distinct values of 1-D `x` in order of first occurrence, and for
    each element of `x` the position of its value in `y`."""
    y, idx = apply_op(UNIQUE, (convert_to_tensor(x),), {"out_idx": dtypes.as_dtype(out_idx)},
                      name)
    return y, idx


__all__ = ["sort", "argsort", "unique"]
