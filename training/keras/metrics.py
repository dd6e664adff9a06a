"""Keras 3 metrics (`dg.keras.metrics`): stateful accumulators of a quantity over
batches, with `update_state(..., sample_weight=None)`, `result()`,
`reset_state()`; calling one updates it and returns the result.

Their state lives in non-trainable variables made when the metric is built
(in eager mode or at a dg.function's first trace), so `update_state` works
inside a dg.function and `result()` reads the running value.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from ...framework import dtypes
from ...framework.func_graph import init_scope
from ...ops.array import array_ops, selection_ops
from ...ops.math import math_ops, reduction_ops, special_math_ops
from ...ops.constant_op import constant, convert_to_tensor
from ...ops.state.variables import Variable
from . import losses as losses_lib, naming


class MetricVariable(Variable):
    """A metric's state variable as Keras 3 shows it: `name` "total", `path`
    "mean/total" (the underlying variable's name), Keras' repr."""

    @property
    def name(self) -> str:
        return self.path.rpartition("/")[2]

    @property
    def path(self) -> str:
        return self._name[:-2] if self._name.endswith(":0") else self._name

    def __repr__(self) -> str:
        value = "" if self._graph is not None else f", value={np.asarray(self._value)}"
        return (f"<Variable path={self.path}, shape={tuple(self.shape.as_list())}, "
                f"dtype={self.dtype.name}{value}>")


class Metric:
    """Base of Keras metrics: owns its state variables (non-trainable). An unnamed
    metric is named as Keras does: its snake-case class name, made unique."""

    def __init__(self, name: Optional[str] = None, dtype: Any = None) -> None:
        self.name = name or naming.auto_name(type(self).__name__)
        self.dtype = dtypes.as_dtype(dtype or dtypes.float32)
        self._variables: List[Variable] = []

    def add_variable(self, shape: Any, initializer: str = "zeros", dtype: Any = None,
                     name: Optional[str] = None) -> Variable:
        dtype = dtypes.as_dtype(dtype or self.dtype)
        value = np.zeros(shape, dtype.as_numpy_dtype)
        with init_scope():
            variable = MetricVariable(value, trainable=False,
                                      name=f"{self.name}/{name or 'variable'}", dtype=dtype)
        self._variables.append(variable)
        return variable

    @property
    def variables(self) -> List[Variable]:
        return list(self._variables)

    def reset_state(self) -> None:
        for variable in self._variables:
            variable.assign(np.zeros(variable.shape.as_list(), variable.dtype.as_numpy_dtype))

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement update_state")

    def result(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement result")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> Dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype.name}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


def _weighted(values: Any, sample_weight: Any, dtype: Any) -> "tuple[Any, Any]":
    """(sum of weighted values, sum of weights), weights broadcast to the values."""
    values = math_ops.cast(convert_to_tensor(values), dtype)
    if sample_weight is None:
        return reduction_ops.reduce_sum(values), math_ops.cast(array_ops.size(values), dtype)
    weight = math_ops.cast(convert_to_tensor(sample_weight), dtype)
    weight, values = losses_lib.squeeze_to_same_rank(weight, values)
    weight = weight * array_ops.ones_like(values)
    return reduction_ops.reduce_sum(values * weight), reduction_ops.reduce_sum(weight)


class Sum(Metric):
    """The (weighted) sum of the values seen."""

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name, dtype)
        self.total = self.add_variable((), name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        total, _ = _weighted(values, sample_weight, self.dtype)
        self.total.assign_add(total)

    def result(self) -> Any:
        return array_ops.identity(self.total)


class MeanState(Metric):
    """A running weighted mean: total / count (0 before any value)."""

    def __init__(self, name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(name, dtype)
        self.total = self.add_variable((), name="total")
        self.count = self.add_variable((), name="count")

    def accumulate(self, values: Any, sample_weight: Any = None) -> None:
        total, count = _weighted(values, sample_weight, self.dtype)
        self.total.assign_add(total)
        self.count.assign_add(count)

    def result(self) -> Any:
        return special_math_ops.divide_no_nan(self.total.value(), self.count.value())


class Mean(MeanState):
    """The (weighted) mean of the values seen."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name, dtype)

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        self.accumulate(values, sample_weight)


class MeanMetricWrapper(MeanState):
    """The mean of a per-sample function `fn(y_true, y_pred)` over the samples seen."""

    def __init__(self, fn: Any, name: Optional[str] = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name or fn.__name__, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self.accumulate(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)


def accuracy(y_true: Any, y_pred: Any) -> Any:
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = losses_lib.squeeze_to_same_rank(y_true, y_pred)
    return math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = losses_lib.squeeze_to_same_rank(y_true, y_pred)
    predicted = math_ops.cast(math_ops.greater(y_pred, threshold), y_pred.dtype)
    return reduction_ops.reduce_mean(
        math_ops.cast(math_ops.equal(y_true, predicted), dtypes.float32), axis=-1)


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    return math_ops.cast(math_ops.equal(selection_ops.argmax(y_true, -1),
                                        selection_ops.argmax(y_pred, -1)), dtypes.float32)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    y_pred = convert_to_tensor(y_pred)
    labels = convert_to_tensor(y_true)
    if labels.shape.rank is not None and y_pred.shape.rank is not None and \
            labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = array_ops.squeeze(labels, [-1])
    predicted = selection_ops.argmax(y_pred, -1)
    return math_ops.cast(math_ops.equal(math_ops.cast(labels, dtypes.int64), predicted),
                         dtypes.float32)


def _wrapper_class(class_name: str, fn: Any, default_name: str, *arg_names: str,
                   **defaults: Any) -> type:
    def __init__(self: Any, name: str = default_name, dtype: Any = None, *args: Any,
                 **kwargs: Any) -> None:
        options = {**defaults, **dict(zip(arg_names, args, strict=False)), **kwargs}
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **options)
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__,
                                                   "__doc__": f"Keras' {class_name} metric."})


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy")
BinaryAccuracy = _wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                                "threshold", threshold=0.5)
CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy,
                                     "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper_class("SparseCategoricalAccuracy",
                                           sparse_categorical_accuracy,
                                           "sparse_categorical_accuracy")
MeanSquaredError = _wrapper_class("MeanSquaredError", losses_lib.mean_squared_error,
                                  "mean_squared_error")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", losses_lib.mean_absolute_error,
                                   "mean_absolute_error")
BinaryCrossentropy = _wrapper_class("BinaryCrossentropy", losses_lib.binary_crossentropy,
                                    "binary_crossentropy", "from_logits", "label_smoothing",
                                    from_logits=False, label_smoothing=0.0)
CategoricalCrossentropy = _wrapper_class("CategoricalCrossentropy",
                                         losses_lib.categorical_crossentropy,
                                         "categorical_crossentropy", "from_logits",
                                         "label_smoothing", from_logits=False,
                                         label_smoothing=0.0)
SparseCategoricalCrossentropy = _wrapper_class("SparseCategoricalCrossentropy",
                                               losses_lib.sparse_categorical_crossentropy,
                                               "sparse_categorical_crossentropy", "from_logits",
                                               from_logits=False)


class RootMeanSquaredError(MeanState):
    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = losses_lib.squeeze_to_same_rank(*losses_lib.prepare(y_true, y_pred))
        self.accumulate(math_ops.square(y_pred - y_true), sample_weight)

    def result(self) -> Any:
        return math_ops.sqrt(super().result())


class AUC(Metric):
    """Area under the ROC (or PR) curve from confusion counts at `num_thresholds`
    evenly spaced thresholds, summed by Keras' rule ("interpolation": trapezoids)."""

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: Optional[str] = None,
                 dtype: Any = None, thresholds: Any = None, multi_label: bool = False,
                 num_labels: Any = None, label_weights: Any = None,
                 from_logits: bool = False) -> None:
        super().__init__(name, dtype)
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are '
                             "[ROC, PR]")
        if num_thresholds <= 1:
            raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                             f"Received: num_thresholds={num_thresholds}")
        self.curve, self.summation_method, self.from_logits = curve, summation_method, from_logits
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            self.num_thresholds = len(inner) + 2
        else:
            self.num_thresholds = num_thresholds
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        eps = 1e-7
        self.thresholds = [0.0 - eps] + inner + [1.0 + eps]
        self._threshold_tensor = constant(np.asarray(self.thresholds, np.float32))
        n = self.num_thresholds
        self.true_positives = self.add_variable((n,), name="true_positives")
        self.false_positives = self.add_variable((n,), name="false_positives")
        self.true_negatives = self.add_variable((n,), name="true_negatives")
        self.false_negatives = self.add_variable((n,), name="false_negatives")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_pred = math_ops.cast(convert_to_tensor(y_pred), dtypes.float32)
        if self.from_logits:
            y_pred = math_ops.sigmoid(y_pred)
        y_true = math_ops.cast(convert_to_tensor(y_true), dtypes.float32)
        pred = array_ops.reshape(y_pred, [1, -1])
        truth = array_ops.reshape(y_true, [1, -1])
        above = math_ops.cast(math_ops.greater(pred, array_ops.reshape(self._threshold_tensor,
                                                                       [-1, 1])), dtypes.float32)
        weight = array_ops.ones_like(truth) if sample_weight is None else array_ops.reshape(
            math_ops.cast(convert_to_tensor(sample_weight), dtypes.float32) *
            array_ops.ones_like(y_true), [1, -1])
        positive, negative = truth * weight, (1.0 - truth) * weight
        self.true_positives.assign_add(reduction_ops.reduce_sum(above * positive, axis=1))
        self.false_positives.assign_add(reduction_ops.reduce_sum(above * negative, axis=1))
        self.true_negatives.assign_add(reduction_ops.reduce_sum((1.0 - above) * negative, axis=1))
        self.false_negatives.assign_add(reduction_ops.reduce_sum((1.0 - above) * positive, axis=1))

    def result(self) -> Any:
        tp, fp = self.true_positives.value(), self.false_positives.value()
        tn, fn = self.true_negatives.value(), self.false_negatives.value()
        recall = special_math_ops.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = special_math_ops.divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, special_math_ops.divide_no_nan(tp, tp + fp)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = math_ops.minimum(y[: n - 1], y[1:])
        else:
            heights = math_ops.maximum(y[: n - 1], y[1:])
        return reduction_ops.reduce_sum((x[: n - 1] - x[1:]) * heights)


CLASSES = {cls.__name__: cls for cls in (
    Metric, Mean, Sum, MeanMetricWrapper, Accuracy, BinaryAccuracy, CategoricalAccuracy,
    SparseCategoricalAccuracy, MeanSquaredError, MeanAbsoluteError, RootMeanSquaredError,
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, AUC)}
FUNCTIONS = {"binary_accuracy": binary_accuracy,  # the function names of keras.metrics
             "categorical_accuracy": categorical_accuracy,
             "sparse_categorical_accuracy": sparse_categorical_accuracy,
             "mse": losses_lib.mean_squared_error, "MSE": losses_lib.mean_squared_error,
             "mae": losses_lib.mean_absolute_error, "MAE": losses_lib.mean_absolute_error,
             "binary_crossentropy": losses_lib.binary_crossentropy,
             "categorical_crossentropy": losses_lib.categorical_crossentropy,
             "sparse_categorical_crossentropy": losses_lib.sparse_categorical_crossentropy}


def get(identifier: Any) -> Any:
    if identifier is None or callable(identifier) and not isinstance(identifier, str):
        return identifier
    if isinstance(identifier, str):
        if identifier in FUNCTIONS:
            return FUNCTIONS[identifier]
        if identifier in CLASSES and identifier not in ("Metric", "MeanMetricWrapper"):
            return CLASSES[identifier]()
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


NAMES = {**CLASSES, **FUNCTIONS, "get": get}
