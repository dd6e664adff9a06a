"""Keras 3 losses (`dg.keras.losses`): loss classes with `reduction` and
`sample_weight`, and the per-sample loss functions they wrap.

A function (`mean_squared_error(y_true, y_pred)`) returns one loss per sample
(the mean over the last axis); a class instance reduces those with its
`reduction`: "sum_over_batch_size" (default: the weighted sum divided by the
number of losses), "sum", "mean" (as sum_over_batch_size) or None/"none". As in
Keras 3, `y_true` is cast to `y_pred`'s dtype and a trailing axis of size 1 on
either side is squeezed to make the ranks equal.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

from ...framework import dtypes
from ...ops.array import array_ops
from ...ops.math import math_ops, reduction_ops, special_math_ops
from ...ops.nn import softmax_ops
from ...ops.constant_op import convert_to_tensor
from . import loss_functions as more
from .ctc_loss import ctc
from .loss_reduction import (EPSILON, Reduction, prepare, reduce_weighted_values,
                             squeeze_or_expand_to_same_rank, squeeze_to_same_rank,
                             standardize_reduction)



def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    return reduction_ops.reduce_mean(math_ops.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    return reduction_ops.reduce_mean(math_ops.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true), EPSILON))
    return 100.0 * reduction_ops.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    first = math_ops.log(math_ops.maximum(y_pred, EPSILON) + 1.0)
    second = math_ops.log(math_ops.maximum(y_true, EPSILON) + 1.0)
    return reduction_ops.reduce_mean(math_ops.square(first - second), axis=-1)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    error = math_ops.abs(y_pred - y_true)
    quadratic = math_ops.minimum(error, delta)
    linear = error - quadratic
    return reduction_ops.reduce_mean(0.5 * math_ops.square(quadratic) + delta * linear, axis=-1)


def hinge(y_true: Any, y_pred: Any) -> Any:
    """Labels in {0, 1} are taken as {-1, 1}, as Keras does."""
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    is_binary = reduction_ops.reduce_all(
        math_ops.logical_or(math_ops.equal(y_true, 0.0), math_ops.equal(y_true, 1.0)))
    signed = array_ops.where(is_binary, 2.0 * y_true - 1.0, y_true)
    return reduction_ops.reduce_mean(math_ops.maximum(1.0 - signed * y_pred, 0.0), axis=-1)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        losses = softmax_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        output = special_math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        losses = -(y_true * math_ops.log(output) + (1.0 - y_true) * math_ops.log(1.0 - output))
    return reduction_ops.reduce_mean(losses, axis=axis)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1) -> Any:
    y_true, y_pred = prepare(y_true, y_pred)
    if label_smoothing:
        classes = math_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        return softmax_ops.softmax_cross_entropy_with_logits(y_true, y_pred, axis=axis)
    output = y_pred / reduction_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    output = special_math_ops.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -reduction_ops.reduce_sum(y_true * math_ops.log(output), axis=axis)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    ignore_class: Optional[int] = None, axis: int = -1) -> Any:
    y_pred = convert_to_tensor(y_pred)
    labels = convert_to_tensor(y_true)
    if labels.shape.rank is not None and y_pred.shape.rank is not None and \
            labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = array_ops.squeeze(labels, [-1])
    labels = math_ops.cast(labels, dtypes.int64)
    if ignore_class is not None:
        keep = math_ops.not_equal(labels, ignore_class)
        labels = array_ops.where(keep, labels, array_ops.zeros_like(labels))
    logits = y_pred
    if not from_logits:
        output = y_pred / reduction_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
        logits = math_ops.log(special_math_ops.clip_by_value(output, EPSILON, 1.0 - EPSILON))
    losses = softmax_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    if ignore_class is not None:
        losses = losses * math_ops.cast(keep, losses.dtype)
    return losses


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    y_true = special_math_ops.clip_by_value(y_true, EPSILON, 1.0)
    y_pred = special_math_ops.clip_by_value(y_pred, EPSILON, 1.0)
    return reduction_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = squeeze_to_same_rank(*prepare(y_true, y_pred))
    return reduction_ops.reduce_mean(y_pred - y_true * math_ops.log(y_pred + EPSILON), axis=-1)


class Loss:
    """Base of Keras loss classes: `loss(y_true, y_pred, sample_weight=None)`."""

    def __init__(self, name: Optional[str] = None, reduction: Optional[str] = "sum_over_batch_size",
                 dtype: Any = None) -> None:
        standardize_reduction(reduction)
        self.name = name or snake_case(type(self).__name__)
        self.reduction = reduction
        self.dtype = dtype

    def call(self, y_true: Any, y_pred: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement call")

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        if self.dtype is not None:  # Keras casts both sides to the loss's dtype
            y_true = math_ops.cast(convert_to_tensor(y_true), self.dtype)
            y_pred = math_ops.cast(convert_to_tensor(y_pred), self.dtype)
        losses = self.call(y_true, y_pred)
        return reduce_weighted_values(losses, sample_weight, self.reduction,
                                      mask=self.loss_mask(losses))

    def loss_mask(self, losses: Any) -> Any:
        """Which per-sample losses count (None: all); Circle keeps the positive ones."""
        return None

    def get_config(self) -> Dict[str, Any]:
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Loss":
        return cls(**config)


def snake_case(name: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    return out


class LossFunctionWrapper(Loss):
    """A loss class around a per-sample function and its keyword arguments."""

    def __init__(self, fn: Callable, reduction: Optional[str] = "sum_over_batch_size",
                 name: Optional[str] = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    config_keys: Tuple[str, ...] = ()

    def call(self, y_true: Any, y_pred: Any) -> Any:
        y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> Dict[str, Any]:
        """Keras 3's config: name, reduction and the options its class lists."""
        return {**super().get_config(),
                **{key: self._fn_kwargs[key] for key in self.config_keys}}

    def __repr__(self) -> str:
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


def _loss_class(class_name: str, fn: Callable, default_name: str,
                arg_names: Tuple[str, ...] = (), config_keys: Tuple[str, ...] = (),
                **defaults: Any) -> type:
    """A LossFunctionWrapper subclass taking `arg_names` positionally (Keras' order)
    and reporting `config_keys` in its config, as Keras 3's class does."""
    def __init__(self: Any, *args: Any, reduction: Optional[str] = "sum_over_batch_size",
                 name: str = default_name, dtype: Any = None, **kwargs: Any) -> None:
        if len(args) > len(arg_names):
            raise TypeError(f"{class_name}.__init__() takes at most {len(arg_names)} "
                            f"positional arguments ({len(args)} given)")
        options = dict(defaults)
        options.update(dict(zip(arg_names, args, strict=False)))
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{class_name}.__init__() got an unexpected keyword argument "
                            f"'{sorted(unknown)[0]}'")
        options.update(kwargs)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype,
                                     **options)
    return type(class_name, (LossFunctionWrapper,),
                {"__init__": __init__, "config_keys": config_keys,
                 "__doc__": f"Keras' {class_name} loss ({fn.__name__})."})


CROSSENTROPY_KEYS = ("from_logits", "label_smoothing", "axis")
MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _loss_class("MeanAbsolutePercentageError",
                                          mean_absolute_percentage_error,
                                          "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _loss_class("MeanSquaredLogarithmicError",
                                          mean_squared_logarithmic_error,
                                          "mean_squared_logarithmic_error")
CosineSimilarity = _loss_class("CosineSimilarity", more.cosine_similarity, "cosine_similarity",
                               ("axis",), axis=-1)
Huber = _loss_class("Huber", huber, "huber_loss", ("delta",), delta=1.0)
LogCosh = _loss_class("LogCosh", more.log_cosh, "log_cosh")
Hinge = _loss_class("Hinge", hinge, "hinge")
SquaredHinge = _loss_class("SquaredHinge", more.squared_hinge, "squared_hinge")
CategoricalHinge = _loss_class("CategoricalHinge", more.categorical_hinge, "categorical_hinge")
KLDivergence = _loss_class("KLDivergence", kl_divergence, "kl_divergence")
Poisson = _loss_class("Poisson", poisson, "poisson")
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
                                 CROSSENTROPY_KEYS, CROSSENTROPY_KEYS,
                                 from_logits=False, label_smoothing=0.0, axis=-1)
FOCAL_KEYS = ("apply_class_balancing", "alpha", "gamma", "from_logits", "label_smoothing", "axis")
BinaryFocalCrossentropy = _loss_class(
    "BinaryFocalCrossentropy", more.binary_focal_crossentropy, "binary_focal_crossentropy",
    FOCAL_KEYS, CROSSENTROPY_KEYS + ("apply_class_balancing", "alpha", "gamma"),
    apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
    axis=-1)
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy,
                                      "categorical_crossentropy", CROSSENTROPY_KEYS,
                                      CROSSENTROPY_KEYS, from_logits=False,
                                      label_smoothing=0.0, axis=-1)
CategoricalFocalCrossentropy = _loss_class(
    "CategoricalFocalCrossentropy", more.categorical_focal_crossentropy,
    "categorical_focal_crossentropy", FOCAL_KEYS[1:], CROSSENTROPY_KEYS + ("alpha", "gamma"),
    alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1)
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy",
                                            sparse_categorical_crossentropy,
                                            "sparse_categorical_crossentropy",
                                            ("from_logits", "ignore_class"),
                                            ("from_logits", "ignore_class"), from_logits=False,
                                            ignore_class=None)
CTC = _loss_class("CTC", ctc, "ctc")
Dice = _loss_class("Dice", more.dice, "dice", (), ("axis",), axis=None)
Tversky = _loss_class("Tversky", more.tversky, "tversky", ("alpha", "beta"),
                      ("alpha", "beta", "axis"), alpha=0.5, beta=0.5, axis=None)
CategoricalGeneralizedCrossEntropy = _loss_class(
    "CategoricalGeneralizedCrossEntropy", more.categorical_generalized_cross_entropy,
    "categorical_generalized_cross_entropy", ("q",), ("q",), q=0.5)


CircleBase: Any = _loss_class("Circle", more.circle, "circle",
                              ("gamma", "margin", "remove_diagonal"),
                              ("gamma", "margin", "remove_diagonal"), gamma=80.0, margin=0.4,
                              remove_diagonal=True)


class Circle(CircleBase):
    """Keras' Circle loss: the mean runs over samples with a positive loss only."""

    def loss_mask(self, losses: Any) -> Any:
        return more.positive_loss_mask(losses)


FUNCTIONS = {  # the function names of tf.keras.losses (TF 2.21, Keras 3)
    "mse": mean_squared_error, "MSE": mean_squared_error,
    "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "mape": mean_absolute_percentage_error, "MAPE": mean_absolute_percentage_error,
    "msle": mean_squared_logarithmic_error, "MSLE": mean_squared_logarithmic_error,
    "huber": huber, "hinge": hinge, "kld": kl_divergence, "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence, "poisson": poisson,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_focal_crossentropy": more.binary_focal_crossentropy,
    "categorical_focal_crossentropy": more.categorical_focal_crossentropy,
    "categorical_generalized_cross_entropy": more.categorical_generalized_cross_entropy,
    "categorical_hinge": more.categorical_hinge, "squared_hinge": more.squared_hinge,
    "circle": more.circle, "cosine_similarity": more.cosine_similarity, "dice": more.dice,
    "logcosh": more.log_cosh, "tversky": more.tversky, "ctc": ctc,
}
CLASSES = {cls.__name__: cls for cls in (
    Loss, LossFunctionWrapper, MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, CosineSimilarity, Huber, LogCosh, Hinge, SquaredHinge,
    CategoricalHinge, KLDivergence, Poisson, BinaryCrossentropy, BinaryFocalCrossentropy,
    CategoricalCrossentropy, CategoricalFocalCrossentropy, SparseCategoricalCrossentropy, CTC, Dice,
    Tversky, Circle, CategoricalGeneralizedCrossEntropy)}
# every loss function by its own name and Keras' short aliases, for get/deserialize
FUNCTIONS_BY_NAME = {**{fn.__name__: fn for fn in FUNCTIONS.values()}, **FUNCTIONS,
                     "bce": binary_crossentropy, "BCE": binary_crossentropy}


def serialize(loss: Any) -> Dict[str, Any]:
    """Keras' serialized form of a loss instance or a loss function."""
    if isinstance(loss, Loss):
        return {"module": "keras.losses", "class_name": type(loss).__name__,
                "config": loss.get_config(), "registered_name": None}
    if callable(loss) and getattr(loss, "__name__", None) in FUNCTIONS_BY_NAME:
        return {"module": "builtins", "class_name": "function", "config": loss.__name__,
                "registered_name": "function"}
    raise ValueError(f"Cannot serialize loss: {loss!r}")


def deserialize(name: Any, custom_objects: Optional[Dict[str, Any]] = None) -> Any:
    """A loss instance or function from `serialize`'s dict or a name."""
    objects: Dict[Any, Any] = {**CLASSES, **FUNCTIONS_BY_NAME, **(custom_objects or {})}
    if isinstance(name, dict):
        if name.get("class_name") == "function":
            key, config = name.get("config"), None
        else:
            key, config = name.get("class_name"), name.get("config", {})
        found: Any = objects.get(key)
        if isinstance(found, type) and issubclass(found, Loss) and config is not None:
            return found.from_config(config)
        if found is not None and config is None:
            return found
    elif isinstance(name, str) and name in objects:
        found = objects[name]
        return found() if isinstance(found, type) else found
    raise ValueError(f"Could not interpret loss identifier: {name}")


def get(identifier: Any) -> Any:
    """A loss from a name ("mse", "MeanSquaredError"), a config dict, a callable, or None."""
    if identifier is None or callable(identifier) and not isinstance(identifier, str):
        return identifier
    if isinstance(identifier, (str, dict)) and \
            identifier not in ("Loss", "LossFunctionWrapper"):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret loss identifier: {identifier}")


NAMES = {**{k: v for k, v in CLASSES.items() if k != "LossFunctionWrapper"}, **FUNCTIONS,
         "Reduction": Reduction, "get": get, "serialize": serialize, "deserialize": deserialize}
