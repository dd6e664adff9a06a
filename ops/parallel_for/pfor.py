"""vectorized_map and the graph converter behind it (TensorFlow's pfor).

A function of one element is traced into a FuncGraph, then converted op by
op: an op none of whose inputs depends on the element runs once, unbatched;
an op with batched inputs (a new leading axis) goes through the batching
rule declared for its type (ops/parallel_for/pfor_rules.py), or, where none applies, runs
once per element in a loop whose results are stacked (with a warning naming
the op type). The converted ops run in the caller's mode: eagerly, or into
the graph being built (a Graph or a dg.function body).

Jacobians feed the converter a lazy one-hot seed (`OneHot`: row i is
scale[i] * e_i): products of a matrix with it are slices of the matrix, and
scalings keep it lazy, so a full Hessian costs few dense products.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...eager import context
from ...framework import nest
from ...framework.func_graph import FuncGraph, capture_value, tracing
from ...framework.graph import Graph, Operation
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import Tensor
from ..array.array_ops import broadcast_to, expand_dims, reshape, transpose
from ..constant_op import constant, convert_to_tensor
from ..array.indexed_slices_ops import gather
from ..array.join_ops import stack
from ..math.math_ops import multiply
from .pfor_rules import NoBatchingRule, rule_for, run_op, tile, unit_axis
from ..tensor_util import constant_value

__all__ = ["vectorized_map"]

_state = context.state
_log = logging.getLogger("duograd")


class OneHot:
    """A lazy batched value: element i is scale[i] * e_i reshaped to `event`.

    `scale` is None (all ones) or an unbatched 1-D tensor of length n.
    """

    __slots__ = ("n", "event", "dtype", "scale")

    def __init__(self, n: int, event: Sequence[int], dtype: Any, scale: Any = None) -> None:
        self.n = n
        self.event = tuple(int(d) for d in event)
        self.dtype = dtype
        self.scale = scale

    def materialize(self) -> Any:
        eye = constant(np.eye(self.n, dtype=self.dtype.as_numpy_dtype))
        if self.scale is not None:
            eye = multiply(eye, reshape(self.scale, [self.n, 1]))
        return reshape(eye, [self.n] + list(self.event))


def _as_column_scale(value: OneHot, t: Any) -> Any:
    """op(a)^T rows scaled by value.scale (shape [n, p])."""
    if value.scale is None:
        return t
    return multiply(t, reshape(value.scale, [value.n, 1]))


def _onehot_rule(op: Operation, inputs: list, batched: tuple) -> Optional[list]:
    """Rules that keep a OneHot lazy; None when this op needs it materialized."""
    kind = op.type
    hot = [isinstance(t, OneHot) for t in inputs]
    if kind in ("Identity", "StopGradient"):
        return [(inputs[0], True)]
    if kind == "Reshape" and not batched[1]:
        value = inputs[0]
        dims = _static_shape(inputs[1])
        if dims is None:
            return None
        if -1 in dims:
            known = int(np.prod([d for d in dims if d != -1]))
            if known <= 0:
                return None
            size = int(np.prod(value.event))
            dims = [size // known if d == -1 else d for d in dims]
        return [(OneHot(value.n, dims, value.dtype, value.scale), True)]
    if kind == "Mul" and sum(hot) == 1 and not any(b for b, h in zip(batched, hot, strict=True) if not h):
        value = inputs[hot.index(True)]
        other = inputs[1 - hot.index(True)]
        dims = other.shape.dims
        if dims is None or len(dims) > len(value.event) or None in dims:
            return None
        if any(d not in (1, e) for d, e in zip(reversed(dims), reversed(value.event), strict=False)):  # dims may be shorter
            return None
        if tuple(dims) != value.event:
            other = broadcast_to(other, list(value.event))
        factor = reshape(other, [-1])
        scale = factor if value.scale is None else multiply(value.scale, factor)
        return [(OneHot(value.n, value.event, value.dtype, scale), True)]
    if kind == "MatMul" and sum(hot) == 1 and not (batched[0] and batched[1]) and \
            all(t.shape.rank == 2 for t, h in zip(inputs, hot, strict=True) if not h):
        ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
        if hot[1]:
            value, a = inputs[1], inputs[0]
            if value.event == (value.n, 1) and not tb or value.event == (1, value.n) and tb:
                # op(a) @ (s_i e_i) = s_i * column i of op(a)
                rows = a if ta else transpose(a)
                return [(unit_axis(_as_column_scale(value, rows), 2), True)]
        else:
            value, b = inputs[0], inputs[1]
            if value.event == (1, value.n) and not ta or value.event == (value.n, 1) and ta:
                rows = transpose(b) if tb else b
                return [(unit_axis(_as_column_scale(value, rows), 1), True)]
    return None


def _static_shape(t: Any) -> Optional[List[int]]:
    value = constant_value(t)
    return None if value is None else [int(d) for d in np.reshape(value, [-1])]


class Converter:
    """Converts the ops of `graph` newer than `mark` that `outputs` need."""

    def __init__(self, graph: Graph, mark: int, n: Optional[int],
                 fallback: bool = True, rerun: bool = True,
                 build_in: Optional[Graph] = None) -> None:
        self.graph = graph
        self.mark = mark
        self.n = n
        self.fallback = fallback
        self.rerun = rerun  # False: unbatched ops of `graph` are reused as they are
        # A graph to build the converted program into (eager/jacobian_plans.py): an op
        # with an input from it is built there, one without runs now (eagerly), so
        # everything not derived from that graph's placeholders is folded to constants.
        self.build_in = build_in
        self.values: Dict[int, Tuple[Any, bool]] = {}
        self.warned: set = set()

    def bind(self, tensor: Any, value: Any, batched: bool = True) -> None:
        self.values[id(tensor)] = (value, batched)

    def _lookup(self, tensor: Any) -> Tuple[Any, bool]:
        hit = self.values.get(id(tensor))
        if hit is not None:
            return hit
        if self.rerun and isinstance(self.graph, FuncGraph):
            source = self.graph.capture_source(tensor)
            if source is not None:
                return capture_value(source), False
        return tensor, False

    def _internal(self, tensor: Any) -> bool:
        if id(tensor) in self.values or not hasattr(tensor, "op"):
            return False
        op = tensor.op
        if op.graph is not self.graph or op.id <= self.mark:
            return False
        return not (self.rerun and isinstance(self.graph, FuncGraph) and
                    self.graph.capture_source(tensor) is not None)

    def _ops_needed(self, outputs: Sequence[Any]) -> List[Operation]:
        seen: Dict[int, Operation] = {}
        stack_ = [t for t in outputs if self._internal(t)]
        while stack_:
            op = stack_.pop().op
            if op.id in seen:
                continue
            seen[op.id] = op
            stack_.extend(t for t in op.inputs if self._internal(t))
        return [seen[k] for k in sorted(seen)]

    def convert(self, outputs: Sequence[Any]) -> List[Tuple[Any, bool]]:
        """(value, batched) for each output tensor.

        Converted values are dropped after their last use, so that large
        batched intermediates are freed (and their memory reused) early.
        """
        ops = self._ops_needed(outputs)
        uses: Dict[int, int] = {}
        for op in ops:
            for t in op.inputs:
                uses[id(t)] = uses.get(id(t), 0) + 1
        for t in outputs:
            uses[id(t)] = uses.get(id(t), 0) + 1  # pinned: never reaches zero below
        values = self.values
        for op in ops:
            self._convert_op(op)
            for t in op.inputs:
                left = uses[id(t)] - 1
                uses[id(t)] = left
                if left == 0:
                    values.pop(id(t), None)
        return [self._lookup(t) for t in outputs]

    def _convert_op(self, op: Operation) -> None:
        pairs = [self._lookup(t) for t in op.inputs]
        inputs = [v for v, _ in pairs]
        batched = tuple(b for _, b in pairs)
        target = self.build_in
        if target is not None and any(_built_in(v, target) for v in inputs):
            with target.as_default():
                results = self._results(op, inputs, batched)
        else:
            results = self._results(op, inputs, batched)
        for t, pair in zip(op.outputs, results, strict=True):
            self.values[id(t)] = pair

    def _results(self, op: Operation, inputs: list, batched: tuple) -> list:
        if not any(batched):
            if op.type == "Placeholder" and self.rerun:
                raise ValueError(f"vectorized_map: placeholder {op.name} has no value")
            outs = run_op(op, inputs) if self.rerun else list(op.outputs)
            return [(t, False) for t in outs]
        return self._batched(op, inputs, batched)

    def _batched(self, op: Operation, inputs: list, batched: tuple) -> list:
        if any(isinstance(t, OneHot) for t in inputs):
            lazy = _onehot_rule(op, inputs, batched)
            if lazy is not None:
                return lazy
            inputs = [t.materialize() if isinstance(t, OneHot) else t for t in inputs]
        rule = rule_for(op.op_def)
        if rule is not None:
            try:
                return rule(op, inputs, batched, self.n)
            except NoBatchingRule:
                pass
        return self._loop(op, inputs, batched)

    def _loop(self, op: Operation, inputs: list, batched: tuple) -> list:
        """The fallback: the op once per element, results stacked."""
        if not self.fallback:
            raise ValueError(f"vectorized_map: no batching rule for op type {op.type} "
                             f"(op {op.name}) and fallback_to_while_loop=False")
        if op.type not in self.warned:
            self.warned.add(op.type)
            _log.warning("vectorized_map: using a loop for converting %s (no batching rule "
                         "applies to op %s)", op.type, op.name)
        if self.n is None:
            raise ValueError(f"vectorized_map: the loop fallback for op type {op.type} needs "
                             "a statically known batch size")
        per_output: List[list] = []
        for i in range(self.n):
            args = [gather(t, i) if b else t for t, b in zip(inputs, batched, strict=True)]
            outs = run_op(op, args)
            if not per_output:
                per_output = [[] for _ in outs]
            for k, out in enumerate(outs):
                per_output[k].append(out)
        return [(stack(parts), True) for parts in per_output]


def _built_in(value: Any, graph: Graph) -> bool:
    """Whether a converted value (or a OneHot's scale) is a tensor of `graph`."""
    if isinstance(value, OneHot):
        value = value.scale
    op = getattr(value, "op", None)
    return op is not None and op.graph is graph


def finish(value: Any, is_batched: bool, n: Optional[int]) -> Any:
    """A converted output as a plain batched tensor."""
    if isinstance(value, OneHot):
        return value.materialize()
    if is_batched:
        return value
    value = convert_to_tensor(value)
    dims = value.shape.dims
    if n is not None and dims is not None and None not in dims:
        return broadcast_to(expand_dims(value, 0), [n] + list(dims))
    return tile(value, n)


def trace(fn: Callable, specs: Sequence[Tuple[Any, Any]], name: str) -> Tuple[FuncGraph, list, Any]:
    """Traces fn(*placeholders) into a FuncGraph nested in the current context."""
    graph = FuncGraph(name, _state.graph)
    with tracing(graph):
        placeholders = [graph.add_input(dtype, shape, "elem") for dtype, shape in specs]
        result = fn(placeholders)
    return graph, placeholders, result


def densified(value: Any) -> Any:
    return convert_to_tensor(value) if isinstance(value, IndexedSlices) else value


def vectorized_map(fn: Callable, elems: Any, fallback_to_while_loop: bool = True) -> Any:
    """fn applied to each slice elems[i] (any nesting), results stacked, as one
    batched computation instead of a Python loop (TensorFlow's pfor).

    `fn` is traced once on one element; ops without a batching rule run in a
    loop over the elements (a logged warning names them) unless
    `fallback_to_while_loop=False`, which makes them a ValueError.
    """
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("vectorized_map needs at least one element tensor in elems")
    n = None
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError("vectorized_map: elems must have a leading axis to map over")
        dims = t.shape.dims
        if dims is not None and dims[0] is not None:
            n = dims[0] if n is None else n
            if dims[0] != n:
                raise ValueError(f"vectorized_map: elems have different leading sizes "
                                 f"({n} and {dims[0]})")
    specs = [(t.dtype, t.shape[1:] if t.shape.rank is not None else None) for t in flat]

    def body(placeholders: list) -> Any:
        return fn(nest.pack_sequence_as(elems, placeholders))

    graph, placeholders, result = trace(body, specs, "vectorized_map")
    flat_out = [densified(r) for r in nest.flatten(result)]
    converter = Converter(graph, 0, n, fallback_to_while_loop)
    for p, t in zip(placeholders, flat, strict=True):
        converter.bind(p, t)
    tensors = [i for i, r in enumerate(flat_out) if isinstance(r, Tensor)]
    pairs = converter.convert([flat_out[i] for i in tensors])
    out = list(flat_out)
    for i, (value, is_batched) in zip(tensors, pairs, strict=True):
        out[i] = finish(value, is_batched, n)
    return nest.pack_sequence_as(result, out)

