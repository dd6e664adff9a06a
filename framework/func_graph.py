"""FuncGraph: the graph a function body, a cond branch or a loop body is traced into.

A FuncGraph is a `Graph` that knows its outer graph (None when traced from
eager mode). Any value from outside that one of its ops uses, an eager
tensor, a variable's handle or a tensor of an enclosing graph, becomes a
placeholder of this graph recorded in `captures` as (outer value,
placeholder); the op that runs the graph passes the outer value in at run
time. A tensor of a grandparent graph is captured by the parent first, so a
capture always names a value of the immediately enclosing graph (or an
eager value). `inputs` lists the argument placeholders, then the captures.
"""
from __future__ import annotations

import contextlib
import itertools
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ..eager import context
from . import dtypes
from .graph import Graph, Operation, SymbolicTensor
from .registry import op_defs
from .tensor import Tensor
from .tensor_shape import TensorShape, as_shape

_state = context.state


class FuncGraph(Graph):
    """A graph traced from Python with explicit inputs and captured outer values."""

    def __init__(self, name: str, outer_graph: Optional[Graph] = None) -> None:
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.value_equality = outer_graph is None or outer_graph.value_equality
        self.inputs: List[SymbolicTensor] = []
        self.outputs: List[Any] = []
        self.captures: List[Tuple[Any, SymbolicTensor]] = []
        self._capture_by_id: Dict[int, SymbolicTensor] = {}
        self._source_by_placeholder: Dict[int, Any] = {}
        # dg.function's rule for variables created while tracing this graph
        # (ops/functions/function_variables.py): None defers to the enclosing graph.
        self.variable_policy: Optional[str] = None
        self.created_variables: List[Any] = []
        self.deferred_initializers: List[Tuple[Any, SymbolicTensor]] = []  # (variable, value)
        # Ops of enclosing graphs named in control_dependencies inside this graph: the
        # op that runs this graph (call, If, While) takes them as control inputs.
        self.control_captures: List[Operation] = []

    @property
    def building_function(self) -> bool:
        return True

    def add_input(self, dtype: Any, shape: Any, name: str = "arg") -> SymbolicTensor:
        """A new argument placeholder, appended to `inputs`."""
        placeholder = self._placeholder(dtype, as_shape(shape), name)
        self.inputs.append(placeholder)
        return placeholder

    def _placeholder(self, dtype: Any, shape: TensorShape, name: str) -> SymbolicTensor:
        op_def = op_defs.lookup("Placeholder")
        attrs = {"dtype": dtype, "shape": shape, "feed_name": name}
        with self.control_dependencies(None):
            return self.create_op(op_def, (), attrs, name).outputs[0]

    # -- captures ---------------------------------------------------------
    def capture_input(self, value: Any, op_def: Any) -> SymbolicTensor:
        if isinstance(value, SymbolicTensor) and value.op.graph is self:
            return value
        return self.capture(value)

    def capture_foreign(self, value: Any) -> SymbolicTensor:
        return self.capture(value)

    def captured(self, value: Any) -> Optional[SymbolicTensor]:
        """The placeholder standing for outer `value`, or None if not captured."""
        return self._capture_by_id.get(id(value))

    def capture(self, value: Any) -> SymbolicTensor:
        """The placeholder of this graph standing for outer `value` (made once)."""
        hit = self._capture_by_id.get(id(value))
        if hit is not None:
            return hit
        if isinstance(value, SymbolicTensor):
            if value.op.graph is self:
                return value
            if not self.is_enclosed_by(value.op.graph):  # TypeError, as TF
                raise TypeError(f"{value!r} is out of scope and cannot be used here. Use "
                                "return values, explicit Python locals or TensorFlow "
                                "collections to access it (function graph "
                                f"'{self.name}' cannot capture it).")
            source: Tensor = value
            outer = self.outer_graph
            if isinstance(outer, FuncGraph) and value.op.graph is not outer:
                source = outer.capture(value)
        elif isinstance(value, Tensor):
            source = value  # an eager tensor: fed at call time
        else:
            return Graph.capture_foreign(self, value)
        placeholder = self._placeholder(source.dtype, source.shape, "capture")
        self.captures.append((source, placeholder))
        self.inputs.append(placeholder)
        self._capture_by_id[id(value)] = placeholder
        self._capture_by_id[id(source)] = placeholder
        self._source_by_placeholder[id(placeholder)] = source
        return placeholder

    def capture_variable(self, variable: Any) -> SymbolicTensor:
        """A resource placeholder for an eagerly created variable, fed its handle
        at call time, so that reads see assignments and tapes see the read."""
        hit = self._capture_by_id.get(id(variable))
        if hit is not None:
            return hit
        placeholder = self._placeholder(dtypes.resource, TensorShape(()), "capture_variable")
        self.captures.append((variable, placeholder))
        self.inputs.append(placeholder)
        self._capture_by_id[id(variable)] = placeholder
        self._source_by_placeholder[id(placeholder)] = variable
        return placeholder

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Optional[Sequence[Any]]) -> Iterator[None]:
        """As Graph's; ops of enclosing graphs become control captures (TF's)."""
        if control_inputs is None:
            with Graph.control_dependencies(self, None):
                yield
            return
        own = []
        for c in control_inputs:
            op = c if isinstance(c, Operation) else getattr(c, "op", c)
            if isinstance(op, Operation) and op.graph is not self and \
                    self.is_enclosed_by(op.graph):
                if not any(op is seen for seen in self.control_captures):
                    self.control_captures.append(op)
            else:
                own.append(c)
        with Graph.control_dependencies(self, own):
            yield

    def is_enclosed_by(self, graph: Graph) -> bool:
        outer = self.outer_graph
        while outer is not None:
            if outer is graph:
                return True
            outer = outer.outer_graph
        return False

    def capture_source(self, placeholder: SymbolicTensor) -> Optional[Any]:
        """The outer value a capture placeholder stands for (None for arguments)."""
        return self._source_by_placeholder.get(id(placeholder))

    def __repr__(self) -> str:
        return f"<dg.FuncGraph '{self.name}' with {len(self.get_operations())} ops>"


_graph_uids = itertools.count(1)


def unique_graph_name(prefix: str) -> str:
    """`prefix_<n>`, unique in the process (TF names function graphs so)."""
    return f"{prefix}_{next(_graph_uids)}"


def is_variable(value: Any) -> bool:
    return not isinstance(value, Tensor) and hasattr(value, "handle") and \
        hasattr(value, "assign")


def capture_value(source: Any) -> Any:
    """What to pass for a capture where the op is built: a variable's handle in
    the current context, anything else as it is."""
    return source.handle if is_variable(source) else source


def attach_control_captures(op: Operation, graphs: Sequence[FuncGraph]) -> None:
    """Makes `op`, which runs `graphs`, wait for the outer ops they named in
    control_dependencies; ops further out pass on to op's own graph."""
    for graph in graphs:
        for dep in graph.control_captures:
            if dep.graph is op.graph:
                if not any(dep is c for c in op.control_inputs):
                    op.control_inputs.append(dep)
                    dep.add_control_output(op)
            elif isinstance(op.graph, FuncGraph) and \
                    not any(dep is c for c in op.graph.control_captures):
                op.graph.control_captures.append(dep)


def inner_tensor(value: Any, capture: bool = True) -> Any:
    """What stands for outer tensor `value` in the function graph being built.

    A tape or accumulator opened inside a traced function and told about a
    tensor from outside (an eager tensor, a tensor of an enclosing graph)
    must follow the capture placeholder the function's ops actually read, as
    TensorFlow does. With `capture=False` an uncaptured value is returned as is.
    """
    graph = _state.graph
    if not isinstance(graph, FuncGraph) or not isinstance(value, Tensor):
        return value
    if isinstance(value, SymbolicTensor) and value.op.graph is graph:
        return value
    if capture:
        return graph.capture(value)
    hit = graph.captured(value)
    return value if hit is None else hit


def variables_captured(graph: FuncGraph) -> List[Any]:
    return [source for source, _ in graph.captures if is_variable(source)]


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Leaves every function graph being traced, as TensorFlow's `init_scope`.

    Inside, ops go to the outermost context that is not a function body: eager
    mode, or the v1 Graph the function is traced in, with no control
    dependencies; tapes and accumulators are paused. Variables created by a
    dg.function's first trace are made here.
    """
    state = _state
    stack = state.graph_stack
    depth = len(stack)
    while depth and stack[depth - 1] is not None and stack[depth - 1].building_function:
        depth -= 1
    outer = stack[depth - 1] if depth else None
    saved = state.graph_stack, state.graph, state.tapes, state.accumulators
    state.graph_stack, state.graph = stack[:depth], outer
    state.tapes, state.accumulators = [], []
    try:
        if outer is None:
            yield
        else:
            with outer.control_dependencies(None):
                yield
    finally:
        state.graph_stack, state.graph, state.tapes, state.accumulators = saved


@contextlib.contextmanager
def tracing(graph: FuncGraph) -> Iterator[FuncGraph]:
    """Builds into `graph` with the outer tapes and accumulators paused.

    The op that will run the traced graph is what outer tapes record; a tape
    opened inside the traced code records that graph's ops as usual.
    """
    state = _state
    tapes, accumulators = state.tapes, state.accumulators
    state.tapes, state.accumulators = [], []
    try:
        with graph.as_default():
            yield graph
    finally:
        state.tapes, state.accumulators = tapes, accumulators
