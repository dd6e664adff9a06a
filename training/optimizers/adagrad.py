"""Adagrad (Keras 3): per-coordinate learning rates from accumulated squared gradients."""
from __future__ import annotations

from typing import Any, Optional

from ..rule_math import sqrt
from .base import Optimizer


class Adagrad(Optimizer):
    """`acc += g^2; w -= lr * g / sqrt(acc + eps)`; a sparse gradient touches its rows only."""

    config_names = ("initial_accumulator_value", "epsilon")

    slot_names = ("accumulator",)
    sparse_is_lazy = True

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, name: Optional[str] = None,
                 lazy_sparse: bool = False, **kwargs: Any) -> None:
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         lazy_sparse=lazy_sparse, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _slot_initial_value(self, slot_name: str) -> float:
        return self.initial_accumulator_value

    def _grad_terms(self, grad):
        return grad, grad * grad

    def _rule(self, terms, slots, lr, step):
        g, g2 = terms
        accumulator = slots[0] + g2
        return (accumulator,), (lr * g) / sqrt(accumulator + self.epsilon)
