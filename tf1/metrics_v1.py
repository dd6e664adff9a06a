"""TF1's streaming metrics (`tf.compat.v1.metrics`): each returns `(value, update_op)`
and keeps its running `total` and `count` in local variables (LOCAL_VARIABLES and
METRIC_VARIABLES collections), so `local_variables_initializer()` resets them.

The value reads total / count (0 before any update); the update op adds a
batch and returns the updated value, as TF1.
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ..framework import dtypes
from ..framework.scopes import control_dependencies
from ..ops.array import array_ops
from ..ops.math import math_ops, reduction_ops, special_math_ops
from ..ops.state import state_ops
from ..ops.constant_op import convert_to_tensor
from ..ops.state.variable_scope import get_variable, variable_scope
from ..ops.state import init_ops
from .collections_v1 import GraphKeys, add_to_collections


def _local(name: str) -> Any:
    return get_variable(name, [], dtype=dtypes.float32, initializer=init_ops.Zeros(),
                        trainable=False,
                        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _collect(names: Optional[List[str]], value: Any) -> None:
    if names:
        add_to_collections(names, value)


def mean(values: Any, weights: Any = None, metrics_collections: Optional[List[str]] = None,
         updates_collections: Optional[List[str]] = None,
         name: Optional[str] = None) -> Tuple[Any, Any]:
    """The running (weighted) mean of `values`."""
    with variable_scope(name, default_name="mean"):
        return _running_mean(values, weights, metrics_collections, updates_collections)


def _running_mean(values: Any, weights: Any, metrics_collections: Optional[List[str]],
                  updates_collections: Optional[List[str]]) -> Tuple[Any, Any]:
    """(value, update_op) of a running mean whose variables live in the current scope."""
    values = math_ops.cast(convert_to_tensor(values), dtypes.float32)
    total, count = _local("total"), _local("count")
    if weights is None:
        batch_total = reduction_ops.reduce_sum(values)
        batch_count = math_ops.cast(array_ops.size(values), dtypes.float32)
    else:
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32) * \
            array_ops.ones_like(values)
        batch_total = reduction_ops.reduce_sum(values * weights)
        batch_count = reduction_ops.reduce_sum(weights)
    update_total = state_ops.assign_add(total, batch_total)
    update_count = state_ops.assign_add(count, batch_count)
    value = special_math_ops.divide_no_nan(total.value(), count.value(), name="value")
    with control_dependencies([update_total, update_count]):
        update_op = special_math_ops.divide_no_nan(total.value(), count.value(),
                                                   name="update_op")
    _collect(metrics_collections, value)
    _collect(updates_collections, update_op)
    return value, update_op


def accuracy(labels: Any, predictions: Any, weights: Any = None,
             metrics_collections: Optional[List[str]] = None,
             updates_collections: Optional[List[str]] = None,
             name: Optional[str] = None) -> Tuple[Any, Any]:
    """The running fraction of `predictions` equal to `labels`."""
    with variable_scope(name, default_name="accuracy"):
        predictions = convert_to_tensor(predictions)
        labels = math_ops.cast(convert_to_tensor(labels), predictions.dtype)
        matches = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        return _running_mean(matches, weights, metrics_collections, updates_collections)


def mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                       metrics_collections: Optional[List[str]] = None,
                       updates_collections: Optional[List[str]] = None,
                       name: Optional[str] = None) -> Tuple[Any, Any]:
    with variable_scope(name, default_name="mean_squared_error"):
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        return _running_mean(math_ops.square(labels - predictions), weights,
                             metrics_collections, updates_collections)


def mean_absolute_error(labels: Any, predictions: Any, weights: Any = None,
                        metrics_collections: Optional[List[str]] = None,
                        updates_collections: Optional[List[str]] = None,
                        name: Optional[str] = None) -> Tuple[Any, Any]:
    with variable_scope(name, default_name="mean_absolute_error"):
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        return _running_mean(math_ops.abs(labels - predictions), weights,
                             metrics_collections, updates_collections)


NAMES = {"mean": mean, "accuracy": accuracy, "mean_squared_error": mean_squared_error,
         "mean_absolute_error": mean_absolute_error}
