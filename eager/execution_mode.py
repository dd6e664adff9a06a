"""tf.compat.v1.disable_eager_execution / enable_eager_execution, for the calling thread.

Disabling eager execution makes a fresh default graph current, so that a TF1
program (placeholders, Session.run) runs unchanged; enabling it again drops
that graph. duograd's mode is per thread, so these affect the calling thread.
"""
from __future__ import annotations

from typing import Any, List

from ..framework.graph import Graph
from ..framework.tensor_shape import disable_v2_tensorshape, enable_v2_tensorshape
from ..ops.state.variables import (disable_resource_variables, enable_resource_variables,
                                   resource_variables_enabled)
from . import context



class _DisablingState(context.OwnedThreadState):
    """The graphs compat.v1.disable_eager_execution made default on this thread."""

    def __init__(self) -> None:
        self.graphs: List[Any] = []


_disabling = context.owned_state(_DisablingState)


def disable_eager_execution() -> None:
    """Build graphs from now on (until enable_eager_execution), as TF1 did."""
    if context.executing_eagerly():
        graph = Graph()
        context.push_graph(graph)
        _disabled().append(graph)


def enable_eager_execution(config: Any = None, device_policy: Any = None,
                           execution_mode: Any = None) -> None:
    """Undo disable_eager_execution; ValueError while another graph is being built."""
    disabled = _disabled()
    if not disabled:
        return
    graph = disabled[-1]
    if context.current_graph() is not graph:
        raise ValueError("tf.enable_eager_execution must be called at program startup "
                         "(not inside a graph's as_default block).")
    context.pop_graph(graph)
    disabled.pop()


def disable_v2_behavior() -> None:
    """TF1 behaviour for a TF1 program's first line: graphs and Session.run, and TF1's
    shapes (`shape[1].value`, "?" for unknown dimensions). Control flow and variables
    stay duograd's one kind, which TF1 programs accept as they are."""
    disable_eager_execution()
    disable_v2_tensorshape()
    disable_resource_variables()


def enable_v2_behavior() -> None:
    """Undoes disable_v2_behavior (eager execution and TF2 shapes again)."""
    enable_eager_execution()
    enable_v2_tensorshape()
    enable_resource_variables()


def _disabled() -> List[Any]:
    return _disabling.graphs


__all__ = ["disable_eager_execution", "enable_eager_execution", "disable_v2_behavior",
           "enable_v2_behavior", "disable_v2_tensorshape", "enable_v2_tensorshape",
           "disable_resource_variables", "enable_resource_variables",
           "resource_variables_enabled"]
