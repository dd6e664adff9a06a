"""Compiled vectorised backward passes, reused per tape structure (issue 13, W3).

An eager `jacobian`, `batch_jacobian` or `hessian` traces the backward pass
as a function of its seed and converts it with pfor (eager/jacobians.py):
some 25 graph ops built, converted and run per call, about 1 ms of Python
for a small Hessian. A program that repeats such a call (a training or
Newton loop) records the same tape structure every time; only the recorded
values differ. So the converted program is kept, per structure, as a
compiled Session plan (framework/session.py `compile_plan`) whose inputs are
the recorded floating-point values, and a repeated call only feeds them anew.
`GradientTape.hessian` keys the forward tape alone and compiles both backward
passes into one plan (`compile_hessian`), so a repeated Hessian runs no eager
backward op at all.

Why a hit cannot return stale numbers (what the key holds, `tape_structure`):
- what the trace reads of the tape: for every record of the tape, in
  recorded order, its op type, gradient name, attrs (by value),
  the connectivity (tensor ids renumbered by first appearance, so the key
  says which inputs are the same tensor), the skipped inputs, and for each
  input and output slot whether it was kept and its shape and dtype;
- which tensors are the target and the sources, the target's shape and dtype,
  and the seed (one-hot rows, or the batch_jacobian columns) with its size;
- the values of kept integer and boolean tensors (shapes, axes, indices,
  permutations: gradient functions and batching rules may decide on them);
  they are baked into the plan as constants. A larger one (over
  `MAX_KEYED_ELEMENTS`) makes the call uncacheable.
- Floating-point values are never part of the trace: the trace graph hides
  them from `constant_value` (`ValueBlindGraph`), so no gradient function or
  batching rule can branch on them, and each one becomes a fed placeholder.
  A captured value that is not one of the recorded tensors (a closure's)
  makes the structure uncacheable, and so does a custom gradient (its
  function is an attr that is not a plain value), a trace that reads a
  variable's handle (a recorded read is keyed as "a resource"), an op whose
  gradient function is not pure (the reuse rule, grad_registry/registry.py:
  a user's function may read anything and runs every time), a stateful op in the traced or converted
  program (random numbers must not be frozen), or a gradient that does not
  come from the seed. Gradient functions read no thread state.

What runs: the first call of a structure takes the ordinary path (a one-off
call pays nothing extra); the second compiles the plan (trace, convert into
a plain Graph where every op not derived from a fed value is folded to a
constant, compile) and runs it; later ones only build the key and run the
plan. Only in eager mode with no tape or accumulator recording (they would
have recorded the converted ops). If compiling or running the plan fails,
the call takes the ordinary path, which raises the error at the op that
caused it with TF's type.

Lifetime and bounds: one `JacobianPlanCache` per thread, kept by this module
(`plans.cache`, an owned thread state: eager/context.py), created on first use
and freed with the thread; at most `max_entries` structures and `max_bytes` of plan
constants, least recently used evicted first (eager/gradient_replay.py's
replayed gradients share it). Plans keep no recorded tensor alive: `detached`
drops a plan's references to its graph, whose captures name the values of the
compiling call.
"""
from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..framework.func_graph import FuncGraph, tracing
from ..framework.graph import Graph
from ..framework.session import compile_plan, run_plan
from ..grad_registry.registry import is_pure
from ..ops.array import array_ops
from ..ops.parallel_for.pfor import Converter, OneHot, densified, finish
from ..ops.state.variables import EagerHandle
from . import context
from .attr_key import MAX_KEYED_ELEMENTS, Unkeyable, attrs_key
from .eager_tensor import EagerTensor
from .imperative_grad import imperative_grad
from .tape import Tape

_state = context.state
_log = logging.getLogger("duograd")

_FLOAT_KINDS = ("f", "c")
_KEYED_KINDS = ("b", "i", "u")
_SEEN_ONCE = "seen once"        # cache markers (entries that hold no plan)
_UNCACHEABLE = "uncacheable"


class Uncacheable(Exception):
    """This tape structure cannot be reused safely (the reason is the message)."""


def plans_allowed(target: Any) -> bool:
    """Eager, nothing recording the converted ops: a plan may stand in for them."""
    state = _state
    return (state.graph is None and not state.tapes and not state.accumulators
            and type(target) is EagerTensor)


class _PlanState(context.OwnedThreadState):
    """This thread's JacobianPlanCache, made on the first eager jacobian/hessian."""

    def __init__(self) -> None:
        self.cache: Optional["JacobianPlanCache"] = None


plans = context.owned_state(_PlanState)


def plan_cache() -> "JacobianPlanCache":
    """This thread's cache (made on first use; it lives as long as the thread)."""
    cache = plans.cache
    if cache is None:
        cache = plans.cache = JacobianPlanCache()
    return cache


# -- the key ---------------------------------------------------------------------
def _keyed_value(array: Any) -> tuple:
    """A kept non-float tensor's key: small integer/boolean ones by value."""
    kind = getattr(array.dtype, "kind", "")
    if kind in _KEYED_KINDS and array.size <= MAX_KEYED_ELEMENTS:
        return (array.shape, array.dtype, array.tobytes())
    raise Uncacheable(f"a recorded {getattr(array.dtype, 'name', array.dtype)} value")


def tape_structure(producers: dict, target: EagerTensor, source_ids: Sequence[int],
                   seed_key: tuple) -> Tuple[tuple, Dict[int, int], Dict[int, Any]]:
    """(key, canonical number of each tensor id, kept tensor of each number) of all
    the tape's records, in the order recorded; raises Uncacheable (module docstring).

    Every record is keyed (not only those the target depends on): a stricter key,
    and no search. A slot is its tensor's canonical number (ids renumbered by first
    appearance) and then a lazy spec (shape, dtype) as it is, a kept float tensor's
    (shape, dtype, True), or a kept integer tensor's (shape, dtype, bytes).
    """
    target_id = target.tensor_id
    canon: Dict[int, int] = {target_id: 0}
    for sid in source_ids:
        if sid not in canon:
            canon[sid] = len(canon)
    array = target.array
    parts: List[Any] = [seed_key, array.shape, array.dtype,
                        tuple([canon[sid] for sid in source_ids])]
    values: Dict[int, Any] = {0: target}   # a trace may capture the target itself
    shared: set = set()   # multi-output records appear once per differentiable output
    for record in producers.values():
        input_ids, output_ids = record.input_ids, record.output_ids
        if len(output_ids) > 1:
            if id(record) in shared:
                continue
            shared.add(id(record))
        try:
            keyed_attrs = attrs_key(record.attrs)
        except Unkeyable as error:
            raise Uncacheable(str(error)) from None
        sig: List[Any] = [record.op_def.type, record.gradient_name, record.skip,
                          len(input_ids), keyed_attrs]
        _slots(sig, input_ids, record.inputs, canon, values)
        _slots(sig, output_ids, record.outputs, canon, values)
        parts.append(tuple(sig))
    return tuple(parts), canon, values


def _slots(sig: List[Any], ids: tuple, tensors: tuple, canon: Dict[int, int],
           values: Dict[int, Any]) -> None:
    """Appends each slot's canonical number and what it holds (see tape_structure)."""
    add = sig.append
    get = canon.get
    for tid, tensor in zip(ids, tensors, strict=True):   # one kept tensor or lazy spec per id
        cid = get(tid)
        if cid is None:
            cid = canon[tid] = len(canon)
        add(cid)
        kind = type(tensor)
        if kind is tuple:
            add(tensor)
        elif kind is EagerTensor:
            values[cid] = tensor
            value = tensor.array
            dtype = value.dtype
            if dtype.kind in _FLOAT_KINDS:
                add((value.shape, dtype, True))
            else:
                add(_keyed_value(value))
        elif kind is EagerHandle:
            # a variable's handle: never fed (a trace that reads it is uncacheable:
            add("resource")   # it is not among the kept values)
        else:
            raise Uncacheable("a recorded graph tensor")


# -- compiling ---------------------------------------------------------------------
class ValueBlindGraph(FuncGraph):
    """The trace graph: a captured floating-point value looks like an argument to
    `constant_value`, so the traced program cannot depend on it (it is fed)."""

    def capture_source(self, placeholder: Any) -> Optional[Any]:
        source = super().capture_source(placeholder)
        if type(source) is EagerTensor and \
                getattr(source.array.dtype, "kind", "") in _FLOAT_KINDS:
            return None
        return source


class CompiledJacobian:
    """One structure's converted backward pass as a Session plan over its fed values."""

    __slots__ = ("plan", "feed_ids", "connected", "nbytes")

    def __init__(self, plan: Any, feed_ids: tuple, connected: tuple, nbytes: int) -> None:
        self.plan = plan
        self.feed_ids = feed_ids      # canonical tensor number fed to each placeholder
        self.connected = connected    # per source: False where the gradient is None
        self.nbytes = nbytes          # bytes of the plan's constants

    def run(self, values: Dict[int, Any]) -> Optional[List[Optional[EagerTensor]]]:
        """The stacked gradients for this call's recorded values; None if a kernel
        failed (the caller then takes the ordinary path, which raises at the op)."""
        feeds = tuple([values[cid].array for cid in self.feed_ids])
        try:
            outs = run_plan(self.plan, feeds, None)
        except Exception:  # noqa: BLE001 - re-raised by the ordinary path at its op
            return None
        it = iter(outs)
        return [EagerTensor(np.asarray(next(it))) if c else None for c in self.connected]


def detached(plan: Any) -> Any:
    """`plan` without its references to the graph it was compiled from (only used to
    name a failing op; a failing plan here is never reported, the ordinary path
    reruns), so that graph and the recorded values its captures hold are freed."""
    plan.line_ops = {}
    plan.feed_tensors = []
    plan.steps = None
    return plan


def own_gradients(producers: dict, canon: Dict[int, int]) -> None:
    """Every gradient function the trace may call is pure (the reuse rule)."""
    for tid in canon:
        record = producers.get(tid)
        if record is None:
            continue
        name = record.gradient_name
        if not is_pure(name):   # the reuse rule (grad_registry/registry.py)
            raise Uncacheable(f"gradient function {name} runs every time")


def compile_jacobian(producers: dict, target: EagerTensor, source_ids: Sequence[int],
                     seeds: Any, n: int, canon: Dict[int, int],
                     values: Dict[int, Any]) -> CompiledJacobian:
    """Traces the backward pass, converts it into a plain Graph (ops not derived from
    a fed value run now and become constants) and compiles that graph."""
    own_gradients(producers, canon)
    graph = ValueBlindGraph("jacobian", None)
    with tracing(graph):
        seed = graph.add_input(target.dtype, target.shape, "seed")
        grads = imperative_grad(producers, [target], [target.tensor_id], list(source_ids),
                                [seed], release=False)
        grads = [None if g is None else densified(g) for g in grads]
    for op in graph.get_operations():   # folded at conversion, it would run only once
        if op.op_def.stateful:
            raise Uncacheable(f"stateful op {op.type} in the traced backward pass")
    for g in grads:
        if g is not None and getattr(getattr(g, "op", None), "graph", None) is not graph:
            raise Uncacheable("a gradient that is not a function of the seed")
    program = Graph()
    converter = Converter(graph, 0, n, build_in=program)
    converter.bind(seed, seeds)
    feeds, feed_ids = [], []
    for captured, placeholder in graph.captures:
        cid: int = canon.get(getattr(captured, "tensor_id", -1), -1)
        kept: Any = values.get(cid)
        if kept is None or kept is not captured:
            raise Uncacheable("a captured value the tape did not record")
        if getattr(kept.array.dtype, "kind", "") in _FLOAT_KINDS:
            with program.as_default():
                fed = array_ops.placeholder(kept.dtype, kept.shape, f"recorded_{cid}")
            converter.bind(placeholder, fed, batched=False)
            feeds.append(fed)
            feed_ids.append(cid)
    pairs = converter.convert([g for g in grads if g is not None])
    fetches = []
    with program.as_default():
        for value, batched in pairs:
            out = finish(value, batched, n)
            if getattr(getattr(out, "op", None), "graph", None) is not program:
                out = array_ops.identity(out)   # a value folded at conversion: a constant
            fetches.append(out)
    nbytes = 0
    for op in program.get_operations():
        if op.op_def.stateful:
            raise Uncacheable(f"stateful op {op.type} in the converted program")
        if op.type == "Const":
            nbytes += np.asarray(op.attrs["value"]).nbytes
    plan = detached(compile_plan(program, fetches, feeds, name="jacobian plan"))
    return CompiledJacobian(plan, tuple(feed_ids), tuple(g is not None for g in grads), nbytes)


def stateless(graphs: Sequence[Graph]) -> None:
    """Raises Uncacheable for a stateful op in any of `graphs`."""
    for g in graphs:   # a stateful op folded or compiled would run only once
        for op in g.get_operations():
            if op.op_def.stateful:
                raise Uncacheable(f"stateful op {op.type} in a traced backward pass")


def compile_hessian(tape: Any, target: EagerTensor, source_ids: Sequence[int],
                    canon: Dict[int, int], values: Dict[int, Any]) -> CompiledJacobian:
    """Both backward passes of `GradientTape.hessian` in one plan: the first traced
    into a graph while a tape records it (as `hessian` records it eagerly), the
    second traced from that tape and converted with pfor into the same graph; the
    recorded values of the forward tape are the only inputs."""
    producers = tape.producers
    own_gradients(producers, canon)
    graph = ValueBlindGraph("hessian", None)
    traced: List[Graph] = [graph]
    outputs: List[Any] = []
    with tracing(graph):
        outer = Tape(persistent=True)
        outer.record_entry_copy(tape)
        seed = array_ops.ones(target.shape.as_list(), target.dtype)
        context.push_tape(outer)
        try:
            grads = imperative_grad(producers, [target], [target.tensor_id], list(source_ids),
                                    [seed], release=False)
        finally:
            context.pop_tape(outer)
        for sid, grad in zip(source_ids, grads, strict=True):
            outputs.append(None if grad is None else
                           _hessian_block(graph, outer, densified(grad), sid, traced))
    stateless(traced)
    feeds, feed_ids = [], []
    for captured, placeholder in graph.captures:
        cid: int = canon.get(getattr(captured, "tensor_id", -1), -1)
        if values.get(cid) is not captured:
            raise Uncacheable("a captured value the tape did not record")
        feeds.append(placeholder)
        feed_ids.append(cid)
    if any(out is None for out in outputs):
        raise Uncacheable("a source the target does not reach")   # zeros: ordinary path
    fetches = outputs
    nbytes = sum(np.asarray(op.attrs["value"]).nbytes for op in graph.get_operations()
                 if op.type == "Const")
    plan = detached(compile_plan(graph, fetches, feeds, name="hessian plan"))
    return CompiledJacobian(plan, tuple(feed_ids), tuple(True for _ in fetches), nbytes)


def _hessian_block(graph: Any, outer: Tape, grad: Any, sid: int, traced: List[Graph]) -> Any:
    """Inside `graph`: the Jacobian of first-order gradient `grad` w.r.t. source `sid`
    (shape source.shape * 2), the second pass traced from tape `outer` and converted
    with pfor; zeros where the gradient does not depend on the source."""
    dims = grad.shape.as_list()
    n = grad.shape.num_elements()
    inner = ValueBlindGraph("jacobian", graph)
    traced.append(inner)
    with tracing(inner):
        row_seed = inner.add_input(grad.dtype, grad.shape, "seed")
        (second,) = imperative_grad(outer.producers, [grad], [grad.tensor_id], [sid],
                                    [row_seed], release=False)
    if not n:
        raise Uncacheable("an empty Hessian block")
    if second is None:
        return array_ops.zeros(dims + dims, grad.dtype)
    converter = Converter(inner, 0, n)
    converter.bind(row_seed, OneHot(n, dims, grad.dtype))
    for captured, placeholder in inner.captures:
        if type(captured) is EagerTensor:   # fed through the outer graph's capture
            converter.bind(placeholder, graph.capture(captured), batched=False)
    ((value, batched),) = converter.convert([densified(second)])
    return array_ops.reshape(finish(value, batched, n), dims + dims)


class JacobianPlanCache:
    """Compiled vectorised backward passes by tape structure, least recently used
    evicted first beyond `max_entries` structures or `max_bytes` of constants."""

    def __init__(self, max_entries: int = 64, max_bytes: int = 64 << 20) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: "OrderedDict[tuple, Any]" = OrderedDict()
        self._bytes = 0
        self.hits = 0       # calls answered by a compiled plan (including the compiling one)
        self.compiled = 0   # plans compiled

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        return self._bytes

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0

    def vectorized_backward(self, producers: dict, target: EagerTensor,
                            source_ids: Sequence[int], seeds: Any, n: int,
                            seed_key: tuple) -> Optional[List[Optional[EagerTensor]]]:
        """The stacked gradients from a compiled plan, or None: take the ordinary path."""
        try:
            key, canon, values = tape_structure(producers, target, source_ids, seed_key)
        except Uncacheable:
            return None
        return self.run(key, values, lambda: compile_jacobian(
            producers, target, source_ids, seeds, n, canon, values))

    def hessian(self, tape: Any, target: EagerTensor,
                source_ids: Sequence[int]) -> Optional[List[EagerTensor]]:
        """`GradientTape.hessian`'s blocks (source.shape * 2 each, zeros where the
        gradient is None) from one compiled plan of both backward passes, or None."""
        try:
            key, canon, values = tape_structure(tape.producers, target, source_ids,
                                                ("hessian",))
        except Uncacheable:
            return None
        return self.run(key, values, lambda: compile_hessian(
            tape, target, source_ids, canon, values))

    def run(self, key: tuple, values: Dict[int, Any], compile_fn: Any) -> Optional[list]:
        """The plan of `key` run on `values` (compiled on the second sighting), or None."""
        entry = self._entries.get(key)
        if entry is None:
            self._put(key, _SEEN_ONCE)
            return None
        if entry is _UNCACHEABLE:
            return None
        if entry is _SEEN_ONCE:
            try:
                entry = compile_fn()
            except Exception as error:  # noqa: BLE001 - the ordinary path raises it at its op
                _log.debug("jacobian plan not cached: %s", error)
                self._put(key, _UNCACHEABLE)
                return None
            self.compiled += 1
            self._put(key, entry if entry.nbytes <= self.max_bytes else _UNCACHEABLE)
        else:
            self._entries.move_to_end(key)
        result = entry.run(values)
        if result is not None:
            self.hits += 1
        return result

    def _put(self, key: tuple, entry: Any) -> None:
        """Stores a compiled entry (anything with `run(values)` and `nbytes`) or a
        marker string, evicting the least recently used beyond the bounds."""
        old = self._entries.pop(key, None)
        self._bytes -= getattr(old, "nbytes", 0)
        self._entries[key] = entry
        self._bytes += getattr(entry, "nbytes", 0)
        while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
            _, dropped = self._entries.popitem(last=False)
            self._bytes -= getattr(dropped, "nbytes", 0)
