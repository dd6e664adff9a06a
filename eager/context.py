"""The thread-local execution context: mode, default-graph stack, tape stack.

It holds execution state only: the graph being built (None: eager) and the
default graph, the tapes and forward accumulators recording, and what the eager
executor reads on every op (gradient overrides, the eager name scope, its
converted Python scalars), all in one thread-local so that the hot path does one
look-up. This is the only mutable global state besides the registries
(DESIGN.md) and the per-thread states other modules own (`owned_state`, below).
Eager execution is the default; a graph pushed by `Graph.as_default()` (or
a function being traced) switches the thread to graph mode.
"""
from __future__ import annotations

import threading
from typing import Any, List


class _ContextState(threading.local):
    """Per-thread state. `graph` is None exactly when executing eagerly."""

    def __init__(self) -> None:
        self.graph: Any = None
        self.graph_stack: List[Any] = []
        self.tapes: List[Any] = []          # active, recording GradientTapes
        self.accumulators: List[Any] = []   # active ForwardAccumulators
        self.gradient_overrides: List[dict] = []  # eager gradient_override_map
        self.name_scope: str = ""          # eager-mode name scope (names only)
        # Python scalars converted as operands of eager ops, {(value, dtype): tensor}:
        # eager tensors are immutable, so `x * 0.5` need not convert 0.5 every time.
        self.scalar_operands: dict = {}
        self.default_graph: Any = None     # get_default_graph() outside any graph


state = _ContextState()

# Per-thread state that belongs to another object (the summary writers' stack and
# record_if condition, the variable scopes and creators, the random streams, the
# Jacobian plan cache, the default sessions, the function-lock owner token, the
# inputs a graph gradient skips, the traced-graph log) lives with its owner,
# in an `OwnedThreadState` made by `owned_state`; the deep-nesting hop
# (eager/stack_room.py) copies these with `state` onto the thread it continues on.
_owned: List["OwnedThreadState"] = []


class OwnedThreadState(threading.local):
    """Base of a module's own per-thread state (its __init__ sets the defaults)."""


def owned_state(cls: type) -> Any:
    """The one instance of `cls` (an OwnedThreadState subclass), registered so that
    a deep trace's continuation thread sees this thread's values."""
    instance = cls()
    _owned.append(instance)
    return instance


def snapshot() -> List[dict]:
    """This thread's context and owned states, shallow (lists shared)."""
    return [dict(state.__dict__)] + [dict(owned.__dict__) for owned in _owned]


def restore(saved: List[dict]) -> None:
    """Makes a `snapshot` of another thread this thread's (see `owned_state`)."""
    state.__dict__.update(saved[0])
    for owned, values in zip(_owned, saved[1:], strict=True):
        owned.__dict__.update(values)


def executing_eagerly() -> bool:
    """True unless a graph is being built on this thread."""
    return state.graph is None


def push_graph(graph: Any) -> None:
    state.graph_stack.append(graph)
    state.graph = graph


def pop_graph(graph: Any) -> None:
    stack = state.graph_stack
    if not stack or stack[-1] is not graph:
        raise RuntimeError("Graph.as_default() contexts were exited out of order.")
    stack.pop()
    state.graph = stack[-1] if stack else None


def current_graph() -> Any:
    """The graph being built on this thread, or None in eager mode."""
    return state.graph


def push_tape(tape: Any) -> None:
    state.tapes.append(tape)


def pop_tape(tape: Any) -> None:
    tapes = state.tapes
    if tape in tapes:
        tapes.remove(tape)
