"""dg.nn softmax, log_softmax and the cross-entropy losses. Gradients: softmax_grad.py.

Softmax, LogSoftmax and the two softmax cross-entropies are primitives for
stability: each kernel subtracts the maximum logit before exponentiating, so
logits of +-1000 stay finite, where exp/sum/log composed from math ops would
overflow to inf and NaN. The cross-entropies also return the backprop
(softmax - labels) as a second output, as TF's fused ops do, so their gradient
costs one multiply. The sigmoid cross-entropy is composed (TF's stable formula).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from ...framework.func_graph import FuncGraph
from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from ..math import math_ops
from ..constant_op import convert_to_tensor
from ..shape_rules import normalize_axis
from ..dispatch import apply_op
from ..tensor_util import constant_value
from ..op_helpers import apply_unary


def _check_axis(rank: Optional[int], axis: int) -> None:
    if rank is None:
        return
    if rank < 1:
        raise ValueError("logits must have at least one dimension (got a scalar)")
    normalize_axis(axis, rank)


def _log_softmax_parts(x, axis):
    """(x - max, log(sum(exp(x - max)))) along `axis`, both of x's dtype."""
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_sum = np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))
    return shifted, log_sum


def _softmax(x, *, axis):
    _check_axis(x.ndim, axis)
    if x.size == 0:  # nothing to normalise (np.max has no identity)
        return np.empty_like(x)
    # one fresh array, then in place; the reductions as ufunc calls (np.max and np.sum are
    # the same behind ~1.5 us of Python each)
    exps = np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True))
    np.exp(exps, out=exps)
    exps /= np.add.reduce(exps, axis=axis, keepdims=True)
    return exps


def _log_softmax(x, *, axis):
    _check_axis(x.ndim, axis)
    if x.size == 0:
        return np.empty_like(x)
    shifted, log_sum = _log_softmax_parts(x, axis)
    return shifted - log_sum


def _softmax_infer(inputs, attrs):
    x = inputs[0]
    _check_axis(x.shape.rank, attrs["axis"])
    return [(x.dtype, x.shape)]


SOFTMAX = declare_op("Softmax", _softmax, _softmax_infer, input_kinds="f", grad_inputs=(),
                     grad_outputs=(0,))
LOG_SOFTMAX = declare_op("LogSoftmax", _log_softmax, _softmax_infer, input_kinds="f",
                         grad_inputs=(), grad_outputs=(0,))


def _softmax_axis(axis: Any, logits: Any, op_type: str) -> int:
    """TF's checks of softmax's axis: a tensor ValueError, another non-int TypeError,
    out of range InvalidArgumentError (a runtime error in TF, in both modes)."""
    if axis is None:
        return -1
    if isinstance(axis, Tensor):
        axis = _tensor_axis(axis, op_type)
    if isinstance(axis, float):   # TF's Range kernel rejects it (InvalidArgumentError)
        raise InvalidArgumentError(None, None, f"{op_type}: axis must be an integer, got "
                                   f"{axis!r}")
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, (bool, np.bool_)):
        raise TypeError(f"softmax axis must be an int, got {axis!r}")
    rank = len(logits.shape) if isinstance(logits, np.ndarray) else \
        getattr(getattr(logits, "shape", None), "rank", None)
    if rank and not -rank <= int(axis) < rank:
        raise InvalidArgumentError(None, None, f"{op_type}: `dim` must be in the range [-{rank}, {rank}) "
                                   f"where {rank} is the number of dimensions in the input. "
                                   f"Received: dim={int(axis)}")
    return int(axis)


def _tensor_axis(axis: Tensor, op_type: str) -> int:
    """An integer scalar tensor `axis` as an int (TF accepts one eagerly and in a
    TF1 graph; inside a function TF tests it for truth and refuses it)."""
    if axis.dtype.is_floating and axis.shape.rank == 0:
        # TF builds range(axis + 1, rank) from it: its Range kernel rejects a float
        raise InvalidArgumentError(None, None, f"{op_type}: axis must be an integer, got a "
                                   f"{axis.dtype.name} scalar {axis!r}")
    if not axis.dtype.is_integer or axis.shape.rank not in (0, None):
        # TF compares it with -1 and tests the result for truth: a bool tensor is a
        # TypeError eagerly, anything else a ValueError
        eager_bool = axis.dtype == dtypes.bool_ and isinstance(axis, EagerTensor)
        raise (TypeError if eager_bool else ValueError)(
            f"{op_type}: axis must be an integer scalar, got {axis!r}")
    if isinstance(axis.graph if hasattr(axis, "graph") else None, FuncGraph):
        raise OperatorNotAllowedInGraphError(
            f"Using a symbolic `dg.Tensor` ({axis!r}) as a Python `bool` is not allowed: "
            f"{op_type}'s axis must be a Python int inside a dg.function.")
    value = constant_value(axis)
    if value is None:
        raise ValueError(f"{op_type}: a tensor axis must have a value known when the graph "
                         f"is built, got {axis!r}")
    return int(np.asarray(value).reshape(()))


def softmax(logits: Any, axis: Optional[int] = -1, name: Optional[str] = None):
    """exp(logits) / sum(exp(logits), axis), computed stably."""
    return apply_unary(SOFTMAX, logits, name, {"axis": _softmax_axis(axis, logits, "Softmax")})


def log_softmax(logits: Any, axis: Optional[int] = -1, name: Optional[str] = None):
    """logits - log(sum(exp(logits), axis)), computed stably."""
    return apply_unary(LOG_SOFTMAX, logits, name, {"axis": _softmax_axis(axis, logits, "LogSoftmax")})


# -- softmax cross-entropy (dense labels) ---------------------------------------------
def _softmax_xent(logits, labels, *, axis):
    _check_axis(logits.ndim, axis)
    if logits.shape != labels.shape:
        raise ValueError(f"logits and labels must be the same size: logits_size="
                         f"{list(logits.shape)} labels_size={list(labels.shape)}")
    shifted, log_sum = _log_softmax_parts(logits, axis)
    log_probs = shifted - log_sum
    loss = -np.sum(labels * log_probs, axis=axis)
    # d loss / d logits = sum(labels) * softmax - labels (TF's softmax - labels assumes
    # each row of labels sums to 1; this is that value then, and exact otherwise).
    backprop = np.sum(labels, axis=axis, keepdims=True) * np.exp(log_probs) - labels
    return np.asarray(loss, logits.dtype), backprop


def _drop_axis(shape: TensorShape, axis: int) -> TensorShape:
    if shape.rank is None:
        return shape
    dims = shape.as_list()
    del dims[axis % len(dims)]
    return TensorShape(tuple(dims))


def _softmax_xent_infer(inputs, attrs):
    logits, labels = inputs
    if labels.dtype is not logits.dtype:
        raise TypeError(f"labels dtype {labels.dtype.name} does not match logits dtype "
                        f"{logits.dtype.name}")
    _check_axis(logits.shape.rank, attrs["axis"])
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(f"logits and labels must have the same shape, got {logits.shape} "
                         f"and {labels.shape}")
    shape = logits.shape.merge_with(labels.shape)
    return [(logits.dtype, _drop_axis(shape, attrs["axis"])), (logits.dtype, shape)]


SOFTMAX_XENT = declare_op("SoftmaxCrossEntropyWithLogits", _softmax_xent, _softmax_xent_infer,
                          num_outputs=2, input_kinds="f", grad_inputs=(0, 1), grad_outputs=(1,))


def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1,
                                      name: Optional[str] = None):
    """-sum(labels * log_softmax(logits), axis); differentiable in labels too (as TF).

    Labels are cast to the logits' dtype, as in TF.
    """
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    if labels.dtype is not logits.dtype:
        labels = math_ops.cast(labels, logits.dtype)
    loss, _ = apply_op(SOFTMAX_XENT, (logits, labels), {"axis": int(axis)}, name)
    return loss


# -- sparse softmax cross-entropy (integer labels) ---------------------------------------
def _sparse_softmax_xent(logits, labels):
    if labels.dtype.kind not in "iu":
        raise TypeError(f"labels must be int32 or int64, got {labels.dtype}")
    if logits.ndim < 1 or labels.shape != logits.shape[:-1]:
        raise ValueError(f"labels shape {list(labels.shape)} must equal the logits shape "
                         f"{list(logits.shape)} without its last dimension")
    classes = logits.shape[-1]
    bad = (labels < 0) | (labels >= classes)
    if np.any(bad):
        raise ValueError(f"Received a label value of {labels[bad].flat[0]} which is outside "
                         f"the valid range of [0, {classes}).  Label values: "
                         f"{' '.join(str(v) for v in labels.flat)}")
    shifted, log_sum = _log_softmax_parts(logits, -1)
    log_probs = shifted - log_sum
    index = labels[..., None].astype(np.intp)
    loss = -np.take_along_axis(log_probs, index, axis=-1)[..., 0]
    backprop = np.exp(log_probs)
    np.put_along_axis(backprop, index, np.take_along_axis(backprop, index, axis=-1) - 1, axis=-1)
    return np.asarray(loss, logits.dtype), backprop


def _check_sparse_shapes(labels: TensorShape, logits: TensorShape) -> TensorShape:
    """The loss shape; ValueError in both modes for static mismatches (as TF's wrapper)."""
    rank = logits.rank
    if rank == 0:
        raise ValueError(f"Logits cannot be scalars - received shape {logits}.")
    loss_shape = logits if rank is None else TensorShape(logits.as_list()[:-1])
    if not loss_shape.is_compatible_with(labels):
        raise ValueError(f"Shape mismatch: The shape of labels (received {labels}) "
                         f"should equal the shape of logits except for the last dimension "
                         f"(received {logits}).")
    return loss_shape.merge_with(labels)


def _sparse_softmax_xent_infer(inputs, attrs):
    logits, labels = inputs
    if not labels.dtype.is_integer:
        raise TypeError(f"labels must be int32 or int64, got {labels.dtype.name}")
    rank = logits.shape.rank
    loss_shape = _check_sparse_shapes(labels.shape, logits.shape)
    full = logits.shape if loss_shape.rank is None else \
        TensorShape(tuple(loss_shape.dims) + (logits.shape[-1] if rank else None,))
    return [(logits.dtype, loss_shape), (logits.dtype, full)]


SPARSE_SOFTMAX_XENT = declare_op("SparseSoftmaxCrossEntropyWithLogits", _sparse_softmax_xent,
                                 _sparse_softmax_xent_infer, num_outputs=2, input_kinds="f",
                                 grad_inputs=(0,), grad_outputs=(1,))


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any,
                                             name: Optional[str] = None):
    """-log_softmax(logits)[labels] over the last axis; a label outside
    [0, classes) is an InvalidArgumentError when the op runs."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    _check_sparse_shapes(labels.shape, logits.shape)
    loss, _ = apply_op(SPARSE_SOFTMAX_XENT, (logits, labels), name=name)
    return loss


# -- sigmoid cross-entropy (composed) ------------------------------------------------------
def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                      name: Optional[str] = None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x, labels z (TF's stable form).

    Both branches are chosen by one `x >= 0` select, so the gradient at x = 0
    is the exact sigmoid(0) - z (TF does the same).
    """
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(f"logits and labels must have the same shape ({logits.shape} vs "
                         f"{labels.shape})")
    zeros = array_ops.zeros_like(logits)
    non_negative = math_ops.greater_equal(logits, zeros)
    relu_logits = array_ops.where(non_negative, logits, zeros)
    neg_abs_logits = array_ops.where(non_negative, -logits, logits)
    return math_ops.add(relu_logits - logits * labels,
                        math_ops.log1p(math_ops.exp(neg_abs_logits)), name=name)


__all__ = ["softmax", "log_softmax", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits"]
