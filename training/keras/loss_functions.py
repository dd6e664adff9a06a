"""Keras 3's newer per-sample loss functions: focal cross-entropies, cosine
similarity, log-cosh, the hinge family, Dice/Tversky (segmentation), Circle
(metric learning) and the generalized cross-entropy. Each returns one loss per
sample (or a scalar where Keras reduces over `axis=None`), with Keras' formulas
and its epsilon (1e-7).
"""
from __future__ import annotations

from typing import Any, Optional

from ...framework import dtypes
from ...ops.array import array_ops, creation_ops, manip_ops
from ...ops.math import math_ops, matmul_ops, reduction_ops, special_math_ops
from ...ops.nn import softmax_ops
from ...ops.constant_op import convert_to_tensor
from .loss_reduction import EPSILON, prepare, squeeze_or_expand_to_same_rank


def _check_int_axis(axis: Any) -> None:
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")


def clipped_binary_crossentropy(y_true: Any, output: Any) -> Any:
    """Element-wise cross-entropy of probabilities clipped to [eps, 1 - eps]."""
    output = special_math_ops.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -(y_true * math_ops.log(output) + (1.0 - y_true) * math_ops.log(1.0 - output))


def binary_focal_crossentropy(y_true: Any, y_pred: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False, label_smoothing: float = 0.0,
                              axis: int = -1) -> Any:
    """Binary cross-entropy scaled by (1 - p_t)^gamma (and alpha when balancing classes)."""
    y_true, y_pred = prepare(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = math_ops.sigmoid(y_pred)
    bce = clipped_binary_crossentropy(y_true, y_pred)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = math_ops.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return reduction_ops.reduce_mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true: Any, y_pred: Any, alpha: float = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> Any:
    """Categorical cross-entropy scaled by alpha * (1 - p)^gamma per class."""
    _check_int_axis(axis)
    y_true, y_pred = prepare(y_true, y_pred)
    if label_smoothing:
        classes = math_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        y_pred = softmax_ops.softmax(y_pred, axis=axis)
    output = y_pred / reduction_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    output = special_math_ops.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    cce = -y_true * math_ops.log(output)
    weight = math_ops.pow(1.0 - output, gamma) * alpha
    return reduction_ops.reduce_sum(weight * cce, axis=axis)


def l2_normalize(x: Any, axis: int) -> Any:
    """x * min(rsqrt(sum(x^2)), 1/eps), Keras' `normalize(order=2)`."""
    inverse = math_ops.rsqrt(reduction_ops.reduce_sum(math_ops.square(x), axis=axis,
                                                      keepdims=True))
    return x * math_ops.minimum(inverse, 1.0 / EPSILON)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Minus the cosine of the angle between the two vectors along `axis`."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*prepare(y_true, y_pred))
    return -reduction_ops.reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis),
                                     axis=axis)


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    """Mean of log(cosh(error)), computed as x + softplus(-2x) - log 2 (no overflow)."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*prepare(y_true, y_pred))
    error = y_pred - y_true
    log2 = math_ops.cast(convert_to_tensor(0.6931471805599453), y_pred.dtype)
    return reduction_ops.reduce_mean(error + special_math_ops.softplus(error * -2.0) - log2,
                                     axis=-1)


def binary_labels_to_signed(y_true: Any) -> Any:
    """Labels all in {0, 1} become {-1, 1}; any other labels stay as given."""
    is_binary = reduction_ops.reduce_all(
        math_ops.logical_or(math_ops.equal(y_true, 0.0), math_ops.equal(y_true, 1.0)))
    return array_ops.where(is_binary, 2.0 * y_true - 1.0, y_true)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = prepare(y_true, y_pred)
    margin = math_ops.maximum(1.0 - binary_labels_to_signed(y_true) * y_pred, 0.0)
    return reduction_ops.reduce_mean(math_ops.square(margin), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """max(0, 1 + max over wrong classes - score of the true class)."""
    y_true, y_pred = prepare(y_true, y_pred)
    positive = reduction_ops.reduce_sum(y_true * y_pred, axis=-1)
    negative = reduction_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return math_ops.maximum(negative - positive + 1.0, 0.0)


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Any:
    """1 - 2|A∩B| / (|A| + |B| + eps), summed over `axis` (all axes by default)."""
    y_true, y_pred = prepare(y_true, y_pred)
    intersection = reduction_ops.reduce_sum(y_true * y_pred, axis=axis)
    total = reduction_ops.reduce_sum(y_true, axis=axis) + \
        reduction_ops.reduce_sum(y_pred, axis=axis) + EPSILON
    return 1.0 - 2.0 * intersection / total


def tversky(y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5,
            axis: Any = None) -> Any:
    """1 - TP / (TP + alpha FP + beta FN + eps): Dice with weighted error kinds."""
    y_true, y_pred = prepare(y_true, y_pred)
    intersection = reduction_ops.reduce_sum(y_true * y_pred, axis=axis)
    false_pos = reduction_ops.reduce_sum((1.0 - y_pred) * y_true, axis=axis)
    false_neg = reduction_ops.reduce_sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - intersection / (intersection + false_pos * alpha + false_neg * beta + EPSILON)


def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: float) -> Any:
    """(1 - p_true^q) / q for integer labels: robust to noisy labels for q in (0, 1)."""
    y_pred = convert_to_tensor(y_pred)
    labels = math_ops.cast(convert_to_tensor(y_true), dtypes.int32)
    one_hot = manip_ops.one_hot(labels, array_ops.shape(y_pred)[-1], dtype=y_pred.dtype)
    p = reduction_ops.reduce_sum(y_pred * one_hot, axis=-1)
    return (1.0 - math_ops.pow(p, q)) / q


def positive_negative_masks(query_labels: Any, key_labels: Any, remove_diagonal: bool) -> Any:
    """Boolean matrices of same-label and different-label pairs."""
    query = array_ops.reshape(query_labels, [-1, 1])
    key = array_ops.reshape(key_labels, [-1, 1])
    positive = math_ops.equal(query, array_ops.transpose(key))
    negative = math_ops.logical_not(positive)
    if remove_diagonal:
        off_diagonal = math_ops.equal(creation_ops.eye(array_ops.size(query), array_ops.size(key)),
                                      0.0)
        positive = math_ops.logical_and(positive, off_diagonal)
    return positive, negative


def circle(y_true: Any, y_pred: Any, ref_labels: Any = None, ref_embeddings: Any = None,
           remove_diagonal: bool = True, gamma: float = 80, margin: float = 0.4) -> Any:
    """Circle loss of L2-normalised embeddings `y_pred` with integer labels `y_true`."""
    y_pred = convert_to_tensor(y_pred)
    labels = math_ops.cast(convert_to_tensor(y_true), dtypes.int32)
    ref_embeddings = y_pred if ref_embeddings is None else convert_to_tensor(ref_embeddings)
    ref_labels = labels if ref_labels is None else \
        math_ops.cast(convert_to_tensor(ref_labels), dtypes.int32)
    distances = 1.0 - matmul_ops.matmul(y_pred, array_ops.transpose(ref_embeddings))
    distances = math_ops.maximum(distances, 0.0)
    positive, negative = positive_negative_masks(labels, ref_labels, remove_diagonal)
    pos_weights = math_ops.maximum((margin + distances) * math_ops.cast(positive, y_pred.dtype),
                                   0.0)
    neg_weights = math_ops.maximum(
        (1.0 + margin - distances) * math_ops.cast(negative, y_pred.dtype), 0.0)
    pos_logits = -1.0 * gamma * pos_weights * (margin - distances)
    neg_logits = gamma * neg_weights * ((1.0 - margin) - distances)
    minus_inf = array_ops.fill(array_ops.shape(distances),
                               math_ops.cast(convert_to_tensor(float("-inf")), y_pred.dtype))
    pos_loss = special_math_ops.reduce_logsumexp(array_ops.where(positive, pos_logits, minus_inf),
                                                 axis=1)
    neg_loss = special_math_ops.reduce_logsumexp(array_ops.where(negative, neg_logits, minus_inf),
                                                 axis=1)
    return special_math_ops.softplus(pos_loss + neg_loss)


def positive_loss_mask(losses: Any) -> Optional[Any]:
    """Circle's Keras mask: only samples with a positive loss count in the mean."""
    return math_ops.greater(losses, 0.0)
