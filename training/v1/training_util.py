"""TF1's global step: one int64 variable per graph, kept in the "global_step" collection.

In eager mode it lives in the collections of the default graph object, so
repeated calls return the same variable, as in TensorFlow.
"""
from __future__ import annotations

from typing import Any, Optional

from ...eager import context
from ...framework import dtypes
from ...framework.session import get_default_graph
from ...framework.scopes import name_scope
from ...ops.state.variables import Variable
from ..lifting import outside_functions

GLOBAL_STEP = "global_step"


def _graph_of(graph: Optional[Any]) -> Any:
    if graph is not None:
        return graph
    current = context.current_graph()
    while current is not None and getattr(current, "building_function", False):
        current = current.outer_graph
    return current if current is not None else get_default_graph()


def get_global_step(graph: Optional[Any] = None) -> Optional[Variable]:
    """The global step variable of `graph` (default: the current one), or None."""
    found = _graph_of(graph).get_collection(GLOBAL_STEP)
    if len(found) > 1:
        raise TypeError("There should be only one global step; found "
                        f"{[v.name for v in found]}")
    return found[0] if found else None


def create_global_step(graph: Optional[Any] = None) -> Variable:
    """Creates the global step; ValueError if `graph` already has one."""
    target = _graph_of(graph)
    if get_global_step(target) is not None:
        raise ValueError('"global_step" already exists.')
    with outside_functions(), name_scope(None):
        if context.current_graph() is None or graph is None:
            step = Variable(0, trainable=False, name="global_step", dtype=dtypes.int64)
        else:
            with target.as_default():
                step = Variable(0, trainable=False, name="global_step", dtype=dtypes.int64)
    target.add_to_collection(GLOBAL_STEP, step)
    return step


def get_or_create_global_step(graph: Optional[Any] = None) -> Variable:
    """The global step of `graph`, created (int64, 0, not trainable) on first use."""
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The global step's value as a Python int (read through `sess` in graph mode)."""
    if hasattr(global_step_tensor, "numpy") and context.executing_eagerly():
        return int(global_step_tensor.numpy())
    return int(sess.run(global_step_tensor))


__all__ = ["get_global_step", "create_global_step", "get_or_create_global_step", "global_step"]
