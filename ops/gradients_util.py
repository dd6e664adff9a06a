"""Graph-mode backprop (TensorFlow's `_GradientsHelper`).

Mark the ops reachable from the xs, keep those between ys and xs, count for
each op how many of those consume its outputs (pending counts), seed the ys
with `grad_ys`, and walk a queue of ops whose pending count reached zero:
aggregate each output's gradients, call the registered gradient function
under `<op>_grad`, check what it returned, and pass gradients to the inputs.
Every traversal is iterative and costs O(ops + edges).
"""
from __future__ import annotations

import collections
from typing import Any, Dict, List, Optional, Sequence, Set

from ..eager import context
from ..framework import dtypes
from ..framework.gc_pause import paused_gc
from ..framework.graph import Operation, SymbolicTensor, skipping_inputs
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..grad_registry.aggregation import aggregate, check_aggregation_method
from ..grad_registry.registry import accepts_none, get_gradient_function
from ..grad_registry.unconnected import UnconnectedGradients, as_unconnected_gradients
from .array import array_ops
from .control_flow import control_flow_ops
from .constant_op import convert_to_tensor

_state = context.state


_BACKPROP_DTYPES = frozenset([dtypes.resource, dtypes.variant])


def is_backpropagatable(tensor: Any) -> bool:
    """Float, complex and resource tensors carry gradients; integers never do."""
    dtype = tensor.dtype
    kind = dtype.kind
    return kind == "f" or kind == "c" or dtype in _BACKPROP_DTYPES


def as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def as_gradient_source(x: Any) -> Any:
    """Variables are differentiated through their handle, as in TF."""
    if not isinstance(x, Tensor):
        handle = getattr(x, "handle", None)
        if handle is not None:
            return handle
    return x


def _maybe_captured(t: Any) -> Any:
    """The outer tensor a function graph's capture placeholder stands for, else t."""
    while t.op.type == "Placeholder" and t.op.graph.building_function:
        source = t.op.graph.capture_source(t)
        if not isinstance(source, SymbolicTensor):
            return t
        t = source
    return t


class _Crossing:
    """Op inputs and tensor consumers across the captures of the function graphs
    enclosing the graph being differentiated in (TF's _Inputs / _Consumers)."""

    def __init__(self, func_graphs: List[Any], xs_ids: Set[int]) -> None:
        self.func_graphs = func_graphs
        self.xs_ids = xs_ids  # id() of each x: function-graph tensors are unhashable

    def inputs(self, op: Operation) -> tuple:
        if not self.func_graphs or not op.graph.building_function:
            return op.inputs
        return tuple(t if id(t) in self.xs_ids else _maybe_captured(t) for t in op.inputs)

    def consumers(self, t: Any) -> list:
        consumers = t.consumers()
        stack = [t]
        while stack:
            tensor = stack.pop()
            for func in self.func_graphs:
                placeholder = func.captured(tensor)
                if placeholder is not None and placeholder is not tensor:
                    consumers.extend(placeholder.consumers())
                    stack.append(placeholder)
        return consumers


_NO_CROSSING = _Crossing([], set())


def _mark_reached_ops(from_ops: Sequence[Operation],
                      crossing: "_Crossing" = _NO_CROSSING) -> Set[Operation]:
    reached: Set[Operation] = set()
    queue = collections.deque(from_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            continue
        reached.add(op)
        for output in op.outputs:
            if is_backpropagatable(output):
                queue.extend(crossing.consumers(output))
    return reached


def _pending_count(to_ops: Sequence[Operation], from_ops: Sequence[Operation],
                   crossing: "_Crossing" = _NO_CROSSING):
    """The ops between to_ops and from_ops, and how many of them consume each op."""
    reached = _mark_reached_ops(from_ops, crossing)
    between: Set[Operation] = set()
    between_list: List[Operation] = []
    queue = collections.deque(to_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            between.add(op)
            between_list.append(op)
            reached.discard(op)  # visit once
            queue.extend(t.op for t in crossing.inputs(op))
    pending: Dict[Operation, int] = collections.defaultdict(int)
    for op in between_list:
        for t in crossing.inputs(op):
            if t.op in between:
                pending[t.op] += 1
    return between, pending


def default_grad_ys(grad_ys: Optional[Sequence[Any]], ys: Sequence[Any]) -> list:
    """`grad_ys` checked against `ys`, with ones for each one not given."""
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    else:
        grad_ys = as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    out = []
    for i, (y, grad_y) in enumerate(zip(ys, grad_ys, strict=True)):
        if grad_y is None:
            if y.dtype.is_complex:
                raise TypeError(f"Gradients of complex tensors ({y!r}) must set grad_ys "
                                f"(y.dtype = {y.dtype.name})")
            if not y.dtype.is_numeric:
                raise TypeError(f"Tensor {y} with type {y.dtype.name} must be numeric to "
                                "obtain a default gradient")
            out.append(array_ops.ones_like(y, name=f"grad_ys_{i}"))
            continue
        grad_y = convert_to_tensor(grad_y, dtype_hint=y.dtype) \
            if not isinstance(grad_y, (Tensor, IndexedSlices)) else grad_y
        if y.dtype.is_floating or y.dtype.is_integer:
            if not (grad_y.dtype.is_floating or grad_y.dtype.is_integer):
                raise TypeError(f"Gradient type {grad_y.dtype.name} generated for real or "
                                f"integer-valued tensor {y} with type {y.dtype.name} must be "
                                "real or integer")
        elif y.dtype.is_complex:
            if not grad_y.dtype.is_complex:
                raise TypeError(f"Gradient type {grad_y.dtype.name} generated for "
                                f"complex-valued tensor {y} with type {y.dtype.name} must be "
                                "complex")
        elif y.dtype not in (dtypes.resource, dtypes.variant):
            raise TypeError(f"Tensor {y} with type {y.dtype.name} must be numeric to obtain "
                            "a default gradient")
        out.append(grad_y)
    return out


def _stop_ops(from_ops, stop_gradient_ops, pending, crossing=_NO_CROSSING) -> Set[Operation]:
    """xs ops none of whose inputs lead back to another x, plus `stop_gradients`' ops."""
    stops = set()
    for op in from_ops:
        if all(pending.get(t.op, 0) <= 0 for t in crossing.inputs(op)):
            stops.add(op)
    stops.update(stop_gradient_ops)
    return stops


def _set_grad(grads: Dict[Operation, list], t: Any, grad: Any) -> None:
    op_grads = grads.get(t.op)
    if op_grads is None:
        op_grads = grads[t.op] = [[] for _ in t.op.outputs]
    op_grads[t.value_index].append(grad)


def _aggregated_grads(grads, op, method) -> list:
    """The gradients of op's outputs, each summed; stored back in place."""
    op_grads = grads.get(op)
    if op_grads is None:
        op_grads = grads[op] = [[] for _ in op.outputs]
    for i, parts in enumerate(op_grads):
        if type(parts) is not list:
            continue
        if len(parts) == 1:
            op_grads[i] = parts[0]
            continue
        parts = [g for g in parts if g is not None]
        if not parts:
            op_grads[i] = None
        elif len(parts) == 1:
            op_grads[i] = parts[0]
        else:
            with op.graph.name_scope(op.name + "_gradient_sum"):
                op_grads[i] = aggregate(parts, method)
    return op_grads


def _verify_generated(in_grads: list, op: Operation) -> None:
    if len(in_grads) != len(op.inputs):
        raise ValueError(f"Num gradients {len(in_grads)} generated for op {op.node_def} do not "
                         f"match num inputs {len(op.inputs)}")


def gradients_helper(ys: Any, xs: Any, grad_ys: Any = None, name: Optional[str] = "gradients",
                     gate_gradients: bool = False, aggregation_method: Optional[int] = None,
                     stop_gradients: Any = None,
                     unconnected_gradients: Any = UnconnectedGradients.NONE) -> list:
    """The body of `dg.gradients` (graph mode only)."""
    with paused_gc():
        return _gradients(ys, xs, grad_ys, name, gate_gradients, aggregation_method,
                          stop_gradients, unconnected_gradients)


def _gradients(ys, xs, grad_ys, name, gate_gradients, aggregation_method, stop_gradients,
               unconnected_gradients) -> list:
    graph = _state.graph
    if graph is None:
        raise RuntimeError("dg.gradients is not supported when eager execution is enabled. "
                           "Use dg.GradientTape instead.")
    unconnected = as_unconnected_gradients(unconnected_gradients)
    method = check_aggregation_method(aggregation_method)
    ys = [convert_to_tensor(y) if not isinstance(y, Tensor) else y for y in as_list(ys)]
    xs = [as_gradient_source(x) for x in as_list(xs)]
    xs = [x if isinstance(x, Tensor) or x is None else convert_to_tensor(x) for x in xs]
    if graph.building_function:  # outer values are differentiated through their captures
        xs = [graph.capture(x) if isinstance(x, Tensor) and not isinstance(x, SymbolicTensor)
              else x for x in xs]
    reachable = set()
    enclosing_graph = graph
    while enclosing_graph is not None:  # this graph and the graphs a function body sees
        reachable.add(enclosing_graph)
        enclosing_graph = getattr(enclosing_graph, "outer_graph", None)
    for x in xs:
        if not isinstance(x, SymbolicTensor):
            raise TypeError(f"dg.gradients xs must be graph tensors or variables, got {x!r}")
        if x.graph not in reachable:
            raise ValueError(f"dg.gradients: {x!r} must be from the same graph as the ys.")
    stop_tensors = [as_gradient_source(t) for t in
                    (as_list(stop_gradients) if stop_gradients is not None else [])]
    with graph.name_scope(name or "gradients"):
        grad_ys = default_grad_ys(grad_ys, ys)
        to_ops = [y.op for y in ys]
        from_ops = [x.op for x in xs]
        func_graphs = []
        enclosing = graph
        while enclosing is not None and enclosing.building_function:
            func_graphs.append(enclosing)
            enclosing = enclosing.outer_graph
        crossing = _Crossing(func_graphs, {id(x) for x in xs}) if func_graphs else _NO_CROSSING
        between, pending = _pending_count(to_ops, from_ops, crossing)
        grads: Dict[Operation, list] = {}
        for y, grad_y in zip(ys, grad_ys, strict=True):
            _set_grad(grads, y, grad_y)
        queue: collections.deque = collections.deque()
        queued: Set[Operation] = set()
        for op in to_ops:
            if pending.get(op, 0) == 0 and op not in queued and op in between:
                queued.add(op)
                queue.append(op)
        stops = _stop_ops(from_ops, [t.op for t in stop_tensors], pending, crossing)
        while queue:
            op = queue.popleft()
            out_grads = _aggregated_grads(grads, op, method)
            has_grads = len(out_grads) == 1 and out_grads[0] is not None or \
                any(g is not None for g in out_grads)
            grad_fn = None
            if has_grads and op not in stops:
                grad_fn = get_gradient_function(op)
            if grad_fn is not None:
                inputs = crossing.inputs(op)
                skip = frozenset([i for i, t in enumerate(inputs) if t.op not in between])
                in_grads = _call_gradient(graph, op, grad_fn, out_grads, gate_gradients, skip)
                for i, (t_in, in_grad) in enumerate(zip(inputs, in_grads, strict=True)):
                    if in_grad is None:
                        continue
                    if isinstance(in_grad, SymbolicTensor) and t_in.dtype is not dtypes.resource \
                            and in_grad.shape.dims != t_in.shape.dims:
                        try:
                            in_grad.set_shape(t_in.shape)
                        except ValueError:
                            raise ValueError(
                                "Incompatible shapes between op input and calculated input "
                                f"gradient. Forward operation: {op.name}. Input index: {i}. "
                                f"Original input shape: {t_in.shape}. Calculated input "
                                f"gradient shape: {in_grad.shape}") from None
                    _set_grad(grads, t_in, in_grad)
            for t in crossing.inputs(op):
                producer = t.op
                count = pending.get(producer)
                if count is None:
                    continue
                pending[producer] = count - 1
                if count == 1 and producer in between and producer not in queued:
                    queued.add(producer)
                    queue.append(producer)
        return [_final_grad(grads, x, unconnected) for x in xs]


def _call_gradient(graph, op: Operation, grad_fn, out_grads: list, gate_gradients: bool,
                   skip: frozenset = frozenset()) -> list:
    """Fills missing output gradients with zeros, calls `grad_fn`, checks its result.

    `skip`: inputs not between the ys and xs; the gradient function sees them as
    `op.skip_input_indices` and need not build their gradients (as on tapes)."""
    if any(g is None for g in out_grads):
        none_ok = accepts_none(op)
        for i, g in enumerate(out_grads):
            if g is None and i not in none_ok and is_backpropagatable(op.outputs[i]) \
                    and op.outputs[i].dtype is not dtypes.resource:
                out_grads[i] = array_ops.zeros_like(op.outputs[i])
    with graph.name_scope(op.name + "_grad"):
        with skipping_inputs(op, skip):
            in_grads = grad_fn(op, *out_grads)
        in_grads = list(in_grads) if type(in_grads) in (list, tuple) else [in_grads]
        _verify_generated(in_grads, op)
        if gate_gradients and sum(g is not None for g in in_grads) > 1:
            in_grads = control_flow_ops.tuple(in_grads)
    for i, t_in in enumerate(op.inputs):
        if in_grads[i] is not None and not is_backpropagatable(t_in):
            in_grads[i] = None
    return in_grads


def _final_grad(grads, x, unconnected: UnconnectedGradients):
    op_grads = grads.get(x.op)
    grad = None
    if op_grads is not None:
        grad = op_grads[x.value_index]
        if isinstance(grad, list):  # x's op was never processed: sum what arrived
            parts = [g for g in grad if g is not None]
            grad = aggregate(parts) if parts else None
    if grad is None and unconnected is UnconnectedGradients.ZERO:
        if x.dtype is dtypes.resource:  # a variable's handle: zeros like its value
            op = x.op
            shape = op.get_attr("shape")
            if shape.is_fully_defined():
                return array_ops.zeros(shape, op.get_attr("dtype"))
            return array_ops.zeros_like(op.get_attr("variable").value())
        return array_ops.zeros_like(x)
    return grad
