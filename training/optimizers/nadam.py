"""Nadam (Keras 3): Adam with Nesterov momentum and a momentum-decay schedule."""
from __future__ import annotations

from typing import Any, Dict, Optional

from ...ops.math.math_ops import cast, pow as power
from ..rule_math import sqrt
from ...ops.state.variables import Variable
from ...framework import dtypes
from ..lifting import outside_functions
from ..trackable import child_added
from ...framework.scopes import name_scope
from .base import Optimizer


class Nadam(Optimizer):
    """Keras 3's Nadam; `u_product` (the product of momentum-schedule terms) is state."""

    config_names = ("beta_1", "beta_2", "epsilon")

    slot_names = ("momentum", "velocity")

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
        self._u_product: Optional[Variable] = None

    def _build_extra(self, var_list) -> None:
        dtype = var_list[0].dtype if var_list else dtypes.float32
        with outside_functions(), name_scope(self.name):
            self._u_product = Variable(1.0, name="u_product", dtype=dtype, trainable=False)
        child_added(self, "_u_product", self._u_product)  # a checkpoint restored before build

    def _extra_variables(self) -> Dict[str, Variable]:
        return {} if self._u_product is None else {"_u_product": self._u_product}

    def _prepare(self) -> Dict[str, Any]:
        u_product = self._u_product
        assert u_product is not None, "_build_extra runs before the first step"
        dtype = u_product.dtype
        schedule = 1.0 - 0.5 * power(cast(0.96, dtype), cast(self.iterations + 1, dtype))
        new = u_product.value() * self.beta_1 * schedule
        assign = u_product.assign(new, read_value=False)
        return {"u_product": new, "ops": [assign]}

    def _step_values(self, variable, prepared):
        dtype = variable.dtype
        local_step = cast(self.iterations + 1, dtype)
        next_step = cast(self.iterations + 2, dtype)
        decay = cast(0.96, dtype)
        beta_1 = cast(self.beta_1, dtype)
        u_t = beta_1 * (1.0 - 0.5 * power(decay, local_step))
        u_t_1 = beta_1 * (1.0 - 0.5 * power(decay, next_step))
        u_product_t = cast(prepared["u_product"], dtype)
        beta_2 = cast(self.beta_2, dtype)
        return {"beta_1": beta_1, "beta_2": beta_2, "u_t": u_t, "u_t_1": u_t_1,
                "u_product_t": u_product_t, "u_product_t_1": u_product_t * u_t_1,
                "beta_2_power": power(beta_2, local_step)}

    def _grad_terms(self, grad):
        return grad, grad * grad

    def _rule(self, terms, slots, lr, step):
        g, g2 = terms
        m, v = slots
        # Keras's Nadam computes 1 - beta in the variable's dtype (Adam in Python floats).
        m = m + (g - m) * (1 - step["beta_1"])
        v = v + (g2 - v) * (1 - step["beta_2"])
        m_hat = (step["u_t_1"] * m) / (1 - step["u_product_t_1"]) + \
            ((1 - step["u_t"]) * g) / (1 - step["u_product_t"])
        v_hat = v / (1 - step["beta_2_power"])
        return (m, v), (m_hat * lr) / (sqrt(v_hat) + self.epsilon)
