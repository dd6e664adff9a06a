"""TF1's optimizer base (`tf.compat.v1.train.Optimizer`): minimize = compute + apply.

Graph mode: `minimize`/`apply_gradients` build a training op run by a
Session; slots are graph variables initialised by
`global_variables_initializer()` (run it after building the training op).
Eager mode: `minimize` takes a callable loss and updates at once, as TF1's
optimizers do under eager execution.

A dense gradient is applied by `_apply_dense`; an IndexedSlices gradient has
its repeated rows summed first and is applied by `_apply_sparse` on those
rows only (TF's `_apply_sparse_duplicate_indices`). `lazy_sparse=True` makes
an optimizer whose TF rule moves every row on a sparse step (Adam) move only
the touched rows and their slots (tf.contrib.opt.LazyAdamOptimizer's rule).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...eager import context
from ...eager.backprop import GradientTape
from ...framework.indexed_slices import IndexedSlices
from ...framework.scopes import control_dependencies, name_scope
from ...ops.constant_op import convert_to_tensor
from ...ops.control_flow.control_flow_ops import group
from ...ops.gradients_impl import gradients
from ...ops.math.math_ops import cast
from ...ops.state.variables import Variable, trainable_variables
from ..lifting import outside_functions
from ..slots import SlotRegistry
from ..sparse import unique_rows

TRAIN_OP = "train_op"


class Optimizer:
    """Base of TF1's optimizers; subclasses define slots and the dense/sparse updates."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str, lazy_sparse: bool = False) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._lazy_sparse = bool(lazy_sparse)
        self._name = name
        self._slots = SlotRegistry()
        self._non_slots: Dict[Tuple[str, Any], Variable] = {}

    def get_name(self) -> str:
        return self._name

    # -- gradients ----------------------------------------------------------
    def minimize(self, loss: Any, global_step: Optional[Variable] = None,
                 var_list: Optional[Sequence[Variable]] = None, gate_gradients: int = GATE_OP,
                 aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                 name: Optional[str] = None, grad_loss: Any = None) -> Any:
        """compute_gradients then apply_gradients (graph: the training op; eager: None)."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method, grad_loss=grad_loss)
        if not [v for g, v in grads_and_vars if g is not None]:
            raise ValueError("No gradients provided for any variable, check your graph for ops "
                             "that do not support gradients, between variables "
                             f"{[str(v) for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Any, var_list: Optional[Sequence[Variable]] = None,
                          gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                          colocate_gradients_with_ops: bool = False, grad_loss: Any = None
                          ) -> List[Tuple[Any, Variable]]:
        """[(gradient or None, variable)] of `loss` (a callable in eager mode)."""
        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(list(var_list))
                loss_value = loss()
            if var_list is None:
                var_list = tape.watched_variables()
            grads = tape.gradient(loss_value, list(var_list), grad_loss)
            return list(zip(grads, var_list, strict=True))
        if context.executing_eagerly():
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a "
                               "function when eager execution is enabled.")
        if gate_gradients not in (self.GATE_NONE, self.GATE_OP, self.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             f"Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        _check_float(loss)
        var_list = list(trainable_variables() if var_list is None else var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, grad_ys=grad_loss,
                          aggregation_method=aggregation_method)
        return list(zip(grads, var_list, strict=True))

    # -- applying -----------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Variable]],
                        global_step: Optional[Variable] = None, name: Optional[str] = None
                        ) -> Any:
        """Applies the gradients; increments `global_step` after all updates."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for grad, var in grads_and_vars:
            if grad is not None and not isinstance(grad, IndexedSlices):
                try:
                    grad = convert_to_tensor(grad)
                except (TypeError, ValueError) as error:
                    raise TypeError("Gradient must be convertible to a Tensor or "
                                    f"IndexedSlices, or None: {grad}") from error
            converted.append((grad, var))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: "
                             f"{[str(v) for _, v in converted]}.")
        with outside_functions():
            self._create_slots(var_list)
        update_ops: List[Any] = []
        with name_scope(name or self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with name_scope("update_" + _op_name(var)):
                    if isinstance(grad, IndexedSlices):
                        update_ops.append(self._apply_sparse_duplicate_indices(grad, var))
                    else:
                        update_ops.append(self._apply_dense(cast(grad, var.dtype), var))
            update_ops = _ops(update_ops)
            if global_step is None:
                result = self._finish(update_ops, scope.rstrip("/") or self._name)
            else:
                with control_dependencies(_ops([self._finish(update_ops, "update")])):
                    result = global_step.assign_add(convert_to_tensor(1, global_step.dtype),
                                                    read_value=False)
        graph = context.current_graph()
        if graph is None:
            return None
        if not graph.building_function:
            graph.add_to_collection(TRAIN_OP, result)
        return result

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Variable) -> Any:
        rows, (summed,) = unique_rows(grad.indices, [cast(grad.values, var.dtype)])
        return self._apply_sparse(summed, var, rows)

    def _create_slots(self, var_list: List[Variable]) -> None:
        """Creates the slots of `var_list` (outside any function being traced)."""

    def _prepare(self) -> None:
        """Converts hyper-parameters to tensors once per apply_gradients."""

    def _apply_dense(self, grad: Any, var: Variable) -> Any:
        raise NotImplementedError

    def _apply_sparse(self, grad: Any, var: Variable, rows: Any) -> Any:
        """`grad[i]` is the summed gradient of row `rows[i]` (rows distinct)."""
        raise NotImplementedError

    def _finish(self, update_ops: List[Any], name_scope_: str) -> Any:
        return group(*update_ops, name=name_scope_) if update_ops and \
            context.current_graph() is not None else None

    # -- slots and other state ------------------------------------------------
    def _zeros_slot(self, var: Variable, slot_name: str, op_name: str) -> Variable:
        return self._slot_with_value(var, slot_name, op_name, 0.0)

    def _slot_with_value(self, var: Variable, slot_name: str, op_name: str,
                         fill: float) -> Variable:
        def initial() -> np.ndarray:
            return np.full(var.shape.as_list(), fill, dtype=var.dtype.as_numpy_dtype)
        name = f"{_op_name(var)}/{op_name}"
        taken = len(self._slots.names_of(var))
        if taken and self._slots.get(var, slot_name) is None and context.executing_eagerly():
            name = f"{name}_{taken}"  # TF's slot scopes: v/Adam, v/Adam_1 (a graph does it)
        with name_scope(None):
            return self._slots.create(var, slot_name, initial, name)

    def get_slot(self, var: Variable, name: str) -> Optional[Variable]:
        """The slot `name` of `var`, or None."""
        return self._slots.get(var, name)

    def get_slot_names(self) -> List[str]:
        """Names of the slots this optimizer has created, sorted."""
        return sorted({name for _, name, _ in self._slots.triples()})

    def slot_variables(self) -> List[Tuple[Variable, str, Variable]]:
        return self._slots.triples()

    def defer_slot_restore(self, variable: Variable, slot_name: str, value: Any) -> None:
        self._slots.defer(variable, slot_name, value)

    def _non_slot_variable(self, initial_value: float, name: str) -> Variable:
        """An optimizer-level variable (Adam's beta powers), one per graph."""
        key = (name, _outer_graph())
        var = self._non_slots.get(key)
        if var is None:
            with outside_functions(), name_scope(None):
                var = Variable(initial_value, name=name, trainable=False)
            self._non_slots[key] = var
        return var

    def _get_non_slot_variable(self, name: str) -> Optional[Variable]:
        graph = _outer_graph()
        return self._non_slots.get((name, graph))

    def variables(self) -> List[Variable]:
        """Non-slot variables then slots, in creation order."""
        return list(self._non_slots.values()) + [s for _, _, s in self._slots.triples()]

    def trackable_children(self) -> Dict[str, Variable]:
        """The optimizer's non-slot variables by name (Adam's beta1_power, beta2_power)."""
        graph = _outer_graph()
        return {name: var for (name, g), var in self._non_slots.items() if g is graph}

    @staticmethod
    def _call_if_callable(param: Any) -> Any:
        return param() if callable(param) else param


def _outer_graph() -> Any:
    graph = context.current_graph()
    while graph is not None and getattr(graph, "building_function", False):
        graph = graph.outer_graph
    return graph


def _op_name(var: Variable) -> str:
    return var.name.split(":")[0]


def _ops(results: List[Any]) -> List[Any]:
    """Graph ops and tensors among update results (eager updates return None or variables)."""
    return [r for r in results if r is not None and not isinstance(r, Variable)]


def _check_float(loss: Any) -> None:
    dtype = getattr(loss, "dtype", None)
    if dtype is not None and not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"Invalid type {dtype.name} for {getattr(loss, 'name', loss)}, "
                         "expected: [float16, bfloat16, float32, float64].")


__all__ = ["Optimizer"]
