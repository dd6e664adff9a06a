"""The Keras-3-style optimizer base (`dg.keras.optimizers.Optimizer`).

A subclass names its slots and gives one elementwise update rule; the base
does the rest as Keras 3 does: lazy slots, clipping, weight decay, the
learning rate (a float32 variable or a schedule of `iterations`), the int64
`iterations` counter, and sparse gradients.

Update rules see, per variable, the gradient's "terms" (zero-preserving
elementwise functions of the gradient such as g and g*g, summed over repeated
rows of a sparse gradient, as Keras's sparse ops do) and the slot values, and
return the new slot values and the amount to subtract from the variable. For
an IndexedSlices gradient one fused in-place op (`..sparse_apply`) runs the
rule on the touched rows; when an optimizer's rule also changes untouched
rows (momentum decay), those rows get the rule with zero terms, in place and
block by block, which gives exactly Keras's numbers without ever building a
dense gradient or a table-sized temporary. `lazy_sparse=True` (TF Addons'
LazyAdam semantics, for every optimizer) sums repeated rows first and then
reads and writes only the touched rows of the variable and its slots.
"""
from __future__ import annotations

import re
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ...eager import context
from ...framework.indexed_slices import IndexedSlices
from ...ops.math.clip_norm_ops import clip_by_norm
from ...ops.constant_op import convert_to_tensor
from ...ops.control_flow.control_flow_ops import group
from ...ops.array.join_ops import stack
from ...ops.math.math_ops import cast, minimum, sqrt, square
from ...ops.math.reduction_ops import reduce_sum
from ...ops.math.special_math_ops import clip_by_value
from ...ops.state.variables import Variable
from ...framework import dtypes
from ...framework.scopes import control_dependencies, name_scope
from ..lifting import check_may_create_variables, outside_functions
from ..module import camel_to_snake
from ..schedules import LearningRateSchedule
from ..slots import SlotRegistry
from ..sparse import is_sparse, unique_rows
from ..sparse_apply import sparse_apply

Terms = Tuple[Any, ...]


class Optimizer:
    """Base of the Keras optimizers: subclasses set `slot_names` and `_rule`."""

    slot_names: Tuple[str, ...] = ()
    # True when the rule with zero gradient terms leaves slots and variable unchanged
    # (then a sparse gradient updates only its rows).
    sparse_is_lazy = False

    def __init__(self, learning_rate: Any, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, use_ema: bool = False,
                 ema_momentum: float = 0.99, ema_overwrite_frequency: Optional[int] = None,
                 loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None,
                 name: Optional[str] = None, lazy_sparse: bool = False, **kwargs: Any) -> None:
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.",
                          stacklevel=2)
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if use_ema or gradient_accumulation_steps:
            raise NotImplementedError("use_ema and gradient_accumulation_steps are not "
                                      "supported by duograd's optimizers")
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be "
                             f"set. Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
                             f"global_clipnorm={global_clipnorm}")
        self.name = name if name is not None else camel_to_snake(type(self).__name__)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.loss_scale_factor = loss_scale_factor
        self.lazy_sparse = bool(lazy_sparse)
        self.built = False
        self._slots = SlotRegistry()
        self._variable_index: Dict[Any, int] = {}  # by variable.ref(): unhashable in TF2
        self._exclude_ids: set = set()
        self._exclude_pattern: Optional[Any] = None
        self._step_ops: List[Any] = []
        with outside_functions(), name_scope(self.name):
            self._iterations = Variable(0, name="iteration", dtype=dtypes.int64,
                                        trainable=False)
            self._learning_rate = self._make_learning_rate(learning_rate)

    @staticmethod
    def _make_learning_rate(learning_rate: Any) -> Any:
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            return learning_rate
        if not isinstance(learning_rate, float):
            raise ValueError("Argument `learning_rate` should be float, or an instance of "
                             "LearningRateSchedule, or a callable (that takes in the current "
                             "iteration value and returns the corresponding learning rate "
                             f"value). Received instead: learning_rate={learning_rate}")
        return Variable(learning_rate, name="learning_rate", dtype=dtypes.float32,
                        trainable=False)

    # -- config -------------------------------------------------------------
    # The constructor arguments a subclass adds to Keras's base config, in Keras's order.
    config_names: Tuple[str, ...] = ()

    def get_config(self) -> Dict[str, Any]:
        """Keras 3's config (a schedule is serialized as Keras does), plus `lazy_sparse`."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            learning_rate: Any = {"module": "keras.optimizers.schedules",
                                  "class_name": type(lr).__name__, "config": lr.get_config(),
                                  "registered_name": None}
        elif isinstance(lr, Variable):
            learning_rate = float(lr.numpy())
        else:
            learning_rate = lr
        config: Dict[str, Any] = {
            "name": self.name, "learning_rate": learning_rate, "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue, "use_ema": False, "ema_momentum": 0.99,
            "ema_overwrite_frequency": None, "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": None}
        config.update({key: getattr(self, key) for key in self.config_names})
        config["lazy_sparse"] = self.lazy_sparse
        return config

    @classmethod
    def from_config(cls, config: Dict[str, Any], custom_objects: Any = None) -> "Optimizer":
        """The optimizer `get_config` describes (a schedule dict becomes the schedule)."""
        config = dict(config)
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            from .. import schedules
            schedule = getattr(schedules, lr["class_name"], None)
            if schedule is None and custom_objects:
                schedule = custom_objects.get(lr["class_name"])
            if schedule is None:
                raise ValueError(f"Unknown learning rate schedule: {lr['class_name']}")
            config["learning_rate"] = schedule.from_config(lr["config"])
        return cls(**config)

    # -- state --------------------------------------------------------------
    @property
    def iterations(self) -> Variable:
        """How many times updates were applied (an int64 variable)."""
        return self._iterations

    @property
    def learning_rate(self) -> Any:
        """The learning-rate variable, or the schedule's value at `iterations`."""
        lr = self._learning_rate
        if isinstance(lr, Variable):
            return lr
        if isinstance(lr, LearningRateSchedule):
            return lr(self._iterations)
        return lr()

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if isinstance(value, LearningRateSchedule) or callable(value):
            self._learning_rate = value
        elif isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as "
                            "its `learning_rate` constructor argument, hence its learning rate "
                            "is not settable. If you need the learning rate to be settable, you "
                            "should instantiate the optimizer with a float `learning_rate` "
                            "argument.")
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(value)
        else:
            with outside_functions(), name_scope(self.name):
                self._learning_rate = self._make_learning_rate(float(value))

    @property
    def variables(self) -> List[Variable]:
        """iterations, the learning-rate variable, extra state, then slots in creation order."""
        found = [self._iterations]
        if isinstance(self._learning_rate, Variable):
            found.append(self._learning_rate)
        found.extend(self._extra_variables().values())
        found.extend(slot for _, _, slot in self._slots.triples())
        return found

    def _extra_variables(self) -> Dict[str, Variable]:
        """Non-slot state besides iterations and learning rate (Nadam's u_product)."""
        return {}

    # Keras 3's attribute holding each slot's list (one entry per trainable variable), and
    # the groups Keras's build() creates the slots in (all variables of a group at once).
    keras_slot_lists: Dict[str, str] = {"velocity": "_velocities"}
    keras_slot_groups: Tuple[Tuple[str, ...], ...] = ()

    def checkpoint_slot_lists(self) -> Dict[str, str]:
        """{Keras 3 list attribute: slot name}: how a checkpoint holds this optimizer's slots
        (`_momentums/0` is variable 0's "momentum"), used to restore them."""
        return {self.keras_slot_lists.get(name, f"_{name}s"): name for name in self.slot_names}

    def _trainable_in_order(self) -> List[Variable]:
        return [ref.deref() for ref, _ in sorted(self._variable_index.items(),
                                                 key=lambda item: item[1])]

    def _keras_variables(self, trainable: List[Variable]) -> List[Variable]:
        """Keras 3's `optimizer.variables` order: iterations, learning rate, the slots
        group by group, then extra state."""
        found = [self._iterations]
        if isinstance(self._learning_rate, Variable):
            found.append(self._learning_rate)
        groups = self.keras_slot_groups or (tuple(self.slot_names),)
        for slot_group in groups:
            for variable in trainable:
                for slot_name in slot_group:
                    slot = self._slots.get(variable, slot_name)
                    if slot is not None:
                        found.append(slot)
        found.extend(self._extra_variables().values())
        return found

    def trackable_children(self) -> dict:
        """Keras 3's checkpoint layout (TF 2.21 writes and reads the same keys)."""
        trainable = self._trainable_in_order()
        children: Dict[str, Any] = {
            "_variables": self._keras_variables(trainable),
            "_trainable_variables": trainable,
            "_trainable_variables_indices": {},
            "_iterations": self._iterations}
        if isinstance(self._learning_rate, Variable):
            children["_learning_rate"] = self._learning_rate
        for list_name, slot_name in self.checkpoint_slot_lists().items():
            slots = [self._slots.get(variable, slot_name) for variable in trainable]
            children[list_name] = [slot for slot in slots if slot is not None]
        children.update(self._extra_variables())
        return children

    def slot_variables(self) -> List[Tuple[Variable, str, Variable]]:
        return self._slots.triples()

    def defer_slot_restore(self, variable: Variable, slot_name: str, value: Any) -> None:
        self._slots.defer(variable, slot_name, value)

    def get_slot(self, variable: Variable, slot_name: str) -> Optional[Variable]:
        return self._slots.get(variable, slot_name)

    # -- building -----------------------------------------------------------
    def build(self, var_list: Sequence[Variable]) -> None:
        """Creates every slot of every variable (outside any function being traced)."""
        if self.built:
            return
        with outside_functions(), name_scope(self.name):
            for index, variable in enumerate(var_list):
                self._variable_index[variable.ref()] = index
                for slot_name in self.slot_names_for(variable):
                    self._make_slot(variable, slot_name)
            self._build_extra(var_list)
        self.built = True  # a subclass's build() goes on to add its own slots

    def slot_names_for(self, variable: Variable) -> Tuple[str, ...]:
        return self.slot_names

    def _slot_initial_value(self, slot_name: str) -> float:
        return 0.0

    def _build_extra(self, var_list: Sequence[Variable]) -> None:
        """Creates non-slot state (a hook for Nadam)."""

    def _make_slot(self, variable: Variable, slot_name: str, fill: Any = None) -> Variable:
        base = variable.name.split(":")[0].replace("/", "_")
        fill = self._slot_initial_value(slot_name) if fill is None else fill

        def initial() -> Any:
            shape = variable.shape.as_list()
            if callable(fill):
                return fill(shape, variable.dtype)
            return np.full(shape, fill, dtype=variable.dtype.as_numpy_dtype)
        with outside_functions(), name_scope(self.name):
            return self._slots.create(variable, slot_name, initial, f"{base}_{slot_name}")

    # -- Keras's subclassing API: build() adds slots, update_step() assigns ------------
    def add_variable_from_reference(self, reference_variable: Variable, name: str,
                                    initializer: Any = "zeros") -> Variable:
        """A slot shaped like `reference_variable` ("zeros", "ones", a number or a
        callable(shape, dtype))."""
        if isinstance(initializer, str):
            if initializer not in ("zeros", "ones"):
                raise ValueError(f"Unknown initializer: {initializer!r}")
            initializer = 0.0 if initializer == "zeros" else 1.0
        return self._make_slot(reference_variable, name, initializer)

    def add_optimizer_variables(self, trainable_variables: Sequence[Variable], name: Any,
                                initializer: Any = "zeros") -> Any:
        """Slots `name` (or each of a list of names) for every variable, Keras's order."""
        names = [name] if isinstance(name, str) else list(name)
        made: Tuple[List[Variable], ...] = tuple([] for _ in names)
        for variable in trainable_variables:
            for found, slot_name in zip(made, names, strict=True):
                found.append(self.add_variable_from_reference(variable, slot_name, initializer))
        return made[0] if isinstance(name, str) else made

    def _get_variable_index(self, variable: Variable) -> int:
        return self._variable_index[variable.ref()]

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """Keras's per-variable hook for subclasses; the built-ins give `_rule` instead."""
        raise NotImplementedError(f"{type(self).__name__} must override update_step or _rule")

    def assign(self, variable: Variable, value: Any) -> None:
        """variable = value (an IndexedSlices value writes only its rows)."""
        self._record(variable, value, "scatter_update", "assign")

    def assign_add(self, variable: Variable, value: Any) -> None:
        self._record(variable, value, "scatter_add", "assign_add")

    def assign_sub(self, variable: Variable, value: Any) -> None:
        self._record(variable, value, "scatter_sub", "assign_sub")

    def _record(self, variable: Variable, value: Any, sparse_method: str, method: str) -> None:
        if isinstance(value, IndexedSlices):
            rows = IndexedSlices(cast(value.values, variable.dtype), value.indices,
                                 value.dense_shape)
            result = getattr(variable, sparse_method)(rows)
        else:
            result = getattr(variable, method)(cast(value, variable.dtype), read_value=False)
        self._step_ops.append(result)

    def _slot(self, variable: Variable, slot_name: str) -> Variable:
        slot = self._slots.get(variable, slot_name)
        if slot is None:
            raise KeyError(f"Optimizer {self.name} has no slot {slot_name!r} for variable "
                           f"{variable.name}: build() was not run for it")
        return slot

    def exclude_from_weight_decay(self, var_list: Optional[Iterable[Variable]] = None,
                                  var_names: Optional[Iterable[str]] = None) -> None:
        """Variables (or names containing any of `var_names`) that weight decay skips."""
        if self.built:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before the "
                             "optimizer is built.")
        self._exclude_ids = {id(v) for v in (var_list or ())}
        names = list(var_names or ())
        self._exclude_pattern = re.compile("|".join(set(names))) if names else None

    def _use_weight_decay(self, variable: Variable) -> bool:
        if id(variable) in self._exclude_ids:
            return False
        return not (self._exclude_pattern is not None and
                    self._exclude_pattern.search(variable.name) is not None)

    # -- applying -----------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable[Tuple[Any, Variable]]) -> Any:
        """Applies one update; returns `iterations` (graph mode: the training op)."""
        grads, variables = zip(*grads_and_vars, strict=True)
        return self.apply(grads, variables)

    def apply(self, grads: Sequence[Any], trainable_variables: Optional[Sequence[Variable]] = None
              ) -> Any:
        if len(grads) == 0:
            return None
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must "
                                 "already be built on a list of variables. Call "
                                 "`optimizer.build(trainable_variables)` first. ")
            trainable_variables = [ref.deref() for ref in self._variable_index]
        trainable_variables = list(trainable_variables)
        if not self.built:
            check_may_create_variables()
            with outside_functions(), name_scope(self.name):
                self.build(trainable_variables)
            self.built = True
        for variable in trainable_variables:
            if variable.ref() not in self._variable_index:
                raise ValueError(f"Unknown variable: {variable}. This optimizer can only be "
                                 "called for the variables it was originally built with. When "
                                 "working with a new set of variables, you should recreate a "
                                 "new optimizer instance.")
        with name_scope(self.name):
            grads, variables = _filter_empty_gradients(grads, trainable_variables)
            if self.loss_scale_factor is not None:
                scale = self.loss_scale_factor
                grads = [_map(g, lambda x, s=scale: x / s) for g in grads]
            grads = self._clip_gradients(grads)
            decay_ops = self._apply_weight_decay(
                [v for g, v in zip(grads, variables, strict=True) if not self._fused(g)])
            with control_dependencies(decay_ops):
                learning_rate = self.learning_rate
                prepared = self._prepare()
                updates: List[Any] = list(prepared.get("ops", ()))
                for grad, variable in zip(grads, variables, strict=True):
                    updates.extend(self._update(grad, variable, learning_rate, prepared))
            with control_dependencies([u for u in updates
                                       if u is not None and not isinstance(u, Variable)]):
                increment = self._iterations.assign_add(1, read_value=False)
        graph = context.current_graph()
        if graph is not None and not graph.building_function:
            return group(increment)
        return self._iterations

    def _prepare(self) -> Dict[str, Any]:
        """Step-level values computed once per apply (Nadam updates u_product here);
        the ops under "ops" run before the step counter moves."""
        return {}

    def _clip_gradients(self, grads: List[Any]) -> List[Any]:
        if self.clipnorm and self.clipnorm > 0:
            return [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return _clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            v = self.clipvalue
            return [_map(g, lambda x: clip_by_value(x, -v, v)) for g in grads]
        return grads

    def _apply_weight_decay(self, variables: Sequence[Variable]) -> List[Any]:
        if self.weight_decay is None:
            return []
        ops = []
        for variable in variables:
            if self._use_weight_decay(variable):
                lr = cast(self.learning_rate, variable.dtype)
                wd = cast(self.weight_decay, variable.dtype)
                ops.append(variable.assign_sub(variable * wd * lr, read_value=False))
        return [op for op in ops if op is not None]

    def _fused(self, grad: Any) -> bool:
        """A sparse gradient the built-in rule applies in one fused op (weight decay too)."""
        return is_sparse(grad) and type(self).update_step is Optimizer.update_step

    def _grad_terms(self, grad: Any) -> Terms:
        """Zero-preserving elementwise functions of the gradient the rule needs."""
        return (grad,)

    def _rule(self, terms: Terms, slots: Tuple[Any, ...], lr: Any, step: Dict[str, Any]
              ) -> Tuple[Tuple[Any, ...], Any]:
        """(new slot values, amount subtracted from the variable)."""
        raise NotImplementedError

    def _step_values(self, variable: Variable, prepared: Dict[str, Any]) -> Dict[str, Any]:
        """Per-variable-dtype step values (bias corrections) for the rule."""
        return prepared

    def _update(self, grad: Any, variable: Variable, learning_rate: Any,
                prepared: Dict[str, Any]) -> List[Any]:
        if type(self).update_step is not Optimizer.update_step:  # a Keras-style subclass
            self._step_ops = []
            self.update_step(grad, variable, learning_rate)
            return self._step_ops
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        step = self._step_values(variable, prepared)
        slots = [self._slot(variable, name) for name in self.slot_names_for(variable)]
        if is_sparse(grad):
            return self._update_sparse(grad, variable, slots, lr, step)
        terms = self._grad_terms(cast(convert_to_tensor(grad), dtype))
        new_slots, delta = self._rule(terms, tuple(s.value() for s in slots), lr, step)
        ops = [slot.assign(new, read_value=False) for slot, new in zip(slots, new_slots, strict=True)]
        ops.append(variable.assign_sub(delta, read_value=False))
        return ops

    def _update_sparse(self, grad: IndexedSlices, variable: Variable, slots: List[Variable],
                       lr: Any, step: Dict[str, Any]) -> List[Any]:
        """One fused op: the touched rows, and (unless lazy) every other row's decay."""
        dtype = variable.dtype
        values = cast(convert_to_tensor(grad.values), dtype)
        if self.lazy_sparse:  # TF's sparse kernels: repeated rows summed, then the rule
            rows, (summed,) = unique_rows(grad.indices, [values])
            terms = list(self._grad_terms(summed))
        else:  # Keras: the terms of each slice (g, g*g), summed per row
            rows, terms = unique_rows(grad.indices, self._grad_terms(values))
        scalars = {key: value for key, value in step.items() if key != "ops"}
        scalars["learning_rate"] = lr
        decay = None
        if self.weight_decay is not None and self._use_weight_decay(variable):
            decay = (cast(self.weight_decay, dtype), lr)
        # Keras's weight decay moves every row, even under a rule that touches rows only.
        lazy = self.lazy_sparse or (self.sparse_is_lazy and decay is None)
        result = sparse_apply(_RowRule(self, len(terms), dtype.as_numpy_dtype), variable, slots,
                              rows, terms, scalars, lazy, decay)
        return [result]


class _RowRule:
    """An optimizer's `_rule` on NumPy rows (the fused sparse kernel's rule): rows
    without a gradient get zero terms, as Keras's densified gradient gives them."""

    def __init__(self, optimizer: Optimizer, num_terms: int, dtype: Any) -> None:
        self.optimizer = optimizer
        self.zeros = (np.zeros((), dtype),) * num_terms

    def __call__(self, terms: Any, slots: Tuple[Any, ...], step: Dict[str, Any]) -> Any:
        return self.optimizer._rule(self.zeros if terms is None else terms, slots,
                                    step["learning_rate"], step)


def _map(grad: Any, fn: Any) -> Any:
    if grad is None:
        return None
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(fn(grad.values), grad.indices, grad.dense_shape)
    return fn(grad)


def _values(grad: Any) -> Any:
    return grad.values if isinstance(grad, IndexedSlices) else grad


def _clip_by_global_norm(grads: List[Any], clip_norm: float) -> List[Any]:
    """Keras's global clipping: scale by clip_norm / max(norm, clip_norm); NaN if not finite."""
    squared = [reduce_sum(square(_values(g))) for g in grads if g is not None]
    norm = sqrt(reduce_sum(stack(squared)))
    scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm)
    scale = scale + (norm - norm)
    return [_map(g, lambda x: x * cast(scale, x.dtype)) for g in grads]


def _filter_empty_gradients(grads: Sequence[Any], variables: Sequence[Variable]
                            ) -> Tuple[List[Any], List[Variable]]:
    kept = [(g, v) for g, v in zip(grads, variables, strict=True) if g is not None]
    missing = [v.name for g, v in zip(grads, variables, strict=True) if g is None]
    if not kept:
        raise ValueError("No gradients provided for any variable.")
    if missing:
        warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the "
                      "loss. If using `model.compile()`, did you forget to provide a `loss` "
                      "argument?", stacklevel=2)
    return [g for g, _ in kept], [v for _, v in kept]


__all__ = ["Optimizer"]
