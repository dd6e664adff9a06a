"""apply_op: the single entry point of every op, and the one place mode is decided."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..eager import context
from ..eager.execute import execute, record
from ..framework.op_def import OpDef

_state = context.state
NO_ATTRS: dict = {}


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
        record(op_def, attrs, op.inputs, op.outputs, op.gradient_override)
    n = op_def.num_outputs
    if n == 1:
        return op.outputs[0]
    if n == 0:
        return op
    return list(op.outputs)
