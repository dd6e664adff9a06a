"""TF1's graph collections: `GraphKeys`, `get_collection(key, scope)`,
`get_collection_ref`, `add_to_collection(s)`, and the variable lists and
initializers read from them (`local_variables`, `local_variables_initializer`)."""
from __future__ import annotations

from typing import Any, Iterable, List, Optional, Union

from ..eager import context
from ..framework.graph import Graph
from ..framework.session import get_default_graph
from ..ops.control_flow import control_flow_ops
from ..ops.state import variables


class GraphKeys:
    """The standard collection names (the strings TF1 uses)."""
    GLOBAL_VARIABLES = VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


def _graph() -> Graph:
    graph = context.state.graph
    return graph if graph is not None else get_default_graph()


def get_collection(key: str, scope: Optional[str] = None) -> List[Any]:
    """A copy of the default graph's collection `key`; with `scope`, only the items
    whose name matches it from the start (a regular expression, as TF)."""
    return _graph().get_collection(key, scope)


def get_collection_ref(key: str) -> List[Any]:
    """The default graph's collection `key` itself (appending to it adds to it)."""
    return _graph().get_collection_ref(key)


def add_to_collection(name: str, value: Any) -> None:
    _graph().add_to_collection(name, value)


def add_to_collections(names: Union[str, Iterable[str]], value: Any) -> None:
    for name in [names] if isinstance(names, str) else set(names):
        add_to_collection(name, value)


def local_variables(scope: Optional[str] = None) -> List[Any]:
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: Optional[str] = None) -> List[Any]:
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: Optional[str] = None) -> List[Any]:
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def local_variables_initializer() -> Any:
    """One op initializing every variable of the LOCAL_VARIABLES collection."""
    return variables.variables_initializer(local_variables(), name="init")


def tables_initializer(name: str = "init_all_tables") -> Any:
    """Initializes the graph's lookup tables: duograd has none, so a no-op (as TF
    returns for a graph without tables)."""
    return control_flow_ops.no_op(name=name)


NAMES = {
    "GraphKeys": GraphKeys, "get_collection": get_collection,
    "get_collection_ref": get_collection_ref, "add_to_collection": add_to_collection,
    "add_to_collections": add_to_collections, "local_variables": local_variables,
    "model_variables": model_variables, "moving_average_variables": moving_average_variables,
    "local_variables_initializer": local_variables_initializer,
    "initialize_local_variables": local_variables_initializer,
    "tables_initializer": tables_initializer, "initialize_all_tables": tables_initializer,
    "all_variables": variables.global_variables,
}
