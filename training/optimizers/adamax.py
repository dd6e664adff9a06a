"""Adamax (Keras 3): Adam with the infinity norm in place of the second moment."""
from __future__ import annotations

from typing import Any, Optional

from ..rule_math import absolute, maximum
from .adam import bias_powers
from .base import Optimizer


class Adamax(Optimizer):
    """`m += (g - m)(1 - b1); u = max(b2 u, |g|); w -= lr m / ((1 - b1^t)(u + eps))`."""

    config_names = ("beta_1", "beta_2", "epsilon")

    slot_names = ("momentum", "norm")
    keras_slot_lists = {"momentum": "_m", "norm": "_u"}

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, name: Optional[str] = None,
                 lazy_sparse: bool = False, **kwargs: Any) -> None:
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         lazy_sparse=lazy_sparse, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def _grad_terms(self, grad):
        return grad, absolute(grad)

    def _step_values(self, variable, prepared):
        (beta_1_power,) = bias_powers(self, variable.dtype, self.beta_1)
        return {"beta_1_power": beta_1_power}

    def _rule(self, terms, slots, lr, step):
        g, g_abs = terms
        m, u = slots
        m = m + (g - m) * (1 - self.beta_1)
        u = maximum(self.beta_2 * u, g_abs)
        return (m, u), (lr * m) / ((1 - step["beta_1_power"]) * (u + self.epsilon))
