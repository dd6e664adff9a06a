"""argmax, argmin and top_k. Gradients: grad_registry/selection_grad.py."""
from __future__ import annotations

import collections
from typing import Any, Optional

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..arg_errors import mode_error
from ..constant_op import convert_to_tensor
from ..shape_rules import normalize_axis
from ..math.cumulative_ops import static_axis
from ..dispatch import apply_op

_state = context.state


def _arg_kernel(np_func):
    def kernel(x, *, axis, output_type):
        if not -x.ndim <= axis < max(x.ndim, 1) or x.ndim == 0:
            raise ValueError(f"axis {axis} is out of range for a tensor of rank {x.ndim}")
        if x.shape[axis] == 0:
            raise ValueError(f"reduction axis {axis} is empty in shape {x.shape}")
        return np_func(x, axis=axis).astype(output_type.as_numpy_dtype)
    return kernel


def _arg_infer(inputs, attrs):
    x = inputs[0]
    axis, out = attrs["axis"], attrs["output_type"]
    if out not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"output_type must be int32 or int64, got {out.name}")
    rank = x.shape.rank
    if rank is None:
        return [(out, TensorShape(None))]
    if rank == 0:  # TF's shape function lets a scalar through; the kernel rejects it
        return [(out, TensorShape(()))]
    dims = list(x.shape.dims)
    del dims[normalize_axis(axis, rank)]
    return [(out, TensorShape(tuple(dims)))]


ARG_MAX = declare_op("ArgMax", _arg_kernel(np.argmax), _arg_infer, input_kinds="fiub",
                     grad_inputs=())
ARG_MIN = declare_op("ArgMin", _arg_kernel(np.argmin), _arg_infer, input_kinds="fiub",
                     grad_inputs=())


def _arg(op_def, x, axis, output_type, name):
    x = convert_to_tensor(x)
    strict = op_def is ARG_MAX  # TF's argmax rejects any non-int axis with a TypeError
    if strict and (axis is not None and not isinstance(axis, (int, np.integer, Tensor)) or
                   isinstance(axis, Tensor) and not axis.dtype.is_integer):
        raise TypeError(f"{op_def.type}: axis must be an int32 or int64 scalar, got {axis!r}")
    axis = static_axis(0 if axis is None else axis)
    rank = x.shape.rank
    if rank is not None and rank > 0 and not -rank <= axis < rank:  # TF: a runtime error
        message = f"{op_def.type}: axis {axis} is out of range for a tensor of rank {rank}"
        raise mode_error(message, ValueError)
    attrs = {"axis": axis, "output_type": dtypes.as_dtype(output_type)}
    return apply_op(op_def, (x,), attrs, name)


def argmax(input: Any, axis: Any = None, output_type: Any = dtypes.int64,  # noqa: A002
           name: Optional[str] = None):
    """Index of the largest value along `axis` (default 0); first one on ties."""
    return _arg(ARG_MAX, input, axis, output_type, name)


def argmin(input: Any, axis: Any = None, output_type: Any = dtypes.int64,  # noqa: A002
           name: Optional[str] = None):
    """Index of the smallest value along `axis` (default 0); first one on ties."""
    return _arg(ARG_MIN, input, axis, output_type, name)


def _top_k_kernel(x, *, k, sorted):  # noqa: A002 (TF's attr name)
    if x.ndim == 0:
        raise ValueError("input must be at least rank 1")
    if k > x.shape[-1]:
        raise ValueError(f"input must have at least k={k} columns, got shape {x.shape}")
    keys = x.astype(np.int64) if x.dtype.kind == "u" else x
    # Stable sort of the negated keys: ties keep the lower index first, as in TF.
    order = np.argsort(-keys, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


def _top_k_infer(inputs, attrs):
    x, k = inputs[0], attrs["k"]
    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    if x.shape.rank is None:
        shape = TensorShape(None)
    else:
        if x.shape.rank == 0:
            raise ValueError("input must be at least rank 1")
        last = x.shape[-1]
        if last is not None and last < k:
            raise ValueError(f"input must have at least k={k} columns, got shape {x.shape}")
        shape = TensorShape(tuple(x.shape.dims[:-1]) + (k,))
    return [(x.dtype, shape), (dtypes.int32, shape)]


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
TOP_K = declare_op("TopKV2", _top_k_kernel, _top_k_infer, num_outputs=2, input_kinds="fiu",
                   grad_inputs=(), grad_outputs=(1,))


def top_k(input: Any, k: Any = 1, sorted: bool = True,  # noqa: A002 (TF's names)
          name: Optional[str] = None):
    """The k largest entries of the last axis, and their int32 indices (largest first)."""
    attrs = {"k": static_axis(k, "k"), "sorted": bool(sorted)}
    values, indices = apply_op(TOP_K, (convert_to_tensor(input),), attrs, name)
    return TopKV2(values, indices)


__all__ = ["argmax", "argmin", "top_k"]
