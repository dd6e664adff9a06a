"""Selection ops of tf.nn / tf.math beyond top_k: approx_max_k / approx_min_k (TF's ApproxTopK,
exact on CPU as TF's), nth_element (TF's NthElement, reached in TF through tf.raw_ops only)
and isotonic_regression (TF's IsotonicRegression, pool-adjacent-violators). Gradients:
grad_registry/ranking_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.errors import NotFoundError
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..math import math_ops
from ..tensor_util import constant_value


# -- ApproxTopK -------------------------------------------------------------------------------
def _approx_top_k(x, *, k, reduction_dimension, is_max_k, recall_target, aggregate_to_topk,
                  reduction_input_size_override):
    if x.dtype not in (np.float16, np.float32):
        raise ValueError(f"Value for attr 'T' of {x.dtype} is not in the list of allowed values: "
                         f"half, bfloat16, float [Op:ApproxTopK]")
    if reduction_dimension != -1:  # TF's CPU kernel is registered for the last axis only
        raise NotFoundError(None, None, f"Could not find device for node ApproxTopK with "
                                        f"reduction_dimension={reduction_dimension}: the CPU "
                                        f"kernel reduces the last axis (-1) only")
    axis = x.ndim - 1
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(f"ApproxTopK: k ({k}) must be in [0, {x.shape[axis]}]")
    keys = -x if is_max_k else x
    order = np.argsort(keys, axis=axis, kind="stable")
    index = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, index, axis=axis), index.astype(np.int32)


def _approx_infer(inputs, attrs):
    x = inputs[0]
    if x.dtype.as_numpy_dtype not in (np.float16, np.float32):
        raise TypeError(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
                        f"values: half, bfloat16, float (ApproxTopK)")
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None)), (dtypes.int32, TensorShape(None))]
    dims = x.shape.as_list()
    dims[attrs["reduction_dimension"] % len(dims)] = attrs["k"]
    return [(x.dtype, TensorShape(dims)), (dtypes.int32, TensorShape(dims))]


APPROX_TOP_K = declare_op("ApproxTopK", _approx_top_k, _approx_infer, num_outputs=2,
                          input_kinds="f", grad_inputs=(), grad_outputs=(1,))


def _approx(x, k, reduction_dimension, recall_target, is_max_k, reduction_input_size_override,
            aggregate_to_topk, name):
    attrs = {"k": int(k), "reduction_dimension": int(reduction_dimension),
             "is_max_k": is_max_k, "recall_target": float(recall_target),
             "aggregate_to_topk": bool(aggregate_to_topk),
             "reduction_input_size_override": int(reduction_input_size_override)}
    values, indices = apply_op(APPROX_TOP_K, (convert_to_tensor(x),), attrs, name)
    return values, indices


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: Optional[str] = None):
    """(values, indices) of the k largest entries along reduction_dimension (exact here, as
    TF's CPU kernel)."""
    return _approx(operand, k, reduction_dimension, recall_target, True,
                   reduction_input_size_override, aggregate_to_topk, name)


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: Optional[str] = None):
    """(values, indices) of the k smallest entries along reduction_dimension."""
    return _approx(operand, k, reduction_dimension, recall_target, False,
                   reduction_input_size_override, aggregate_to_topk, name)


# -- NthElement -------------------------------------------------------------------------------
def _check_nth(rank: Optional[int], n_rank: Optional[int], n: Optional[int],
               last: Optional[int]) -> None:
    """TF's NthElement checks (shape inference and kernel share them)."""
    if rank is not None and rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {rank} for NthElement")
    if n_rank is not None and n_rank != 0:
        raise ValueError(f"N must be scalar but has rank {n_rank}")
    if n is not None and n < 0:
        raise ValueError(f"N must be non-negative but is {n}")
    if n is not None and last is not None and last <= n:
        raise ValueError(f"Input must have last dimension > n = {n}")


def _nth_element(x, n, *, reverse):
    _check_nth(x.ndim, np.ndim(n), int(n) if np.ndim(n) == 0 else None,
               x.shape[-1] if x.ndim else None)
    n = int(n)
    position = x.shape[-1] - 1 - n if reverse else n
    return np.partition(x, position, axis=-1)[..., position].copy()


def _nth_infer(inputs, attrs):
    x, n_t = inputs
    value = constant_value(n_t)
    _check_nth(x.shape.rank, n_t.shape.rank, None if value is None or np.ndim(value) else
               int(value), x.shape[-1] if x.shape.rank else None)
    return [(x.dtype, TensorShape(None) if x.shape.rank is None else x.shape[:-1])]


NTH_ELEMENT = declare_op("NthElement", _nth_element, _nth_infer, input_kinds="fiu",
                         grad_inputs=(0,), grad_outputs=(0,))


def nth_element(input: Any, n: Any, reverse: bool = False,  # noqa: A002 (TF's name)
                name: Optional[str] = None):
    """The n-th smallest (largest with reverse) value along the last axis."""
    return apply_op(NTH_ELEMENT, (convert_to_tensor(input),
                                  convert_to_tensor(n, dtype=dtypes.int32)),
                    {"reverse": bool(reverse)}, name)


# -- IsotonicRegression ---------------------------------------------------------------------
def _pav(row: np.ndarray):
    """Pool adjacent violators for a non-increasing fit: (fit, segment id of each entry)."""
    means, counts = [], []
    for value in row:
        means.append(float(value))
        counts.append(1)
        while len(means) > 1 and means[-2] <= means[-1]:
            total = means[-1] * counts[-1] + means[-2] * counts[-2]
            count = counts[-1] + counts[-2]
            means[-2:] = [total / count]
            counts[-2:] = [count]
    fit = np.repeat(means, counts)
    segments = np.repeat(np.arange(len(counts)), counts)
    return fit, segments


def _isotonic(x, *, output_dtype):
    out_dtype = np.dtype(output_dtype)
    flat = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    fits = np.empty(flat.shape, out_dtype)
    segments = np.empty(flat.shape, np.int32)
    for i, row in enumerate(flat.astype(np.float64)):
        fits[i], segments[i] = _pav(row)
    return fits.reshape(x.shape), segments.reshape(x.shape)


def _isotonic_infer(inputs, attrs):
    x = inputs[0]
    return [(dtypes.as_dtype(attrs["output_dtype"]), x.shape), (dtypes.int32, x.shape)]


ISOTONIC_REGRESSION = declare_op("IsotonicRegression", _isotonic, _isotonic_infer,
                                 num_outputs=2, input_kinds="fiu", grad_inputs=(),
                                 grad_outputs=(1,))


# TF's promotion: half and float keep their type, int8/int16 become float, the rest double.
_ISOTONIC_OUTPUT = {dtypes.float32: dtypes.float32, dtypes.float16: dtypes.float16,
                    dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32}


def isotonic_regression(inputs: Any, decreasing: bool = True, axis: int = -1,
                        name: Optional[str] = None):
    """(the best non-increasing (decreasing=True) or non-decreasing least-squares fit along
    axis, the segment id of each entry)."""
    x = convert_to_tensor(inputs)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("isotonic_regression needs an input of known rank")
    axis = axis % rank
    perm = [i for i in range(rank) if i != axis] + [axis]
    moved = array_ops.transpose(x, perm) if axis != rank - 1 else x
    if not decreasing:
        moved = math_ops.negative(moved)
    out_dtype = _ISOTONIC_OUTPUT.get(x.dtype, dtypes.float64)
    fit, segments = apply_op(ISOTONIC_REGRESSION, (moved,),
                             {"output_dtype": out_dtype.as_numpy_dtype}, name)
    if not decreasing:
        fit = math_ops.negative(fit)
    if axis != rank - 1:
        inverse = [perm.index(i) for i in range(rank)]
        fit, segments = array_ops.transpose(fit, inverse), array_ops.transpose(segments, inverse)
    return fit, segments


NN_NAMES = {"approx_max_k": approx_max_k, "approx_min_k": approx_min_k,
            "isotonic_regression": isotonic_regression,
            # TF's nn_ops.nth_element (tf.raw_ops.NthElement in TF's public API)
            "nth_element": nth_element}
MATH_NAMES = {"approx_max_k": approx_max_k, "approx_min_k": approx_min_k}
