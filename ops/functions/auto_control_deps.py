"""Automatic control dependencies of a traced dg.function (TensorFlow's rules).

Ops of a function run in program order (a compiled plan runs ops by id) and
every op with side effects runs before the function returns
(GraphFunction.effect_ops). This pass also records the order between stateful
ops that use the same resource as control edges, as TensorFlow's
AutomaticControlDependencies does, so the graph states it: a read waits for
the last write of its resource; a write waits for the last write and for the
reads since. A functional op (call, If, While) with a resource input counts
as a write. Ops on different resources, and stateless ops, get no edges.
"""
from __future__ import annotations

from typing import Dict, List

from ...framework import dtypes
from ...framework.graph import Graph, Operation

READ_ONLY_TYPES = frozenset(["ReadVariableOp", "VarIsInitializedOp"])


def add_automatic_control_dependencies(graph: Graph) -> None:
    """Adds control edges between the stateful ops of `graph` sharing a resource."""
    last_write: Dict[int, Operation] = {}
    reads: Dict[int, List[Operation]] = {}
    for op in graph.get_operations():
        if not op.op_def.is_stateful:
            continue
        is_read = op.type in READ_ONLY_TYPES
        for tensor in op.inputs:
            if tensor.dtype is not dtypes.resource:
                continue
            key = id(tensor)
            deps = []
            writer = last_write.get(key)
            if writer is not None:
                deps.append(writer)
            if is_read:
                reads.setdefault(key, []).append(op)
            else:
                deps.extend(reads.pop(key, ()))
                last_write[key] = op
            for dep in deps:
                _add_control_input(op, dep)


def _add_control_input(op: Operation, dep: Operation) -> None:
    if dep is op or any(dep is c for c in op.control_inputs) or \
            any(t.op is dep for t in op.inputs):
        return
    op.control_inputs.append(dep)
    dep.add_control_output(op)
