"""Keras' CTC loss (`keras.losses.ctc`): the negative log-likelihood of a label
sequence under per-frame class logits, summed over every alignment.

Labels are `(batch, max_label_length)` integers padded with 0, which is also
the blank class (Keras' `mask_index=0`); every sample uses all `max_time`
frames. The forward (alpha) recursion runs over the time axis in log space with
duograd ops, one step per frame (the graph grows with time, never recursing),
so the loss is differentiable by the tape. Unreachable states hold a large
finite negative number instead of -inf, keeping gradients free of NaN.
"""
from __future__ import annotations

from typing import Any

from ...framework import dtypes
from ...ops.array import array_ops, join_ops, manip_ops
from ...ops.math import math_ops, matmul_ops, reduction_ops, special_math_ops
from ...ops.nn import softmax_ops
from ...ops.constant_op import convert_to_tensor

UNREACHABLE = -1e30  # log-probability of a state no alignment reaches


def extended_labels(labels: Any) -> "tuple[Any, Any, Any]":
    """Blank-interleaved labels (batch, 2L+1); where a state may skip the one before
    it (a label differing from the label two states back); label lengths."""
    blanks = array_ops.zeros_like(labels)
    pairs = join_ops.stack([blanks, labels], axis=2)
    batch = array_ops.shape(labels)[0]
    extended = join_ops.concat([array_ops.reshape(pairs, [batch, -1]), blanks[:, :1]], axis=1)
    later, earlier = extended[:, 2:], extended[:, :-2]
    skip = math_ops.logical_and(math_ops.not_equal(later, 0), math_ops.not_equal(later, earlier))
    never = math_ops.not_equal(blanks[:, :1], blanks[:, :1])
    can_skip = join_ops.concat([never, never, skip], axis=1)
    lengths = reduction_ops.reduce_sum(math_ops.cast(math_ops.not_equal(labels, 0), dtypes.int64),
                                       axis=-1)
    return extended, can_skip, lengths


def shifted(alpha: Any, by: int) -> Any:
    """alpha moved `by` states to the right along the last axis, UNREACHABLE entering."""
    pad = array_ops.fill([array_ops.shape(alpha)[0], by],
                         math_ops.cast(convert_to_tensor(UNREACHABLE), alpha.dtype))
    return join_ops.concat([pad, alpha[:, :-by]], axis=1)


def ctc(y_true: Any, y_pred: Any) -> Any:
    """Per-sample CTC loss of integer labels `y_true` and logits `y_pred` (batch, time, classes)."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.shape.rank != 2:
        raise ValueError("Targets `y_true` are expected to be a tensor of shape `(batch_size, "
                         f"max_length)` in integer format. Received: y_true.shape={y_true.shape}")
    if y_pred.shape.rank != 3:
        raise ValueError("Logits `y_pred` are expected to be a tensor of shape `(batch_size, "
                         f"max_length, num_classes)`. Received: y_pred.shape={y_pred.shape}")
    result_dtype = y_pred.dtype if y_pred.dtype.is_floating else dtypes.float32
    if result_dtype != y_pred.dtype or y_pred.dtype == dtypes.float64:
        y_pred = math_ops.cast(y_pred, dtypes.float32)  # Keras computes float64 in float32
    if y_pred.shape[1] is None:
        raise ValueError(f"ctc needs a known number of frames; got y_pred.shape={y_pred.shape}")
    labels = math_ops.cast(y_true, dtypes.int64)
    extended, skip, lengths = extended_labels(labels)
    log_probs = softmax_ops.log_softmax(y_pred, axis=-1)
    one_hot = manip_ops.one_hot(extended, array_ops.shape(y_pred)[-1], dtype=y_pred.dtype)
    # emissions[b, t, s]: log-probability of state s's class at frame t
    emissions = matmul_ops.matmul(log_probs, one_hot, transpose_b=True)
    states = array_ops.shape(extended)[1]
    first_two = manip_ops.one_hot([0, 1], states, dtype=y_pred.dtype)
    start = (1.0 - reduction_ops.reduce_sum(first_two, axis=0)) * UNREACHABLE
    alpha = emissions[:, 0, :] + start
    unreachable = array_ops.fill(array_ops.shape(alpha),
                                 math_ops.cast(convert_to_tensor(UNREACHABLE), alpha.dtype))
    for t in range(1, int(y_pred.shape[1])):
        two_back = array_ops.where(skip, shifted(alpha, 2), unreachable)
        paths = join_ops.stack([alpha, shifted(alpha, 1), two_back], axis=-1)
        alpha = special_math_ops.reduce_logsumexp(paths, axis=-1) + emissions[:, t, :]
    # an alignment ends on the last label or on the blank after it (none: a -1 index)
    ends = manip_ops.one_hot(2 * lengths, states, dtype=alpha.dtype) + \
        manip_ops.one_hot(2 * lengths - 1, states, dtype=alpha.dtype)
    final = array_ops.where(math_ops.greater(ends, 0.0), alpha, unreachable)
    return math_ops.cast(-special_math_ops.reduce_logsumexp(final, axis=-1), result_dtype)


__all__ = ["ctc"]
