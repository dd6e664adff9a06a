"""GraphFunction: a traced FuncGraph with ordered inputs and outputs, and its call op.

A GraphFunction runs its graph through a compiled Session plan (the
placeholders are the feeds). It is what the call op, `If` and `While` hold
as attrs. Its backward function is built once per set of outputs that
receive gradients: a FuncGraph in which `gradients` differentiates the
outputs w.r.t. the inputs; every forward value the gradient ops read is
captured from the forward graph. Those captures ("extras") are inputs of
the forward function, its outputs, or internal tensors, which a variant of
the function (`extended`) returns as additional outputs, so the backward
pass never recomputes the forward one (TensorFlow's forward/backward pair).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ...eager import context
from ...eager.stack_room import with_stack_room
from ...eager.tape import watched_by_any
from ...framework.func_graph import (FuncGraph, attach_control_captures, capture_value, is_variable,
                                     tracing)
from ...framework.graph import Operation, SymbolicTensor
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_def import declare_op
from ...framework.registry import gradients_accepting_none
from ...framework.session import compile_plan, run_plan, run_plan_quietly
from ...framework.tensor import Tensor
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..gradients_util import gradients_helper, is_backpropagatable
from ..array.indexed_slices_ops import densify
from ..control_flow.tensor_array_ops import dense_gradient

_state = context.state


class AllIndices:
    """Contains every index: a gradient that takes None for any missing output."""

    def __contains__(self, index: object) -> bool:
        return True


ALL_INDICES = AllIndices()


def declare_function_ops(stateful_type: str, stateless_type: str, kernel: Any,
                         infer: Any) -> Tuple[Any, Any]:
    """The two op types TF gives an op that runs functions: one for bodies holding
    stateful ops, one for bodies that hold none. Both always execute when their
    function does (`stateful=True`); only the stateless one is `is_stateful=False`.
    Their gradients take None for any output that received no gradient."""
    ops = []
    for op_type, is_stateful in ((stateful_type, True), (stateless_type, False)):
        op = declare_op(op_type, kernel, infer, num_outputs=-1, stateful=True,
                        is_stateful=is_stateful, grad_inputs=None, grad_outputs=None)
        gradients_accepting_none[op.type] = ALL_INDICES
        ops.append(op)
    return ops[0], ops[1]


class Backward:
    """The backward function of a GraphFunction for one set of output gradients.

    `fn` takes the gradients of the outputs listed in `mask`, then the
    `extras` (forward values, in capture order); it returns the gradients of
    the forward inputs listed in `input_grads`.
    """

    __slots__ = ("fn", "mask", "input_grads", "extras")

    def __init__(self, fn: "GraphFunction", mask: Tuple[int, ...],
                 input_grads: Tuple[int, ...], extras: List[Any]) -> None:
        self.fn = fn
        self.mask = mask
        self.input_grads = input_grads
        self.extras = extras


class GraphFunction:
    """Runs `outputs` of a FuncGraph from values for its `inputs`."""

    def __init__(self, graph: FuncGraph, inputs: Sequence[SymbolicTensor],
                 outputs: Sequence[Any]) -> None:
        self.graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.output_specs = [(t.dtype, t.shape) for t in self.outputs]
        self._plan: Optional[Tuple[Any, int]] = None
        self._backward: Dict[Tuple[int, ...], Any] = {}
        self._extended: Dict[Tuple[Any, ...], GraphFunction] = {}
        self._input_index = {id(t): i for i, t in enumerate(self.inputs)}
        self.effect_ops, self.is_stateful = graph_effects(graph)
        self._output_index: Dict[int, int] = {}
        for k, t in enumerate(self.outputs):
            self._output_index.setdefault(id(t), k)

    @property
    def name(self) -> str:
        return self.graph.name

    def run(self, resources: Any, arrays: Sequence[Any]) -> tuple:
        """The output values for input values `arrays` (a kernel's job)."""
        plan, num_effects = self._compiled()
        values = run_plan(plan, tuple(arrays), resources)
        return values[:len(values) - num_effects] if num_effects else values

    def run_quietly(self, resources: Any, arrays: Sequence[Any]) -> tuple:
        """`run` for a caller already under np.errstate(all="ignore") (a loop kernel,
        a call inside a plan): the per-iteration path."""
        plan, num_effects = self._plan or self._compiled()
        values = run_plan_quietly(plan, tuple(arrays), resources)
        return values[:len(values) - num_effects] if num_effects else values

    def _compiled(self) -> Tuple[Any, int]:
        compiled = self._plan
        if compiled is None:
            # Ops with side effects run even when no output depends on them, in
            # program order (op ids), as TF's automatic control dependencies do.
            effects = self.effect_ops
            plan = compile_plan(self.graph, self.outputs + effects, self.inputs, self.name,
                                quiet=True)
            # One assignment publishes plan and effect count together: a thread
            # calling concurrently sees both or neither.
            compiled = self._plan = (plan, len(effects))
        return compiled

    def input_index(self, tensor: Any) -> Optional[int]:
        return self._input_index.get(id(tensor))

    def output_index(self, tensor: Any) -> Optional[int]:
        return self._output_index.get(id(tensor))

    def extended(self, extra: Sequence[SymbolicTensor]) -> "GraphFunction":
        """The same function also returning the graph tensors `extra`."""
        key = tuple(id(t) for t in extra)
        if not key:
            return self
        fn = self._extended.get(key)
        if fn is None:
            fn = self._extended[key] = GraphFunction(self.graph, self.inputs,
                                                     self.outputs + list(extra))
        return fn

    def subset(self, keep: Sequence[int]) -> "GraphFunction":
        """The same function returning only its outputs at positions `keep` (cached):
        its plan runs only the ops those outputs need."""
        key = ("subset",) + tuple(keep)
        fn = self._extended.get(key)
        if fn is None:
            fn = self._extended[key] = GraphFunction(self.graph, self.inputs,
                                                     [self.outputs[k] for k in keep])
        return fn

    def used_inputs(self) -> Tuple[int, ...]:
        """Positions of the inputs that the outputs or the side effects read (a pruned
        backward function, `subset`, may leave forward values unread)."""
        seen: set = set()
        used: set = set()
        stack: List[Operation] = list(self.effect_ops)
        for t in self.outputs:
            if isinstance(t, SymbolicTensor):
                if self.input_index(t) is not None:
                    used.add(self.input_index(t))
                stack.append(t.op)
        while stack:
            op = stack.pop()
            if id(op) in seen:
                continue
            seen.add(id(op))
            for t in op.inputs:
                j = self.input_index(t)
                if j is not None:
                    used.add(j)
                elif id(t.op) not in seen:
                    stack.append(t.op)
            stack.extend(c for c in op.control_inputs if id(c) not in seen)
        return tuple(sorted(used))

    def with_inputs(self, keep: Sequence[int]) -> "GraphFunction":
        """The same outputs from the inputs at positions `keep` alone (cached); every
        input the outputs read must be kept (used_inputs)."""
        key = ("inputs",) + tuple(keep)
        fn = self._extended.get(key)
        if fn is None:
            fn = self._extended[key] = GraphFunction(self.graph, [self.inputs[k] for k in keep],
                                                     self.outputs)
        return fn

    # -- gradients --------------------------------------------------------
    def backward(self, mask: Tuple[int, ...]) -> Backward:
        """The backward function for gradients of the outputs in `mask` (cached).

        A LookupError (an op without gradient) is cached and raised again.
        """
        back = self._backward.get(mask)
        if back is None:
            try:  # a body holding calls builds their backward functions too: any depth
                back = with_stack_room(build_backward, self, mask)
            except LookupError as error:
                back = error
            self._backward[mask] = back
        if isinstance(back, LookupError):
            raise back
        return back

    def differentiable_outputs(self) -> Tuple[int, ...]:
        return tuple(i for i, t in enumerate(self.outputs) if trainable(t))

    def missing_extras(self, back: Backward) -> List[SymbolicTensor]:
        """Internal forward tensors `back` reads that are not inputs or outputs."""
        missing = []
        for value in back.extras:
            if isinstance(value, SymbolicTensor) and value.op.graph is self.graph \
                    and self.input_index(value) is None and self.output_index(value) is None \
                    and not is_constant(value) and self.late_capture(value) is None:
                missing.append(value)
        return missing

    def late_capture(self, value: Any) -> Optional[Any]:
        """The outer value behind a capture the graph made after this function was
        built (a gradient function reading an outer tensor the forward did not), as
        a value where the op running this function is; else None."""
        if self.input_index(value) is not None or not isinstance(value, SymbolicTensor) \
                or value.op.graph is not self.graph or value.op.type != "Placeholder":
            return None
        source = self.graph.capture_source(value)
        return None if source is None else capture_value(source)

    def with_gradient_outputs(self, depth: int = 1) -> "GraphFunction":
        """This function extended by what its backward reads, to order `depth`.

        Used when tapes watch the call: the backward then runs from the
        recorded outputs. Order 2 also covers the backward of the extended
        function (gradients reaching the extra outputs), and so on. Unchanged
        when the function has no gradient.
        """
        fn = self
        for _ in range(max(depth, 1)):
            try:
                back = fn.backward(fn.differentiable_outputs())
            except LookupError:
                return fn
            missing = fn.missing_extras(back)
            if not missing:
                break
            fn = fn.extended(missing)
        return fn

    def __repr__(self) -> str:
        return f"<GraphFunction '{self.name}' {len(self.inputs)} in, {len(self.outputs)} out>"


def function_attrs(op: Operation) -> List["GraphFunction"]:
    """The functions a functional op (call, If, While) runs."""
    found = []
    for value in op.attrs.values():
        if isinstance(value, GraphFunction):
            found.append(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], GraphFunction):
            found.extend(value)
    return found


def graph_effects(graph: FuncGraph) -> Tuple[List[Operation], bool]:
    """The ops of `graph` that must run although nothing may read them (side
    effects: assignments, prints, py functions, and functional ops whose bodies
    have some), and whether any op is stateful (TensorFlow's is_stateful).

    Not recursive: the functions of a functional op were built before the op."""
    effects, stateful = [], False
    for op in graph.get_operations():
        op_def = op.op_def
        inner = function_attrs(op) if op.attrs else ()
        if inner:
            must_run = any(fn.effect_ops for fn in inner)
        else:
            must_run = op_def.side_effects or (op_def.stateful and not op.outputs)
        if must_run:
            effects.append(op)
        stateful = stateful or op_def.is_stateful
    return effects, stateful


def is_constant(value: Any) -> bool:
    """A Const of a function graph: its backward gets a copy, not an extra output."""
    return isinstance(value, SymbolicTensor) and value.op.type == "Const"


def copy_constant(value: SymbolicTensor) -> Any:
    return convert_to_tensor(value.op.get_attr("value"))


def trainable(tensor: Any) -> bool:
    """Whether gradients flow through `tensor` (floats, complexes, resources)."""
    return is_backpropagatable(tensor)


def build_backward(fn: GraphFunction, mask: Tuple[int, ...]) -> Backward:
    """Traces d(outputs in mask)/d(inputs) into a FuncGraph enclosed by fn's graph."""
    graph = FuncGraph(fn.graph.name + "_grad", outer_graph=fn.graph)
    with tracing(graph):
        grad_ys = []
        for i in mask:
            out = fn.outputs[i]
            grad_ys.append(graph.add_input(out.dtype, out.shape, "grad"))
        xs_index = [j for j, t in enumerate(fn.inputs) if trainable(t)]
        ys = [fn.outputs[i] for i in mask]
        grads = gradients_helper(ys, [fn.inputs[j] for j in xs_index], grad_ys) if ys else \
            [None] * len(xs_index)
        outputs, input_grads = [], []
        for j, grad in zip(xs_index, grads, strict=True):
            if grad is None:
                continue
            grad = dense_gradient(grad)
            outputs.append(grad)
            input_grads.append(j)
    graph.outputs = outputs
    extras = [source for source, _ in graph.captures]
    back_fn = GraphFunction(graph, graph.inputs, outputs)
    return Backward(back_fn, tuple(mask), tuple(input_grads), extras)


# -- the call op ------------------------------------------------------------
def _call_kernel(resources: Any, *arrays: Any, f: GraphFunction) -> tuple:
    return with_stack_room(f.run, resources, arrays)  # calls nest calls: any depth



def _call_infer(inputs: Sequence[Any], attrs: dict) -> list:
    f = attrs["f"]
    if len(inputs) != len(f.inputs):
        raise ValueError(f"function '{f.name}' takes {len(f.inputs)} inputs, got {len(inputs)}")
    for t, ph in zip(inputs, f.inputs, strict=True):
        if t.dtype != ph.dtype:
            raise TypeError(f"function '{f.name}' input {ph.op.name} expects "
                            f"{ph.dtype.name}, got {t.dtype.name}")
    return f.output_specs


STATEFUL_CALL, CALL = declare_function_ops("StatefulPartitionedCall", "PartitionedCall",
                                           _call_kernel, _call_infer)


def needs_gradient(inputs: Sequence[Any]) -> int:
    """How many recording tapes (and accumulators) watch any of `inputs`: the
    order of differentiation the recorded op may need."""
    state = _state
    if not state.tapes:
        return len(state.accumulators)
    ids = [i for i in (getattr(t, "tensor_id", None) for t in inputs) if i is not None]
    return len(state.accumulators) + sum(1 for tape in state.tapes if watched_by_any([tape], ids))


def call_function(fn: GraphFunction, inputs: Sequence[Any], name: Optional[str] = None) -> list:
    """Runs `fn` as one call op (eager or graph); returns its outputs as a list.

    When a tape watches the inputs, the call runs the variant of `fn` that
    also returns what its backward reads (the extra outputs are dropped here).
    """
    n = len(fn.outputs)
    depth = needs_gradient(inputs)
    if depth:
        fn = fn.with_gradient_outputs(depth)
    op_def = STATEFUL_CALL if fn.is_stateful else CALL
    outputs = apply_op(op_def, list(inputs), {"f": fn}, name or op_def.type)
    if outputs and _state.graph is not None:
        attach_control_captures(outputs[0].op, [fn.graph])
    return list(outputs[:n])


def extend_op(op: Any, new_attrs: dict, specs: Sequence[Tuple[Any, Any]]) -> list:
    """Adds outputs to a graph op whose function now returns more (TF's delayed
    rewrite); returns the new output tensors. Tape entries cannot grow."""
    if not isinstance(op, Operation):
        raise RuntimeError(f"Cannot differentiate through op {op.type}: its recorded outputs "
                           "lack the forward values its gradient needs.")
    start = len(op.outputs)
    new = tuple(SymbolicTensor(op, start + k, dtype, shape)
                for k, (dtype, shape) in enumerate(specs))
    op.attrs = dict(op.attrs, **new_attrs)
    op.outputs = op.outputs + new
    op.graph.version += 1
    return list(new)


# -- tracing helpers shared by function, cond and while_loop ------------------
def graph_output(graph: FuncGraph, leaf: Any) -> Optional[Any]:
    """An output leaf as a tensor of `graph` (outer tensors are captured)."""
    if leaf is None or isinstance(leaf, Operation):
        return None
    if isinstance(leaf, IndexedSlices):
        leaf = densify(leaf)
    if isinstance(leaf, SymbolicTensor):
        return leaf if leaf.op.graph is graph else graph.capture(leaf)
    if isinstance(leaf, Tensor):
        return graph.capture(leaf)
    return convert_to_tensor(leaf)


def note_variable_reads(sources: Sequence[Any]) -> None:
    """Tapes recording around a cond/while see the variables its bodies read (the
    bodies were traced with tapes paused), as a read in place would show them."""
    tapes = _state.tapes
    if tapes:
        for source in sources:
            if is_variable(source):
                for tape in tapes:
                    tape.variable_accessed(source)


def union_captures(graphs: Sequence[FuncGraph]) -> Tuple[List[Any], List[Tuple[int, ...]]]:
    """The outer values captured by any of `graphs` (once each) and, per graph,
    the position in that list of each of its captures (in capture order)."""
    sources: List[Any] = []
    where: Dict[int, int] = {}
    per_graph = []
    for graph in graphs:
        idx = []
        for source, _ in graph.captures:
            k = where.get(id(source))
            if k is None:
                k = where[id(source)] = len(sources)
                sources.append(source)
            idx.append(k)
        per_graph.append(tuple(idx))
    return sources, per_graph
