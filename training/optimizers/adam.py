"""Adam (optionally AMSGrad), AdamW (Keras 3) and LazyAdam (TF Addons)."""
from __future__ import annotations

from typing import Any, Dict, Optional

from ...ops.math.math_ops import cast, pow as power
from ..rule_math import maximum, sqrt
from .base import Optimizer


def bias_powers(optimizer: Any, dtype: Any, *betas: float) -> list:
    """beta ** (iterations + 1) for each beta, in `dtype` (Keras's local_step)."""
    local_step = cast(optimizer.iterations + 1, dtype)
    return [power(cast(beta, dtype), local_step) for beta in betas]


class Adam(Optimizer):
    """Adam: bias-corrected first and second moments (`m`, `v`; `vhat` for AMSGrad)."""

    config_names = ("beta_1", "beta_2", "epsilon", "amsgrad")
    keras_slot_groups = (("momentum", "velocity"), ("velocity_hat",))

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False,
                 weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 name: Optional[str] = None, lazy_sparse: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         lazy_sparse=lazy_sparse, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad
        self.slot_names = ("momentum", "velocity") + (("velocity_hat",) if amsgrad else ())

    def _grad_terms(self, grad):
        return grad, grad * grad

    def _step_values(self, variable, prepared) -> Dict[str, Any]:
        beta_1_power, beta_2_power = bias_powers(self, variable.dtype, self.beta_1, self.beta_2)
        return {"beta_1_power": beta_1_power, "beta_2_power": beta_2_power}

    def _rule(self, terms, slots, lr, step):
        g, g2 = terms
        m, v = slots[0], slots[1]
        alpha = lr * sqrt(1 - step["beta_2_power"]) / (1 - step["beta_1_power"])
        m = m + (g - m) * (1 - self.beta_1)
        v = v + (g2 - v) * (1 - self.beta_2)
        new_slots = (m, v)
        if self.amsgrad:
            v = maximum(slots[2], v)
            new_slots = (m, new_slots[1], v)
        return new_slots, (m * alpha) / (sqrt(v) + self.epsilon)


class AdamW(Adam):
    """Adam with decoupled weight decay (`w -= w * weight_decay * lr` before each step)."""

    def __init__(self, learning_rate: Any = 0.001, weight_decay: float = 0.004,
                 beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 amsgrad: bool = False, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 name: Optional[str] = None, lazy_sparse: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         lazy_sparse=lazy_sparse, **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")


class LazyAdam(Adam):
    """TF Addons' LazyAdam: Adam whose IndexedSlices gradients move only the rows
    they touch (those rows' moments and values), `Adam(lazy_sparse=True)`.

    Rows absent from a batch keep their moments instead of decaying them, which
    makes a step cost the batch, not the table (large embeddings). Dense
    gradients are updated exactly as by Adam.
    """

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False,
                 weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 name: Optional[str] = None, lazy_sparse: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         lazy_sparse=lazy_sparse, **kwargs)
