"""First-order gradients under a recording tape, as a compiled plan replayed onto it.

`tape.gradient` while another tape records (nested tapes: `outer.jacobian(
inner.gradient(f, x), x)`) must leave each gradient op on the recording
tapes, so it runs the general backward pass op by op (dispatch, a gradient
function's Python, recording: about 18 us per op for W3). A repeated call
with the same tape structure builds the same ops, so this module traces that
pass once into a graph (with the tapes paused), compiles the graph into a
Session plan that fetches every op's outputs, and on each call runs the plan
and then records each op, in the order the eager pass would have run it, with
fresh EagerTensors for its outputs (eager/execute.py's `record`, as an eager
op records itself). The recording tapes then hold the same records an eager
pass would have left: later gradients, Jacobians and Hessians of them work
as before.

Soundness is the jacobian plans' (eager/jacobian_plans.py: the same key,
value-blind trace, own gradient functions only, no stateful op); in addition
only one target with the default output gradient, no forward accumulator
(it would compute JVPs per op), and gradients that are dense tensors of the
trace. The cache is the thread's `JacobianPlanCache` (same bounds and
lifetime). The first call of a structure takes the ordinary path.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..framework.func_graph import tracing
from ..framework.session import compile_plan, run_plan
from ..framework.tensor import new_tensor_id
from . import context
from .eager_tensor import EagerTensor
from .execute import record
from .imperative_grad import imperative_grad
from .jacobian_plans import (Uncacheable, ValueBlindGraph, detached, own_gradients,
                             plan_cache, stateless, tape_structure)

_state = context.state


def replay_allowed(targets: Sequence[Any], output_gradients: Optional[Sequence[Any]]) -> bool:
    """Eager, some tape records the gradient ops, no accumulator, one plain target."""
    state = _state
    return (state.graph is None and bool(state.tapes) and not state.accumulators
            and output_gradients is None and len(targets) == 1
            and type(targets[0]) is EagerTensor)


def replayed_gradient(producers: dict, target: EagerTensor,
                      source_ids: Sequence[int]) -> Optional[List[Optional[EagerTensor]]]:
    """The gradients (None: unconnected), their ops recorded on the recording tapes;
    None: take the tensors mode (first sighting, uncacheable, or a failed plan)."""
    try:
        key, canon, values = tape_structure(producers, target, source_ids, ("gradient",))
    except Uncacheable:
        return None
    return plan_cache().run(key, values, lambda: compile_replay(
        producers, target, source_ids, canon, values))


class ReplayPlan:
    """A traced first-order pass: the plan computing every op output, and for each
    op in execution order what to record (its declaration, attrs, input and output
    positions in the tensor table: feeds first, then constants, then outputs)."""

    __slots__ = ("plan", "feed_ids", "fills", "constants", "steps", "results", "nbytes")

    def __init__(self, plan: Any, feed_ids: tuple, fills: tuple, constants: tuple,
                 steps: tuple, results: tuple, nbytes: int) -> None:
        self.plan = plan
        self.feed_ids = feed_ids   # per feed: the recorded value's canonical number,
        self.fills = fills         # or (-1) the fill array the trace made for it
        self.constants = constants
        self.steps = steps
        self.results = results
        self.nbytes = nbytes

    def run(self, values: Dict[int, Any]) -> Optional[List[Optional[EagerTensor]]]:
        """Runs the plan, records its ops, returns the gradients (None: a kernel
        failed before anything was recorded; the tensors mode then raises)."""
        fed = [values[cid] if fill is None else EagerTensor(fill)
               for cid, fill in zip(self.feed_ids, self.fills, strict=True)]
        try:
            outs = run_plan(self.plan, tuple([t.array for t in fed]), None)
        except Exception:  # noqa: BLE001 - re-raised by the tensors mode at its op
            return None
        table: List[Any] = fed + [EagerTensor(c) for c in self.constants]
        it = iter(outs)
        for op_def, attrs, inputs, n_out in self.steps:
            outputs = tuple([EagerTensor(np.asarray(next(it))) for _ in range(n_out)])
            table.extend(outputs)
            record(op_def, attrs, [table[i] for i in inputs], outputs)
        return [None if i is None else table[i] for i in self.results]


def compile_replay(producers: dict, target: EagerTensor, source_ids: Sequence[int],
                   canon: Dict[int, int], values: Dict[int, Any]) -> ReplayPlan:
    """Traces the tensors mode (tapes paused) and compiles every op it built."""
    own_gradients(producers, canon)
    start = new_tensor_id()
    graph = ValueBlindGraph("gradient", None)
    with tracing(graph):
        grads = imperative_grad(producers, [target], [target.tensor_id], list(source_ids),
                                None, release=False)
    stateless([graph])
    position: Dict[int, int] = {}
    feeds: List[Any] = []
    feed_ids: List[int] = []
    fills: List[Optional[np.ndarray]] = []
    for captured, placeholder in graph.captures:
        cid: int = canon.get(getattr(captured, "tensor_id", -1), -1)
        fill = None
        if values.get(cid) is not captured:
            fill = _made_fill(captured, start)
            if fill is None:
                raise Uncacheable("a captured value the tape did not record")
        position[id(placeholder)] = len(feeds)
        feeds.append(placeholder)
        feed_ids.append(cid)
        fills.append(fill)
    ops = [op for op in graph.get_operations() if op.type != "Placeholder"]
    constants: List[Any] = []
    for op in ops:
        if op.type == "Const":
            position[id(op.outputs[0])] = len(feeds) + len(constants)
            constants.append(op.attrs["value"])
    fetches: List[Any] = []
    steps: List[tuple] = []
    base = len(feeds) + len(constants)
    for op in ops:
        if op.type == "Const":
            continue
        if op.control_inputs:
            raise Uncacheable(f"control dependencies on {op.type}")
        for t in op.outputs:
            position[id(t)] = base + len(fetches)
            fetches.append(t)
        steps.append((op.op_def, op.attrs, _positions(op.inputs, position), len(op.outputs)))
    results = []
    for g in grads:
        if g is not None and id(g) not in position:
            raise Uncacheable("a gradient that is not a tensor of the trace")
        results.append(None if g is None else position[id(g)])
    plan = detached(compile_plan(graph, fetches, feeds, name="gradient replay"))
    nbytes = sum(np.asarray(c).nbytes for c in constants)
    return ReplayPlan(plan, tuple(feed_ids), tuple(fills), tuple(constants), tuple(steps),
                      tuple(results), nbytes)


def _made_fill(captured: Any, start: int) -> Optional[np.ndarray]:
    """An eager tensor the trace itself made (an id newer than the trace) holding one
    value throughout (the tensors mode's `ones_like` seed, a zeros fill): a function
    of its shape and dtype, which the key holds; else None (not reusable)."""
    if type(captured) is not EagerTensor or captured.tensor_id <= start:
        return None
    array = np.asarray(captured.array)
    if array.size and not (array == array.flat[0]).all():
        return None
    return array


def _positions(tensors: Sequence[Any], position: Dict[int, int]) -> Tuple[int, ...]:
    try:
        return tuple([position[id(t)] for t in tensors])
    except KeyError:
        raise Uncacheable("an op input from outside the trace") from None
