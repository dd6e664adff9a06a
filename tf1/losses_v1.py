"""TF1's `tf.compat.v1.losses`: per-element losses with `weights`, a `reduction`, and
the LOSSES collection (`get_total_loss`, `get_regularization_loss`).

Each loss function weights its per-element losses (weights broadcast to them),
reduces them (default SUM_BY_NONZERO_WEIGHTS: the weighted sum over the number
of non-zero weights, 0 when there are none) and, when a graph is being built,
adds the result to `loss_collection` as TF1 does.
"""
from __future__ import annotations

from typing import Any, List, Optional

from ..eager import context
from ..framework import dtypes
from ..ops.array import array_ops
from ..ops.math import math_ops, reduction_ops
from ..ops.nn import nn_ops, softmax_ops
from ..ops.math import special_math_ops
from ..ops.constant_op import constant, convert_to_tensor
from .collections_v1 import GraphKeys, add_to_collection, get_collection


class Reduction:
    """How a loss reduces its weighted per-element values (TF1's names)."""
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def add_loss(loss: Any, loss_collection: Optional[str] = GraphKeys.LOSSES) -> None:
    """Adds `loss` to `loss_collection` while a graph is built (eagerly: nothing)."""
    if loss_collection and not context.executing_eagerly():
        add_to_collection(loss_collection, loss)


def _num_present(losses: Any, weights: Any) -> Any:
    present = math_ops.cast(math_ops.not_equal(weights, 0.0), dtypes.float32)
    present = present * array_ops.ones_like(losses)
    return reduction_ops.reduce_sum(present)


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: Optional[str] = None,
                          loss_collection: Optional[str] = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """`losses * weights`, reduced by `reduction`, added to `loss_collection`."""
    Reduction.validate(reduction)
    losses = convert_to_tensor(losses)
    input_dtype = losses.dtype
    losses = math_ops.cast(losses, dtypes.float32)
    weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
    weighted = losses * weights
    if reduction == Reduction.NONE:
        loss = weighted
    else:
        total = reduction_ops.reduce_sum(weighted)
        if reduction == Reduction.SUM:
            loss = total
        elif reduction == Reduction.MEAN:
            loss = special_math_ops.divide_no_nan(
                total, reduction_ops.reduce_sum(array_ops.ones_like(losses) * weights))
        elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
            loss = special_math_ops.divide_no_nan(
                total, math_ops.cast(array_ops.size(losses), dtypes.float32))
        else:
            loss = special_math_ops.divide_no_nan(total, _num_present(losses, weights))
    loss = math_ops.cast(loss, input_dtype)
    add_loss(loss, loss_collection)
    return loss


def _pair(labels: Any, predictions: Any) -> "tuple[Any, Any]":
    predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
    labels = math_ops.cast(convert_to_tensor(labels), predictions.dtype)
    if labels.shape.is_fully_defined() and predictions.shape.is_fully_defined() and \
            labels.shape != predictions.shape:
        raise ValueError(f"Shapes {labels.shape} and {predictions.shape} are incompatible")
    return labels, predictions


def absolute_difference(labels: Any, predictions: Any, weights: Any = 1.0,
                        scope: Optional[str] = None,
                        loss_collection: Optional[str] = GraphKeys.LOSSES,
                        reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    labels, predictions = _pair(labels, predictions)
    return compute_weighted_loss(math_ops.abs(predictions - labels), weights, scope,
                                 loss_collection, reduction)


def mean_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                       scope: Optional[str] = None,
                       loss_collection: Optional[str] = GraphKeys.LOSSES,
                       reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    labels, predictions = _pair(labels, predictions)
    return compute_weighted_loss(math_ops.square(predictions - labels), weights, scope,
                                 loss_collection, reduction)


def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: float = 1e-7,
             scope: Optional[str] = None, loss_collection: Optional[str] = GraphKeys.LOSSES,
             reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    labels, predictions = _pair(labels, predictions)
    losses = -labels * math_ops.log(predictions + epsilon) - \
        (1.0 - labels) * math_ops.log(1.0 - predictions + epsilon)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: float = 1.0,
               scope: Optional[str] = None, loss_collection: Optional[str] = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    labels, predictions = _pair(labels, predictions)
    error = math_ops.abs(predictions - labels)
    quadratic = math_ops.minimum(error, delta)
    linear = error - quadratic
    losses = 0.5 * math_ops.square(quadratic) + delta * linear
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: Optional[str] = None,
               loss_collection: Optional[str] = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Labels in {0, 1}, taken as {-1, 1}."""
    labels, logits = _pair(labels, logits)
    losses = nn_ops.relu(1.0 - (2.0 * labels - 1.0) * logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def cosine_distance(labels: Any, predictions: Any, axis: Optional[int] = None,
                    weights: Any = 1.0, scope: Optional[str] = None,
                    loss_collection: Optional[str] = GraphKeys.LOSSES,
                    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
                    dim: Optional[int] = None) -> Any:
    """1 - <labels, predictions> along `axis` (both assumed unit-normalised, as TF)."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    labels, predictions = _pair(labels, predictions)
    losses = 1.0 - reduction_ops.reduce_sum(labels * predictions, axis=axis, keepdims=True)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0.0, scope: Optional[str] = None,
                          loss_collection: Optional[str] = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    labels, logits = _pair(multi_class_labels, logits)
    if label_smoothing > 0:
        labels = labels * (1.0 - label_smoothing) + 0.5 * label_smoothing
    losses = softmax_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0.0, scope: Optional[str] = None,
                          loss_collection: Optional[str] = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Per-example softmax cross entropy (no gradient into the labels, as TF1)."""
    logits = convert_to_tensor(logits)
    labels = math_ops.cast(convert_to_tensor(onehot_labels), logits.dtype)
    if label_smoothing > 0:
        classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype)
        labels = labels * (1.0 - label_smoothing) + label_smoothing / classes
    losses = softmax_ops.softmax_cross_entropy_with_logits(
        array_ops.stop_gradient(labels), logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sparse_softmax_cross_entropy(labels: Any, logits: Any, weights: Any = 1.0,
                                 scope: Optional[str] = None,
                                 loss_collection: Optional[str] = GraphKeys.LOSSES,
                                 reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    losses = softmax_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def get_losses(scope: Optional[str] = None, loss_collection: str = GraphKeys.LOSSES) -> List[Any]:
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope: Optional[str] = None) -> List[Any]:
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope: Optional[str] = None,
                            name: str = "total_regularization_loss") -> Any:
    """The sum of the REGULARIZATION_LOSSES collection (0.0 without any)."""
    losses = get_regularization_losses(scope)
    if not losses:
        return constant(0.0)
    return reduction_ops.add_n(losses, name=name)


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: Optional[str] = None) -> Any:
    """The sum of the LOSSES collection (and the regularization losses); ValueError
    when there is no loss, as TF."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found")
    return reduction_ops.add_n(losses, name=name)


NAMES = {name: globals()[name] for name in (
    "Reduction add_loss compute_weighted_loss absolute_difference mean_squared_error "
    "log_loss huber_loss hinge_loss cosine_distance sigmoid_cross_entropy "
    "softmax_cross_entropy sparse_softmax_cross_entropy get_losses "
    "get_regularization_losses get_regularization_loss get_total_loss").split()}
