"""Building state outside the function being traced (TF's `init_scope`, minimally).

Optimizer slots and counters are created lazily, possibly during the first
trace of a `dg.function`. Such variables must outlive the trace, so they are
created in the outermost context that is not a function graph: eager mode
when the function was called eagerly, or the enclosing (TF1) graph.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ..eager import context
from ..ops.functions.function_variables import check_creation


def _outermost_non_function(graph: Any) -> Any:
    while graph is not None and getattr(graph, "building_function", False):
        graph = graph.outer_graph
    return graph


@contextlib.contextmanager
def outside_functions() -> Iterator[None]:
    """Runs the body in the innermost context that is not a function being traced."""
    graph = context.current_graph()
    outer = _outermost_non_function(graph)
    if outer is graph:
        yield
        return
    state = context.state
    saved_scope = state.name_scope
    state.name_scope = ""
    context.push_graph(outer)  # None: eager execution for the body
    try:
        yield
    finally:
        context.pop_graph(outer)
        state.name_scope = saved_scope


def check_may_create_variables() -> None:
    """ValueError (as TF) when the dg.function being traced may not create variables
    now: optimizer state made on a later trace (a second optimizer, a new variable)."""
    graph = context.current_graph()
    if graph is not None and getattr(graph, "building_function", False):
        check_creation(graph)


__all__ = ["outside_functions", "check_may_create_variables"]
