"""Grouping and ordering ops: no_op, group, tuple (cond/while_loop live in their own files)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ...eager import context
from ...framework.graph import Operation
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ..array.array_ops import identity
from ..dispatch import apply_op

_state = context.state

NO_OP = declare_op("NoOp", lambda: None, lambda inputs, attrs: [], num_outputs=0, grad_inputs=())


def no_op(name: Optional[str] = None):
    """An op that does nothing; useful as a control-dependency anchor."""
    return apply_op(NO_OP, (), name=name)


def group(*inputs: Any, name: Optional[str] = None):
    """An op that runs after all `inputs` (tensors or operations)."""
    graph = _state.graph
    if graph is None:
        return None
    deps = [t for t in _flatten(inputs) if t is not None]
    with graph.control_dependencies(deps):
        return no_op(name=name or "group_deps")


def tuple(tensors: Sequence[Any], name: Optional[str] = None,  # noqa: A001 (TF's name)
          control_inputs: Optional[Sequence[Any]] = None) -> list:
    """The tensors, each available only after all of them (and `control_inputs`) are."""
    graph = _state.graph
    if graph is None:
        return list(tensors)
    present = [t for t in tensors if t is not None]
    deps = [t.op if isinstance(t, Tensor) else t.values.op for t in present]
    deps += list(control_inputs or [])
    gate = group(*deps)
    out: list = []
    with graph.control_dependencies([gate]):
        for t in tensors:
            if t is None:
                out.append(None)
            elif isinstance(t, Tensor):
                out.append(identity(t))
            else:  # IndexedSlices
                out.append(type(t)(identity(t.values), t.indices, t.dense_shape))
    return out


def _flatten(items: Any) -> list:
    out = []
    stack = [items]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple_type)):
            stack.extend(reversed(item))
        elif isinstance(item, Tensor):
            out.append(item.op)
        elif isinstance(item, Operation) or item is None:
            out.append(item)
        else:
            out.append(getattr(item, "op", item))
    return out


tuple_type = type(())

__all__ = ["no_op", "group", "tuple"]
