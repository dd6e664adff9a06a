"""dg.while_loop: a Python loop in eager mode; in a graph one `While` op.

The `While` op's inputs are the flat loop variables, the optional iteration
limit, then every outer value the cond or body graph captures. Its outputs
are the final loop variables, the number of iterations run, and, when a
gradient needs them, the stacked per-iteration values of the body tensors
its backward function reads (only those: `acc_specs`). The backward loop
(grad_registry/control_flow_grad.py) reads them last iteration first. The
kernel is a plain Python loop over two compiled plans: no recursion, any
number of iterations.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional

import numpy as np

from ...eager import context
from ...eager.stack_room import with_stack_room
from ...framework import dtypes, nest
from ...framework.func_graph import (FuncGraph, attach_control_captures, capture_value, tracing,
                                     unique_graph_name)
from ...framework.graph import SymbolicTensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from .cond_ops import Untaken
from .tensor_array_ops import flatten_with_flows, pack_with_flows
from ..array.array_ops import identity, squeeze, stop_gradient
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..functions.graph_function import (declare_function_ops, GraphFunction, graph_output,
                                        is_constant, needs_gradient, note_variable_reads,
                                        union_captures)

_state = context.state


def _empty_stack(dtype: Any, shape: TensorShape) -> np.ndarray:
    if shape.rank is None:
        return np.zeros((0,), dtype.as_numpy_dtype)
    dims = [0] + [0 if d is None else d for d in shape.as_list()]
    return np.zeros(dims, dtype.as_numpy_dtype)


def _stack(values: list) -> np.ndarray:
    """The per-iteration values of one accumulator as one array; values of a cond
    branch not taken in some iteration become zeros shaped like the others."""
    if any(type(v) is Untaken for v in values):
        shaped = next((v for v in values if type(v) is not Untaken), None)
        if shaped is None:
            return np.stack([np.asarray(v) for v in values])
        values = [np.zeros_like(shaped) if type(v) is Untaken else v for v in values]
    try:
        first = values[0]
        kind = getattr(first, "dtype", None)
        if kind is not None and kind.kind in "biufc":
            # np.array copies the rows in one C pass (np.stack expands each row in
            # Python first: ~200 us for 200 rows against ~70 us)
            out = np.array(values)
            if out.dtype == first.dtype and out.shape[1:] == np.shape(first):
                return out
        return np.stack(values)
    except ValueError:  # rows of different shapes (an inner loop's stacks)
        return np.stack(_padded(values))


def _padded(values: list) -> list:
    """Values of one rank zero-padded at the end of each axis to a common shape: the
    per-iteration stacks of an inner loop run a different number of times per outer
    iteration; its backward reads only the first `count` rows of each."""
    ranks = {np.ndim(v) for v in values}
    if len(ranks) != 1:
        return values  # np.stack names the mismatch
    target = np.max([np.shape(v) for v in values], axis=0)
    return [np.pad(v, [(0, t - d) for t, d in zip(target, np.shape(v), strict=True)])
            for v in values]


def _while_kernel(resources: Any, *arrays: Any, **attrs: Any) -> list:
    return with_stack_room(_run_loop, resources, arrays, attrs)  # loops nest: any depth


def _run_loop(resources: Any, arrays: tuple, attrs: dict) -> list:
    return _loop(resources, *arrays, **attrs)


def _loop(resources: Any, *arrays: Any, cond: GraphFunction, body: GraphFunction,
          n_vars: int, has_max: bool, cond_inputs: tuple, body_inputs: tuple,
          var_specs: tuple, acc_specs: tuple) -> list:
    values = list(arrays[:n_vars])
    rest = arrays[n_vars:]
    limit = None
    if has_max:
        limit = int(rest[0])
        rest = rest[1:]
    cond_ext = [rest[i] for i in cond_inputs]
    body_ext = [rest[i] for i in body_inputs]
    rows: List[tuple] = []   # each iteration's body outputs; accumulators are columns
    run_cond, run_body = cond.run_quietly, body.run_quietly
    count = 0
    with np.errstate(all="ignore"):  # once for the loop, not per plan run
        while (limit is None or count < limit) and run_cond(resources, values + cond_ext)[0]:
            outs = run_body(resources, values + body_ext)
            values = list(outs[:n_vars])
            if acc_specs:
                rows.append(outs)
            count += 1
    if not acc_specs:
        return values + [np.array(count, np.int32)]
    if not rows:
        return values + [np.array(count, np.int32)] + [_empty_stack(*spec) for spec in acc_specs]
    columns = list(zip(*rows, strict=True))[n_vars:]
    if len(columns) != len(acc_specs):
        raise ValueError(f"while loop body returned {len(columns)} accumulators, expected "
                         f"{len(acc_specs)}")
    return values + [np.array(count, np.int32)] + [_stack(list(c)) for c in columns]


def _while_infer(inputs: Any, attrs: dict) -> list:
    specs = list(attrs["var_specs"]) + [(dtypes.int32, TensorShape(()))]
    for dtype, shape in attrs["acc_specs"]:
        stacked = TensorShape(None) if shape.rank is None else TensorShape([None] + shape.as_list())
        specs.append((dtype, stacked))
    return specs


WHILE, STATELESS_WHILE = declare_function_ops("While", "StatelessWhile", _while_kernel,
                                              _while_infer)


def _invariants(loop_vars: Any, flat: list, shape_invariants: Any) -> List[TensorShape]:
    if shape_invariants is None:
        return [t.shape for t in flat]
    try:
        nest.assert_same_structure(loop_vars, shape_invariants)
    except ValueError as error:
        raise ValueError(f"shape_invariants must have the structure of loop_vars: {error}") \
            from None
    shapes: List[TensorShape] = []
    for leaf, inv in zip(nest.flatten(loop_vars), nest.flatten(shape_invariants), strict=True):
        flows = getattr(leaf, "flow_tensors", None)
        if flows is not None:
            shapes.extend(t.shape for t in flows())
            continue
        inv = as_shape(inv)
        if not inv.is_compatible_with(leaf.shape):
            raise ValueError(f"The shape invariant specified for {leaf} is not compatible with "
                             f"the initial shape of the loop variable. It enters the loop with "
                             f"shape {leaf.shape}, but the specified shape invariant is {inv}.")
        shapes.append(inv)
    return shapes


def _check_iteration(flat_in: list, invariants: List[TensorShape], flat_out: list) -> None:
    for k, (before, shape, after) in enumerate(zip(flat_in, invariants, flat_out, strict=True)):
        if after.dtype != before.dtype:
            raise TypeError(f"Loop var {_var_name(before, k)} enters the loop with type <dtype: "
                            f"'{before.dtype.name}'> but has type <dtype: '{after.dtype.name}'>"
                            " after 1 iteration.")
        if not shape.is_compatible_with(after.shape):
            raise ValueError(f"Loop variable {k} enters the loop with shape {shape}, but has "
                             f"shape {after.shape} after one iteration. To allow the shape to "
                             "vary across iterations, use the `shape_invariants` argument of "
                             "dg.while_loop to specify a less-specific shape.")


def _var_name(tensor: Any, k: int) -> str:
    return getattr(tensor, "name", None) or str(k)  # graph tensors by name (TF's message)


def _convert_vars(loop_vars: Any) -> Any:
    def convert(leaf: Any) -> Any:
        if hasattr(leaf, "flow_tensors") or isinstance(leaf, Tensor):
            return leaf
        return convert_to_tensor(leaf)
    return nest.map_structure(convert, loop_vars)


def _call(fn: Callable, packed: Any, as_args: bool) -> Any:
    return fn(*packed) if as_args else fn(packed)


def _normalize(result: Any, loop_vars: Any, as_args: bool) -> Any:
    if as_args and not isinstance(result, (list, tuple)) and len(loop_vars) == 1:
        result = [result]
    if as_args and isinstance(result, (list, tuple)) and not hasattr(result, "_fields"):
        result = type(loop_vars)(result) if not hasattr(loop_vars, "_fields") else result
    try:
        nest.assert_same_structure(loop_vars, result)
    except ValueError as error:
        raise ValueError(f"body of dg.while_loop must return the structure of loop_vars: "
                         f"{error}") from None
    return _convert_vars(result)


def while_loop(cond: Callable, body: Callable, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations: Any = None, name: Optional[str] = None,
               return_same_structure: bool = True) -> Any:
    """Repeats `body` while `cond` is true (at most `maximum_iterations` times)."""
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:  # TF 2.21 raises TypeError for 0 and negatives
        raise TypeError("'parallel_iterations' must be a positive integer.")
    as_args = isinstance(loop_vars, (list, tuple)) and not hasattr(loop_vars, "_fields")
    if as_args and not loop_vars:
        raise ValueError("No loop variables provided")
    loop_vars = _convert_vars(loop_vars)
    if _state.graph is None:
        result = _eager_loop(cond, body, loop_vars, shape_invariants, maximum_iterations,
                             as_args)
    else:
        result = _graph_loop(cond, body, loop_vars, shape_invariants, maximum_iterations,
                             as_args, name or "while")
    if not back_prop:  # TF: the results carry no gradient
        result = nest.map_structure(_no_gradient, result)
    return result


def _no_gradient(leaf: Any) -> Any:
    return stop_gradient(leaf) if isinstance(leaf, Tensor) else leaf


def _eager_loop(cond, body, loop_vars, shape_invariants, maximum_iterations, as_args):
    flat, _ = flatten_with_flows(loop_vars)
    invariants = _invariants(loop_vars, flat, shape_invariants)
    limit = None if maximum_iterations is None else int(maximum_iterations)
    count = 0
    while (limit is None or count < limit) and bool(_call(cond, loop_vars, as_args)):
        result = _normalize(_call(body, loop_vars, as_args), loop_vars, as_args)
        _check_iteration(flat, invariants, flatten_with_flows(result)[0])
        loop_vars = result
        count += 1
    return loop_vars


def _trace_body(name: str, fn: Callable, loop_vars: Any, specs: list, as_args: bool,
                is_cond: bool = False):
    graph = FuncGraph(name, outer_graph=_state.graph)
    with tracing(graph):
        placeholders = [graph.add_input(dtype, shape, "loop_var") for dtype, shape in specs]
        packed = pack_with_flows(loop_vars, placeholders)
        result = _call(fn, packed, as_args)
        if is_cond:
            pred = convert_to_tensor(result)
            if pred.shape.rank != 0:  # as TF's while_v2: a one-element pred is squeezed
                pred = squeeze(pred)
            flat = [graph_output(graph, pred)]
            result = loop_vars
        else:
            result = _normalize(result, loop_vars, as_args)
            flat = [graph_output(graph, t) for t in flatten_with_flows(result)[0]]
    graph.outputs = flat
    return graph, flat, result


def accumulating(body: GraphFunction, n_vars: int) -> GraphFunction:
    """`body` also returning each per-iteration value its first-order backward reads."""
    mask = tuple(k for k in range(n_vars) if _trainable(body.outputs[k]))
    try:
        back = body.backward(mask)
    except LookupError:
        return body
    return body.extended(missing_accumulators(body, n_vars, back.extras))


def missing_accumulators(body: GraphFunction, n_vars: int, extras: list) -> list:
    """Body tensors among `extras` that vary per iteration and are not accumulated."""
    have = {id(t) for t in body.outputs[n_vars:]}
    missing = []
    for value in extras:
        if not isinstance(value, SymbolicTensor) or value.op.graph is not body.graph \
                or is_constant(value):
            continue
        j = body.input_index(value)
        if (j is not None and j >= n_vars) or id(value) in have \
                or body.late_capture(value) is not None:
            continue  # a loop invariant, or already accumulated
        have.add(id(value))
        missing.append(value)
    return missing


def _trainable(tensor: Any) -> bool:
    return tensor.dtype.is_differentiable


def _graph_loop(cond, body, loop_vars, shape_invariants, maximum_iterations, as_args, name):
    flat, _ = flatten_with_flows(loop_vars)
    invariants = _invariants(loop_vars, flat, shape_invariants)
    specs = [(t.dtype, shape) for t, shape in zip(flat, invariants, strict=True)]
    prefix = f"{_state.graph.unique_name(name, mark_as_used=False).replace('/', '_')}"
    cond_graph, cond_flat, _ = _trace_body(unique_graph_name(prefix + "_cond"), cond, loop_vars,
                                           specs, as_args, is_cond=True)
    pred = cond_flat[0]
    if pred.dtype != dtypes.bool_ or pred.shape.rank not in (None, 0):
        raise TypeError(f"cond of dg.while_loop must return a scalar bool tensor, got "
                        f"{pred.dtype.name} of shape {pred.shape}")
    body_graph, body_flat, body_result = _trace_body(unique_graph_name(prefix + "_body"), body,
                                                     loop_vars, specs, as_args)
    _check_iteration(flat, invariants, body_flat)
    sources, (cond_idx, body_idx) = union_captures([cond_graph, body_graph])
    note_variable_reads(sources)
    inputs = list(flat)
    if maximum_iterations is not None:
        inputs.append(convert_to_tensor(maximum_iterations, dtype=dtypes.int32))
    inputs += [capture_value(s) for s in sources]
    cond_fn = GraphFunction(cond_graph, cond_graph.inputs, cond_flat)
    body_fn = GraphFunction(body_graph, body_graph.inputs, body_flat)
    n_vars = len(flat)
    if needs_gradient(inputs):
        body_fn = accumulating(body_fn, n_vars)
    attrs = {"cond": cond_fn, "body": body_fn, "n_vars": n_vars,
             "has_max": maximum_iterations is not None, "cond_inputs": cond_idx,
             "body_inputs": body_idx, "var_specs": tuple(specs),
             "acc_specs": tuple((t.dtype, t.shape) for t in body_fn.outputs[n_vars:])}
    op_def = WHILE if cond_fn.is_stateful or body_fn.is_stateful else STATELESS_WHILE
    outs = apply_op(op_def, inputs, attrs, name)
    attach_control_captures(outs[0].op, [cond_graph, body_graph])
    for out, shape, after in zip(outs[:n_vars], invariants, body_flat, strict=True):
        if shape.rank is None and after.shape.rank is not None:
            # a TensorArray buffer of unknown element shape takes the written one
            out.set_shape(after.shape)
    results = list(outs[:n_vars])
    if not _state.graph.building_function:  # v1 graphs fetch Identity ops (as TF)
        results = [identity(t) for t in results]
    return pack_with_flows(body_result, results)  # TensorArrays keep the body's shapes


__all__ = ["while_loop"]
