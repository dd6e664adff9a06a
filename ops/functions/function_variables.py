"""Variables created while a dg.function is traced (TensorFlow's rules).

The first trace of a function may create variables: each is lifted out of
the function graph (`init_scope`) and made in the outermost context that is
not a function body (eagerly, or in the v1 Graph the function is traced in),
so it lives on across calls; its initial value is computed there too. A
function whose first trace created variables is traced again, and creating a
variable in that trace raises TF's ValueError ("singleton variables created on
the first call"), in a trace for a later call another ValueError ("non-first
call"): a function that makes a new variable on every call is an error, a
counter created on the first call counts 1, 2, 3.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager.execute import EAGER_RESOURCES
from ...framework.func_graph import FuncGraph, init_scope
from ...framework.graph import SymbolicTensor
from ...framework.session import compile_plan, run_plan
from ...framework.tensor_spec import TensorSpec

LIFT = "lift"            # the first trace: variables are created outside the function
SINGLETON = "singleton"  # the first call's second trace: creating one again is an error
FORBID = "forbid"        # traces of later calls: creating a variable is an error

SINGLETON_ERROR = (
    "dg.function only supports singleton dg.Variables created on the first call. Make sure "
    "the dg.Variable is only created once or created outside dg.function (TensorFlow: "
    "https://www.tensorflow.org/guide/function#creating_tfvariables).")
NON_FIRST_CALL_ERROR = ("Creating variables on a non-first call to a function decorated with "
                        "dg.function.")  # TF 2.21's words


def variable_policy(graph: Any) -> Optional[str]:
    """The rule of the innermost dg.function trace enclosing `graph` (None: none)."""
    while isinstance(graph, FuncGraph):
        if graph.variable_policy is not None:
            return graph.variable_policy
        graph = graph.outer_graph
    return None


def _function_graph(graph: Any) -> Optional[FuncGraph]:
    """The dg.function trace enclosing `graph` (the one with a variable policy)."""
    while isinstance(graph, FuncGraph):
        if graph.variable_policy is not None:
            return graph
        graph = graph.outer_graph
    return None


class DeferredInitialValue:
    """An initial value computed from the function's arguments: known only when
    the first call runs (TF initializes such variables on the first call)."""

    def __init__(self, tensor: SymbolicTensor) -> None:
        self.tensor = tensor

    def placeholder_value(self) -> np.ndarray:
        """Zeros standing for the value until the first call computes it."""
        dims = self.tensor.shape.as_list() if self.tensor.shape.rank is not None else []
        return np.zeros([d or 0 for d in dims], self.tensor.dtype.as_numpy_dtype)


def record_created(graph: Any, variable: Any, deferred: Any = None) -> None:
    function_graph = _function_graph(graph)
    if function_graph is not None:
        function_graph.created_variables.append(variable)
        if isinstance(deferred, DeferredInitialValue):
            function_graph.deferred_initializers.append((variable, deferred.tensor))


def lifted_initial_value(graph: FuncGraph, initial_value: Any) -> Any:
    """The initial value of a variable made in `graph`'s trace, as a value of the
    context outside the function (call it inside `init_scope`), or a
    DeferredInitialValue when it depends on the function's arguments."""
    if callable(initial_value):
        return initial_value()
    if isinstance(initial_value, SymbolicTensor) and initial_value.op.graph.building_function:
        if initial_value.op.graph is _function_graph(graph) and \
                _reads_arguments(initial_value):
            return DeferredInitialValue(initial_value)
        return _evaluate(initial_value)
    return initial_value


def _reads_arguments(tensor: SymbolicTensor) -> bool:
    """Whether `tensor` depends on an argument placeholder of its graph."""
    graph = tensor.op.graph
    assert isinstance(graph, FuncGraph), "called for function-graph tensors only"
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.type == "Placeholder" and graph.capture_source(op.outputs[0]) is None:
            return True
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return False


def initialize_deferred(graph: FuncGraph, arguments: list) -> None:
    """Computes the initial values that depend on the arguments from the first
    call's argument values, and assigns them (outside any function)."""
    pending = graph.deferred_initializers
    if not pending:
        return
    arrays = []
    for value in arguments:
        array = getattr(value, "array", value)
        if isinstance(value, (SymbolicTensor, TensorSpec)) or not isinstance(array, np.ndarray):
            raise ValueError(
                "A dg.Variable created inside dg.function has an initial value computed from "
                "the function's arguments; it can be initialized only by a call with eager "
                "tensors, not by get_concrete_function or a call in a graph.")
        arrays.append(array)
    feeds = list(graph.inputs[:len(arrays)])
    for source, placeholder in graph.captures:
        if not isinstance(source, SymbolicTensor):
            feeds.append(placeholder)
            arrays.append(source.handle.array if hasattr(source, "assign") else source.array)
    plan = compile_plan(graph, [tensor for _, tensor in pending], feeds, "deferred_initializers")
    values = run_plan(plan, tuple(arrays), EAGER_RESOURCES)
    with init_scope():
        for (variable, _), value in zip(pending, values, strict=True):
            variable.assign(value)


def _evaluate(tensor: SymbolicTensor) -> Any:
    """Computes a function-graph tensor that depends on no function argument, from
    the eager values its graph captured (TF lifts such initializers)."""
    graph = tensor.op.graph
    assert isinstance(graph, FuncGraph), "called for function-graph tensors only"
    feeds, arrays = [], []
    for source, placeholder in graph.captures:
        if isinstance(source, SymbolicTensor):
            continue  # a value of an enclosing graph: not known outside the function
        feeds.append(placeholder)
        arrays.append(source.handle.array if hasattr(source, "assign") else source.array)
    try:
        plan = compile_plan(graph, [tensor], feeds, "lifted_initializer")
    except Exception as error:  # an argument placeholder (or a graph value) is needed
        raise ValueError(
            f"The initial value {tensor.name} of a dg.Variable created inside dg.function "
            "depends on the function's arguments and cannot be lifted out of the function: "
            "pass a callable or a value computed outside the function.") from error
    with init_scope():
        return run_plan(plan, tuple(arrays), EAGER_RESOURCES)[0]


def check_creation(graph: Any) -> bool:
    """Whether a variable made now is to be lifted; ValueError when forbidden."""
    policy = variable_policy(graph)
    if policy == SINGLETON:
        raise ValueError(SINGLETON_ERROR)
    if policy == FORBID:
        raise ValueError(NON_FIRST_CALL_ERROR)
    return policy == LIFT
