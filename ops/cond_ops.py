"""dg.cond: eager mode runs one branch; a graph gets one `If` op with two branch graphs.

The `If` op's inputs are the predicate and every outer value either branch
captures; each branch is a GraphFunction reading its own subset. Outputs:
the branches' common outputs, then (when a gradient needs them) each
branch's extra forward values; the branch not taken fills the other's extras
with placeholders nobody reads. Gradient: grad_registry/control_flow_grad.py.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from ..eager import context
from ..framework import dtypes, nest
from ..framework.func_graph import FuncGraph, capture_value, tracing
from ..framework.op_def import declare_op
from ..framework.registry import gradients_accepting_none
from ..framework.tensor_shape import TensorShape
from .constant_op import convert_to_tensor
from .dispatch import apply_op
from .graph_function import (ALL_INDICES, GraphFunction, graph_output, needs_gradient,
                             union_captures)

_state = context.state


def _dummy(dtype: Any) -> np.ndarray:
    np_type = dtype.as_numpy_dtype
    return np.zeros((), np_type if np_type is not None else np.float32)


def _if_kernel(resources: Any, pred: Any, *ext: Any, branches: tuple, branch_inputs: tuple,
               branch_outputs: tuple, output_specs: tuple) -> list:
    b = 0 if pred else 1
    outs = branches[b].run(resources, [ext[i] for i in branch_inputs[b]])
    result: List[Any] = [None] * len(output_specs)
    for value, slot in zip(outs, branch_outputs[b], strict=True):
        result[slot] = value
    for slot, value in enumerate(result):
        if value is None:
            result[slot] = _dummy(output_specs[slot][0])
    return result


def _if_infer(inputs: Any, attrs: dict) -> list:
    return list(attrs["output_specs"])


IF = declare_op("If", _if_kernel, _if_infer, num_outputs=-1, stateful=True, grad_inputs=None,
                grad_outputs=None)
gradients_accepting_none[IF.type] = ALL_INDICES


def relaxed_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both `a` and `b` satisfy."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list(), strict=True)])


def trace_branch(name: str, branch_fn: Callable[[], Any]) -> Tuple[FuncGraph, Any, list]:
    """Traces a branch: its graph, the structure it returned, its flat outputs."""
    graph = FuncGraph(name, outer_graph=_state.graph)
    with tracing(graph):
        result = branch_fn()
        flat = [graph_output(graph, leaf) for leaf in nest.flatten(result)]
    if any(t is None for t in flat):
        raise ValueError(f"{name} returned None (or an Operation) where a tensor is needed: "
                         f"{result!r}")
    graph.outputs = flat
    return graph, result, flat


def _check_branches(then_struct: Any, else_struct: Any, then_flat: list, else_flat: list) -> None:
    try:
        nest.assert_same_structure(then_struct, else_struct)
    except ValueError as error:
        raise ValueError("true_fn and false_fn arguments to dg.cond must have the same number, "
                         f"type, and overall structure of return values. {error}") from None
    for i, (t, e) in enumerate(zip(then_flat, else_flat, strict=True)):
        if t.dtype != e.dtype:
            raise TypeError(f"dg.cond: output {i} of true_fn has dtype {t.dtype.name} but the "
                            f"false_fn output has dtype {e.dtype.name}")
        if not t.shape.is_compatible_with(e.shape):
            raise ValueError(f"dg.cond: output {i} of true_fn has shape {t.shape}, incompatible "
                             f"with the false_fn output shape {e.shape}")


def build_if(pred: Any, graphs: Tuple[FuncGraph, FuncGraph], flats: Tuple[list, list],
             name: str) -> list:
    """Adds the `If` op running one of the traced branch graphs; its outputs."""
    sources, per_graph = union_captures(graphs)
    inputs = [pred] + [capture_value(s) for s in sources]
    fns = [GraphFunction(g, g.inputs, flat) for g, flat in zip(graphs, flats, strict=True)]
    depth = needs_gradient(inputs)
    if depth:
        fns = [fn.with_gradient_outputs(depth) for fn in fns]
    n = len(flats[0])
    specs = [(t.dtype, relaxed_shape(t.shape, e.shape)) for t, e in zip(*flats, strict=True)]
    outputs_map = []
    for fn in fns:
        slots = list(range(n))
        for t in fn.outputs[n:]:
            slots.append(len(specs))
            specs.append((t.dtype, TensorShape(None)))
        outputs_map.append(tuple(slots))
    attrs = {"branches": tuple(fns), "branch_inputs": tuple(per_graph),
             "branch_outputs": tuple(outputs_map), "output_specs": tuple(specs)}
    outs = apply_op(IF, inputs, attrs, name)
    return list(outs[:n])


def cond(pred: Any, true_fn: Optional[Callable] = None, false_fn: Optional[Callable] = None,
         name: Optional[str] = None) -> Any:
    """`true_fn()` if pred else `false_fn()`; in a graph both are traced into one op."""
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if _state.graph is None:
        if isinstance(pred, (bool, np.bool_)) or hasattr(pred, "numpy"):
            return true_fn() if bool(pred) else false_fn()
        return true_fn() if bool(convert_to_tensor(pred)) else false_fn()
    pred = convert_to_tensor(pred)
    if pred.dtype != dtypes.bool_:
        raise TypeError(f"dg.cond: pred must be a bool tensor, got dtype {pred.dtype.name}")
    if pred.shape.rank not in (None, 0):
        raise ValueError(f"dg.cond: pred must be a scalar, got shape {pred.shape}")
    then_graph, then_struct, then_flat = trace_branch("cond_true", true_fn)
    else_graph, else_struct, else_flat = trace_branch("cond_false", false_fn)
    _check_branches(then_struct, else_struct, then_flat, else_flat)
    outs = build_if(pred, (then_graph, else_graph), (then_flat, else_flat), name or "cond")
    return nest.pack_sequence_as(then_struct, outs)


__all__ = ["cond"]
