"""RMSprop with optional momentum and centering (Keras 3)."""
from __future__ import annotations

from typing import Any, Dict, Optional

from ..rule_math import sqrt
from .base import Optimizer


class RMSprop(Optimizer):
    """`velocity = rho * velocity + (1 - rho) * g^2; w -= lr * g / sqrt(velocity + eps)`."""

    config_names = ("rho", "momentum", "epsilon", "centered")
    keras_slot_groups = (("velocity",), ("momentum",), ("average_gradient",))

    def checkpoint_slot_lists(self) -> Dict[str, str]:
        return {"_velocities": "velocity", "_momentums": "momentum",  # always, as Keras 3
                "_average_gradients": "average_gradient"}

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False,
                 weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 name: Optional[str] = None, lazy_sparse: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         lazy_sparse=lazy_sparse, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered
        self.slot_names = (("velocity",) + (("momentum",) if momentum > 0 else ())
                           + (("average_gradient",) if centered else ()))

    def _grad_terms(self, grad):
        return grad, grad * grad

    def _rule(self, terms, slots, lr, step):
        g, g2 = terms
        rho = self.rho
        velocity = rho * slots[0] + (1 - rho) * g2
        new_slots = [velocity]
        rest = list(slots[1:])
        momentum = rest.pop(0) if self.momentum > 0 else None
        if self.centered:
            average = rho * rest.pop(0) + (1 - rho) * g
            denominator = velocity - average * average + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = (lr * g) / sqrt(denominator)
        if momentum is not None:
            momentum = self.momentum * momentum + increment
            new_slots.append(momentum)
            increment = momentum
        if self.centered:
            new_slots.append(average)
        return tuple(new_slots), increment
