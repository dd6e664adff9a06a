"""SGD with optional momentum and Nesterov momentum (Keras 3)."""
from __future__ import annotations

from typing import Any, Dict, Optional

from .base import Optimizer


class SGD(Optimizer):
    """`m = momentum * m - lr * g; w += m` (Nesterov: `w += momentum * m - lr * g`)."""

    config_names = ("momentum", "nesterov")

    def checkpoint_slot_lists(self) -> Dict[str, str]:
        return {"momentums": "momentum"}  # Keras 3 keeps the (empty) list without momentum

    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 name: Optional[str] = None, lazy_sparse: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         lazy_sparse=lazy_sparse, **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov
        self.slot_names = ("momentum",) if momentum != 0 else ()
        self.sparse_is_lazy = momentum == 0

    def _rule(self, terms, slots, lr, step):
        (g,) = terms
        if not slots:
            return (), g * lr
        (m,) = slots
        momentum = self.momentum
        m = m * momentum - g * lr
        if self.nesterov:
            return (m,), -(m * momentum - g * lr)
        return (m,), -m
