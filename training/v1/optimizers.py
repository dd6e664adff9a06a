"""TF1's optimizers: GradientDescent, Momentum, Adam, Adagrad, RMSProp.

Dense updates follow TF's fused training kernels (ApplyMomentum, ApplyAdam,
...) operation for operation; sparse updates read and write only the rows
a gradient touches, except Adam, whose TF1 sparse update decays both moments
and moves every row (TF documents this: it equals the dense update); that
update runs in place, block by block (`..sparse_apply`). `lazy_sparse=True`
(and `LazyAdamOptimizer`, tf.contrib.opt's) moves only the touched rows. The
other optimizers' TF1 sparse updates are lazy already; the flag keeps them so.
"""
from __future__ import annotations

from typing import Any, List

from ...framework.indexed_slices import IndexedSlices
from ...framework.scopes import control_dependencies
from ...ops.constant_op import convert_to_tensor
from ...ops.control_flow.control_flow_ops import group
from ...ops.math.math_ops import cast, rsqrt, sqrt
from ...ops.state.variables import Variable
from ..rule_math import sqrt as row_sqrt
from ..sparse import rows_of
from ..sparse_apply import sparse_apply
from .optimizer import Optimizer, _ops


def _grouped(results: List[Any]) -> Any:
    ops = _ops(results)
    return group(*ops) if ops else None


def _rows(slot: Variable, rows: Any) -> Any:
    return rows_of(slot.value(), rows)


def _set_rows(slot: Variable, rows: Any, values: Any) -> Any:
    return slot.scatter_update(IndexedSlices(values, rows))


def _sub_rows(var: Variable, rows: Any, values: Any) -> Any:
    return var.scatter_sub(IndexedSlices(values, rows))


class _Hyper:
    """Hyper-parameters converted to tensors once per apply, cast per variable dtype."""

    def __init__(self, **values: Any) -> None:
        self._tensors = {k: convert_to_tensor(v) for k, v in values.items()}

    def get(self, name: str, var: Variable) -> Any:
        return cast(self._tensors[name], var.dtype)


class GradientDescentOptimizer(Optimizer):
    """`var -= learning_rate * grad`."""

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent", lazy_sparse: bool = False) -> None:
        super().__init__(use_locking, name, lazy_sparse)
        self._learning_rate = learning_rate

    def _prepare(self) -> None:
        self._hyper = _Hyper(learning_rate=self._call_if_callable(self._learning_rate))

    def _apply_dense(self, grad, var):
        return _grouped([var.assign_sub(grad * self._hyper.get("learning_rate", var),
                                        read_value=False)])

    def _apply_sparse_duplicate_indices(self, grad, var):
        # TF scatters every slice (repeats add up), without summing them first.
        values = cast(grad.values, var.dtype) * self._hyper.get("learning_rate", var)
        return _grouped([var.scatter_sub(IndexedSlices(values, grad.indices))])


class MomentumOptimizer(Optimizer):
    """`accum = accum * momentum + grad; var -= lr * accum` (Nesterov: look ahead)."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False,
                 lazy_sparse: bool = False) -> None:
        super().__init__(use_locking, name, lazy_sparse)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for var in var_list:
            self._zeros_slot(var, "momentum", self._name)

    def _prepare(self):
        self._hyper = _Hyper(learning_rate=self._call_if_callable(self._learning_rate),
                             momentum=self._call_if_callable(self._momentum))

    def _step(self, grad, var, accum):
        lr, momentum = self._hyper.get("learning_rate", var), self._hyper.get("momentum", var)
        accum = accum * momentum + grad
        delta = grad * lr + accum * momentum * lr if self._use_nesterov else accum * lr
        return accum, delta

    def _apply_dense(self, grad, var):
        slot = self.get_slot(var, "momentum")
        accum, delta = self._step(grad, var, slot.value())
        return _grouped([slot.assign(accum, read_value=False),
                         var.assign_sub(delta, read_value=False)])

    def _apply_sparse(self, grad, var, rows):
        slot = self.get_slot(var, "momentum")
        accum, delta = self._step(grad, var, _rows(slot, rows))
        return _grouped([_set_rows(slot, rows, accum), _sub_rows(var, rows, delta)])


class AdamOptimizer(Optimizer):
    """Adam with `beta1_power`/`beta2_power` variables advanced after each step."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-8, use_locking: bool = False, name: str = "Adam",
                 lazy_sparse: bool = False) -> None:
        super().__init__(use_locking, name, lazy_sparse)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        self._non_slot_variable(self._beta1, "beta1_power")
        self._non_slot_variable(self._beta2, "beta2_power")
        for var in var_list:
            self._zeros_slot(var, "m", self._name)
            self._zeros_slot(var, "v", self._name)

    def _prepare(self):
        call = self._call_if_callable
        self._hyper = _Hyper(learning_rate=call(self._lr), beta1=call(self._beta1),
                             beta2=call(self._beta2), epsilon=call(self._epsilon))

    def _powers(self, var):
        beta1_power = self._get_non_slot_variable("beta1_power")
        beta2_power = self._get_non_slot_variable("beta2_power")
        return cast(beta1_power.value(), var.dtype), cast(beta2_power.value(), var.dtype)

    def _apply_dense(self, grad, var):
        h = self._hyper
        beta1, beta2 = h.get("beta1", var), h.get("beta2", var)
        beta1_power, beta2_power = self._powers(var)
        m_slot, v_slot = self.get_slot(var, "m"), self.get_slot(var, "v")
        alpha = h.get("learning_rate", var) * sqrt(1 - beta2_power) / (1 - beta1_power)
        m, v = m_slot.value(), v_slot.value()
        m = m + (grad - m) * (1 - beta1)
        v = v + (grad * grad - v) * (1 - beta2)
        delta = (m * alpha) / (sqrt(v) + h.get("epsilon", var))
        return _grouped([m_slot.assign(m, read_value=False), v_slot.assign(v, read_value=False),
                         var.assign_sub(delta, read_value=False)])

    def _apply_sparse(self, grad, var, rows):
        # TF1's sparse Adam decays all of m and v and moves every row (lazy: the rows only).
        h = self._hyper
        beta1_power, beta2_power = self._powers(var)
        step = {"learning_rate": h.get("learning_rate", var), "beta1": h.get("beta1", var),
                "beta2": h.get("beta2", var), "epsilon": h.get("epsilon", var),
                "beta1_power": beta1_power, "beta2_power": beta2_power}
        slots = [self.get_slot(var, "m"), self.get_slot(var, "v")]
        return _grouped([sparse_apply(_adam_rows, var, slots, rows, [grad], step,
                                      self._lazy_sparse)])

    def _finish(self, update_ops, name_scope_):
        with control_dependencies(update_ops):
            beta1_power = self._get_non_slot_variable("beta1_power")
            beta2_power = self._get_non_slot_variable("beta2_power")
            update_beta1 = beta1_power.assign(beta1_power.value() * self._hyper.get(
                "beta1", beta1_power), read_value=False)
            update_beta2 = beta2_power.assign(beta2_power.value() * self._hyper.get(
                "beta2", beta2_power), read_value=False)
        return super()._finish(update_ops + _ops([update_beta1, update_beta2]), name_scope_)


def _adam_rows(terms, slots, step):
    """TF1's sparse Adam on NumPy rows (`terms` None: a row without gradient):
    `m = m * beta1 (+ g * (1 - beta1)); v = v * beta2 (+ g^2 * (1 - beta2));
    var -= lr * m / (sqrt(v) + epsilon)` with the bias-corrected lr. On a touched
    row this is also tf.contrib.opt.LazyAdamOptimizer's update."""
    beta1, beta2 = step["beta1"], step["beta2"]
    lr = step["learning_rate"] * row_sqrt(1 - step["beta2_power"]) / (1 - step["beta1_power"])
    m, v = slots[0] * beta1, slots[1] * beta2
    if terms is not None:
        (g,) = terms
        m = m + g * (1 - beta1)
        v = v + (g * g) * (1 - beta2)
    return (m, v), lr * m / (row_sqrt(v) + step["epsilon"])


class LazyAdamOptimizer(AdamOptimizer):
    """tf.contrib.opt.LazyAdamOptimizer: Adam whose IndexedSlices gradients update only
    the touched rows and their `m`, `v` (`AdamOptimizer(lazy_sparse=True)`)."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-8, use_locking: bool = False, name: str = "Adam",
                 lazy_sparse: bool = True) -> None:
        super().__init__(learning_rate, beta1, beta2, epsilon, use_locking, name, lazy_sparse)


class AdagradOptimizer(Optimizer):
    """`acc += grad^2; var -= lr * grad / sqrt(acc)`."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad",
                 lazy_sparse: bool = False) -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(use_locking, name, lazy_sparse)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for var in var_list:
            self._slot_with_value(var, "accumulator", self._name,
                                  self._initial_accumulator_value)

    def _prepare(self):
        self._hyper = _Hyper(learning_rate=self._call_if_callable(self._learning_rate))

    def _step(self, grad, var, acc):
        acc = acc + grad * grad
        return acc, grad * self._hyper.get("learning_rate", var) * rsqrt(acc)

    def _apply_dense(self, grad, var):
        slot = self.get_slot(var, "accumulator")
        acc, delta = self._step(grad, var, slot.value())
        return _grouped([slot.assign(acc, read_value=False),
                         var.assign_sub(delta, read_value=False)])

    def _apply_sparse(self, grad, var, rows):
        slot = self.get_slot(var, "accumulator")
        acc, delta = self._step(grad, var, _rows(slot, rows))
        return _grouped([_set_rows(slot, rows, acc), _sub_rows(var, rows, delta)])


class RMSPropOptimizer(Optimizer):
    """`ms += (g^2 - ms)(1 - decay); mom = mom * momentum + lr g / sqrt(ms + eps); var -= mom`."""

    def __init__(self, learning_rate: Any, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp", lazy_sparse: bool = False) -> None:
        super().__init__(use_locking, name, lazy_sparse)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for var in var_list:
            self._slot_with_value(var, "rms", self._name, 1.0)
            if self._centered:
                self._zeros_slot(var, "mg", self._name)
            self._zeros_slot(var, "momentum", self._name)

    def _prepare(self):
        call = self._call_if_callable
        self._hyper = _Hyper(learning_rate=call(self._learning_rate), decay=call(self._decay),
                             momentum=call(self._momentum), epsilon=call(self._epsilon))

    def _slots_of(self, var):
        names = ["rms", "momentum"] + (["mg"] if self._centered else [])
        return [self.get_slot(var, name) for name in names]

    def _step(self, grad, var, values):
        h = self._hyper
        rho = h.get("decay", var)
        ms, mom = values[0], values[1]
        ms = ms + (grad * grad - ms) * (1 - rho)
        new = [ms]
        if self._centered:
            mg = values[2] + (grad - values[2]) * (1 - rho)
            denominator = (ms - mg * mg) + h.get("epsilon", var)
        else:
            denominator = ms + h.get("epsilon", var)
        mom = mom * h.get("momentum", var) + rsqrt(denominator) * h.get("learning_rate", var) \
            * grad
        new.append(mom)
        if self._centered:
            new.append(mg)
        return new, mom

    def _apply_dense(self, grad, var):
        slots = self._slots_of(var)
        new, delta = self._step(grad, var, [s.value() for s in slots])
        return _grouped([s.assign(n, read_value=False) for s, n in zip(slots, new, strict=True)]
                        + [var.assign_sub(delta, read_value=False)])

    def _apply_sparse(self, grad, var, rows):
        slots = self._slots_of(var)
        new, delta = self._step(grad, var, [_rows(s, rows) for s in slots])
        return _grouped([_set_rows(s, rows, n) for s, n in zip(slots, new, strict=True)]
                        + [_sub_rows(var, rows, delta)])


__all__ = ["GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "AdagradOptimizer", "RMSPropOptimizer", "LazyAdamOptimizer"]
