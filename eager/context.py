"""The thread-local execution context: mode, default-graph stack, tape stack.

This is the only mutable global state besides the registries (DESIGN.md).
Eager execution is the default; a graph pushed by `Graph.as_default()` (or
a function being traced) switches the thread to graph mode.
"""
from __future__ import annotations

import threading
from typing import Any, List, Optional


class _ContextState(threading.local):
    """Per-thread state. `graph` is None exactly when executing eagerly."""

    def __init__(self) -> None:
        self.graph: Any = None
        self.graph_stack: List[Any] = []
        self.tapes: List[Any] = []          # active, recording GradientTapes
        self.accumulators: List[Any] = []   # active ForwardAccumulators
        self.variable_creators: List[Any] = []  # variable_creator_scope stack, innermost last
        self.gradient_overrides: List[dict] = []  # eager gradient_override_map
        self.name_scope: str = ""          # eager-mode name scope (names only)
        self.global_seed: Optional[int] = None
        self.op_seed_counter: int = 0
        # Seeded random streams of eager mode, {(op type, dtype, seed, seed2): generator};
        # `dg.random.set_seed` clears them (TF resets its eager kernel cache).
        self.random_streams: dict = {}
        # Python scalars converted as operands of eager ops, {(value, dtype): tensor}:
        # eager tensors are immutable, so `x * 0.5` need not convert 0.5 every time.
        self.scalar_operands: dict = {}
        self.default_graph: Any = None     # get_default_graph() outside any graph
        self.sessions: List[Any] = []      # default-session stack (Session.as_default)
        # {graph Operation: input indices dg.gradients does not need}, set while the
        # op's gradient function runs on this thread (Operation.skip_input_indices).
        self.skipped_inputs: dict = {}
        # Who owns locks taken while tracing (dg.function's per-function lock): this
        # thread, and the threads a deep trace continues on (eager/stack_room.py),
        # which copy it with the rest of this state.
        self.lock_owner: object = object()
        self.variable_scopes: List[Any] = []   # tf.compat.v1.variable_scope stack
        self.eager_disabled_graphs: List[Any] = []   # by compat.v1.disable_eager_execution
        # dg.summary: the default-writer stack (`writer.as_default()`) and the default step
        # (`dg.summary.experimental.set_step`), per thread as in TF.
        self.summary_writers: List[Any] = []
        self.summary_step: Any = None
        self.summary_record_if: Any = True      # dg.summary.record_if's condition
        self.summary_trace: Optional[List[Any]] = None  # graphs traced since summary.trace_on
        # This thread's compiled vectorised backward passes (eager/jacobian_plans.py's
        # JacobianPlanCache), made on the first eager jacobian/hessian; lives as the thread.
        self.jacobian_plans: Any = None


state = _ContextState()


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
