"""The mode-agnostic scope context managers: `name_scope`, `control_dependencies`, `device`.

They pick the eager or graph behaviour from the current context: in a graph
(or a dg.function being traced) they delegate to the default graph; eagerly
they only track the name prefix (or do nothing, for dependencies and devices).
"""
from __future__ import annotations

import contextlib
import re
from typing import Any, Iterator, Optional, Sequence

from ..eager import context

_state = context.state


@contextlib.contextmanager
def name_scope(name: Optional[str]) -> Iterator[str]:
    """A scope for op names in graph mode; in eager mode it prefixes variable names.

    Eager mode follows TF2: names are not made unique, and a name ending in
    '/' replaces the enclosing scope instead of nesting in it."""
    graph = _state.graph
    if graph is None:
        outer = _state.name_scope
        if not name:
            scope = ""
        elif name.endswith("/"):
            scope = name
        else:
            scope = f"{outer}{name}/"
        _state.name_scope = scope
        try:
            yield scope
        finally:
            _state.name_scope = outer
        return
    with graph.name_scope(name) as scope:
        yield scope


_ROOT_SCOPE = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_SCOPE = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


def name_scope_v2(name: str) -> Any:
    """TF2's `tf.name_scope`: the name must be a string (ValueError otherwise), and
    while a graph is built a valid op-name prefix. `name_scope` (TF1's rules,
    None resets the scope) serves the library's own code."""
    if not isinstance(name, str):
        raise ValueError(f"name for name_scope must be a string, got {name!r}")
    graph = _state.graph
    if graph is not None and name and not name.endswith("/"):
        pattern = _SCOPE if graph.get_name_scope() else _ROOT_SCOPE
        if not pattern.match(name):
            raise ValueError(f"'{name}' is not a valid scope name. A scope name has to match "
                             f"the pattern {pattern.pattern}")
    return name_scope(name)


@contextlib.contextmanager
def control_dependencies(control_inputs: Optional[Sequence[Any]]) -> Iterator[None]:
    """Ops built inside run after `control_inputs` (eager mode: already done)."""
    graph = _state.graph
    if graph is None:
        yield
        return
    with graph.control_dependencies(control_inputs):
        yield


@contextlib.contextmanager
def device(name: Optional[str]) -> Iterator[None]:
    """Recorded on graph ops; has no effect on where they run."""
    graph = _state.graph
    if graph is None:
        yield
        return
    with graph.device(name):
        yield


__all__ = ["name_scope", "name_scope_v2", "control_dependencies", "device"]
