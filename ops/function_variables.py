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

from ..eager.execute import EAGER_RESOURCES
from ..framework.func_graph import FuncGraph, init_scope
from ..framework.graph import SymbolicTensor
from ..framework.session import compile_plan, run_plan

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


def record_created(graph: Any, variable: Any) -> None:
    while isinstance(graph, FuncGraph):
        if graph.variable_policy is not None:
            graph.created_variables.append(variable)
            return
        graph = graph.outer_graph


def lifted_initial_value(graph: FuncGraph, initial_value: Any) -> Any:
    """The initial value of a variable made in `graph`'s trace, as a value of the
    context outside the function (call it inside `init_scope`)."""
    if callable(initial_value):
        return initial_value()
    if isinstance(initial_value, SymbolicTensor) and initial_value.op.graph.building_function:
        return _evaluate(initial_value)
    return initial_value


def _evaluate(tensor: SymbolicTensor) -> Any:
    """Computes a function-graph tensor that depends on no function argument, from
    the eager values its graph captured (TF lifts such initializers)."""
    graph = tensor.op.graph
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
