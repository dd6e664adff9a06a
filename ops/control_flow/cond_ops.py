"""dg.cond: eager mode runs one branch; a graph gets one `If` op with two branch graphs.

The `If` op's inputs are the predicate and every outer value either branch
captures; each branch is a GraphFunction reading its own subset. Outputs:
the branches' common outputs, then (when a gradient needs them) each
branch's extra forward values; the branch not taken fills the other's extras
with placeholders nobody reads. Gradient: grad_registry/control_flow_grad.py.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...eager import context
from ...eager.stack_room import with_stack_room
from ...framework import dtypes, nest
from ...framework.func_graph import (FuncGraph, attach_control_captures, capture_value, tracing,
                                     unique_graph_name)
from ...framework.tensor_shape import TensorShape
from ..array.array_ops import identity
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from .tensor_array_ops import flatten_with_flows, pack_with_flows
from ..functions.graph_function import (declare_function_ops, GraphFunction, graph_output,
                                        needs_gradient, note_variable_reads, union_captures)

_state = context.state


class Untaken(np.ndarray):
    """The value of an output only the branch not taken computes (nobody reads it).

    A loop that accumulates it per iteration (ops/control_flow/while_loop_ops.py) replaces
    it by zeros shaped like the iterations that took that branch."""


def untaken_value(tensor: Any) -> np.ndarray:
    """Zeros of `tensor`'s static shape when fully known, else an `Untaken` scalar."""
    np_type = tensor.dtype.as_numpy_dtype
    np_type = np_type if np_type is not None else np.float32
    shape = tensor.shape
    if shape.is_fully_defined():
        return np.zeros(shape.as_list(), np_type)
    return np.zeros((), np_type).view(Untaken)


def _if_kernel(resources: Any, pred: Any, *ext: Any, branches: tuple, branch_inputs: tuple,
               branch_outputs: tuple, output_specs: tuple, then_branch: Any = None,
               else_branch: Any = None) -> list:
    return run_branch(resources, 0 if pred else 1, ext, branches, branch_inputs,
                      branch_outputs, len(output_specs))


def run_branch(resources: Any, b: int, ext: tuple, branches: tuple, branch_inputs: tuple,
               branch_outputs: tuple, n_outputs: int) -> list:
    """The outputs of an If/Case op whose branch `b` runs on its share of `ext`."""
    outs = with_stack_room(branches[b].run, resources, [ext[i] for i in branch_inputs[b]])
    result: List[Any] = [None] * n_outputs
    for value, slot in zip(outs, branch_outputs[b], strict=True):
        result[slot] = value
    for other, fn in enumerate(branches):
        if other != b:
            for tensor, slot in zip(fn.outputs, branch_outputs[other], strict=True):
                if result[slot] is None:  # an extra forward value of another branch
                    result[slot] = untaken_value(tensor)
    return result


def _if_infer(inputs: Any, attrs: dict) -> list:
    return list(attrs["output_specs"])


IF, STATELESS_IF = declare_function_ops("If", "StatelessIf", _if_kernel, _if_infer)


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
        flat = [graph_output(graph, leaf) for leaf in flatten_with_flows(result)[0]]
    if any(t is None for t in flat):
        raise ValueError(f"{name} returned None (or an Operation) where a tensor is needed: "
                         f"{result!r}")
    graph.outputs = flat
    return graph, result, flat


_MISMATCH = ("true_fn and false_fn arguments to tf.cond must have the same number, type, and "
             "overall structure of return values.")  # TF 2.21's words (a TypeError)


def check_branches(then_struct: Any, else_struct: Any, then_flat: list, else_flat: list) -> None:
    try:
        nest.assert_same_structure(then_struct, else_struct)
    except ValueError as error:
        raise TypeError(f"{_MISMATCH}\n\ntrue_fn output: {then_struct}\nfalse_fn output: "
                        f"{else_struct}\n\nError details:\n{error}") from None
    for i, (t, e) in enumerate(zip(then_flat, else_flat, strict=True)):
        if t.dtype != e.dtype:
            raise TypeError(f"{_MISMATCH}\n\nError details:\noutput {i}: {t} and {e} have "
                            "different types")
        # Shapes may differ (TF 2.21): the output takes the most specific common shape.


def build_if(pred: Any, graphs: Sequence[FuncGraph], flats: Sequence[list], name: str,
             op_defs: Optional[Tuple[Any, Any]] = None) -> list:
    """Adds the `If` op (or with `op_defs` (stateful, stateless) a `Case` op) running
    one of the traced branch graphs, selected by `pred`; its outputs."""
    sources, per_graph = union_captures(graphs)
    note_variable_reads(sources)
    inputs = [pred] + [capture_value(s) for s in sources]
    fns = [GraphFunction(g, g.inputs, flat) for g, flat in zip(graphs, flats, strict=True)]
    depth = needs_gradient(inputs)
    if depth:
        fns = [fn.with_gradient_outputs(depth) for fn in fns]
    n = len(flats[0])
    specs = []
    for outputs in zip(*flats, strict=True):
        shape = outputs[0].shape
        for t in outputs[1:]:
            shape = relaxed_shape(shape, t.shape)
        specs.append((outputs[0].dtype, shape))
    outputs_map = []
    for fn in fns:
        slots = list(range(n))
        for t in fn.outputs[n:]:
            slots.append(len(specs))
            specs.append((t.dtype, TensorShape(None)))
        outputs_map.append(tuple(slots))
    attrs: Dict[str, Any] = {"branches": tuple(fns), "branch_inputs": tuple(per_graph),
             "branch_outputs": tuple(outputs_map), "output_specs": tuple(specs)}
    stateful_def, stateless_def = op_defs or (IF, STATELESS_IF)
    if op_defs is None:
        attrs["then_branch"], attrs["else_branch"] = fns
    op_def = stateful_def if any(fn.is_stateful for fn in fns) else stateless_def
    outs = apply_op(op_def, inputs, attrs, name)
    if outs:
        attach_control_captures(outs[0].op, graphs)
    # As TF's cond_v2: the results are Identity ops named <cond>/Identity, ...
    graph = _state.graph
    with graph.name_scope(outs[0].op.name + "/" if outs else None):
        return [identity(t) for t in outs[:n]]


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
    name = name or "cond"
    prefix = _state.graph.unique_name(name, mark_as_used=False).replace("/", "_")
    then_graph, then_struct, then_flat = trace_branch(unique_graph_name(prefix + "_true"),
                                                      true_fn)
    else_graph, else_struct, else_flat = trace_branch(unique_graph_name(prefix + "_false"),
                                                      false_fn)
    check_branches(then_struct, else_struct, then_flat, else_flat)
    outs = build_if(pred, (then_graph, else_graph), (then_flat, else_flat), name)
    return pack_with_flows(then_struct, outs)  # TensorArrays come back as TensorArrays


__all__ = ["cond"]
