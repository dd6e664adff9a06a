"""apply_op: the single entry point of every op, and the one place mode is decided."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..eager import context
from ..eager.execute import NO_ATTRS, execute, record
from ..framework.op_def import OpDef, lookup_op
from ..framework.tensor import Tensor

_state = context.state


def apply_op(op_def: OpDef, inputs: Sequence[Any], attrs: dict = NO_ATTRS,
             name: Optional[str] = None) -> Any:
    """Runs `op_def` eagerly, or adds it to the graph being built.

    Returns the output tensor for single-output ops, a list for multi-output
    ops, and (graph mode) the Operation / (eager mode) None for ops with none.
    """
    graph = _state.graph
    if graph is None:
        return execute(op_def, inputs, attrs)
    op = graph.create_op(op_def, inputs, attrs, name)
    if _state.tapes or _state.accumulators:  # a tape inside a graph records graph ops
        _record_captures(inputs, op.inputs)
        record(op_def, attrs, op.inputs, op.outputs, op.gradient_override)
    n = op_def.num_outputs
    if n == 1:
        return op.outputs[0]
    if n == 0:
        return op
    return list(op.outputs)


def _record_captures(given: Sequence[Any], used: Sequence[Any]) -> None:
    """An outer tensor a function graph captured reaches its placeholder through an
    identity on the tapes (as TF records every capture), so that a tape opened inside a
    while/cond body or a function sees reads of outer tensors and variables."""
    for outer, inner in zip(given, used, strict=True):
        if outer is not inner and isinstance(outer, Tensor):
            identity = lookup_op("Identity")
            for tape in _state.tapes:
                tape.record_capture(identity, outer, inner)
