"""Gradients of `If` (ops/control_flow/cond_ops.py) and `While` (ops/control_flow/while_loop_ops.py).

Both run the backward function of their body graphs (GraphFunction.backward)
on the forward values the forward op returned as extra outputs: for `If` the
gradient is another `If` choosing the taken branch's backward function; for
`While` it is a loop running the body's backward function once per forward
iteration, last first, on that iteration's accumulated values.
"""
from __future__ import annotations

import functools
from typing import Any, Dict, List

from ..framework.tensor_shape import TensorShape
from ..ops.array import array_ops
from ..ops.math import math_ops
from ..ops.control_flow.cond_ops import IF, STATELESS_IF, cond
from ..ops.control_flow.switch_case import CASE, STATELESS_CASE, switch_case
from ..ops.control_flow.control_flow_ops import NO_OP
from ..ops.functions.graph_function import (call_function, copy_constant, extend_op, is_constant,
                                            trainable)
from ..ops.array.indexed_slices_ops import gather
from ..ops.control_flow.tensor_array_ops import (SCATTER_ROWS, TA_MASK_ROWS, TA_NEW, TA_SCATTER,
                                                 TA_WRITE, mask_rows)
from ..ops.control_flow.while_loop_ops import (STATELESS_WHILE, WHILE, missing_accumulators,
                                               while_loop)
from .aggregation import zeros_for
from .function_grad import dense, resolve_extra
from .registry import NotDifferentiable, RegisterGradient, calls_user_code


def _zeros_for(tensor: Any, like: Any) -> Any:
    """Zeros for the gradient of `tensor` (a resource's gradient is shaped like `like`)."""
    if tensor.dtype.is_differentiable:
        return array_ops.zeros_like(tensor)
    shape = like.shape
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot build a zero gradient of unknown shape {shape} for {tensor}")
    return array_ops.zeros(shape, like.dtype)


def _branch_plan(op: Any, b: int, grads: tuple):
    """The backward of branch b for the gradients its outputs receive (op extended
    with the forward values it reads when needed)."""
    fn = op.get_attr("branches")[b]
    slots = op.get_attr("branch_outputs")[b]
    grads_b = [grads[s] for s in slots]
    mask = tuple(k for k, g in enumerate(grads_b) if g is not None and trainable(fn.outputs[k]))
    if not mask:
        return None
    back = fn.backward(mask)
    missing = fn.missing_extras(back)
    if missing:
        fn = fn.extended(missing)
        start = len(op.outputs)
        new_slots = tuple(slots) + tuple(range(start, start + len(missing)))
        branches = list(op.get_attr("branches"))
        outputs_map = list(op.get_attr("branch_outputs"))
        branches[b], outputs_map[b] = fn, new_slots
        specs = [(t.dtype, TensorShape(None)) for t in missing]
        named = {"then_branch": branches[0], "else_branch": branches[1]} \
            if "then_branch" in op.attrs else {}
        extend_op(op, {"branches": tuple(branches), "branch_outputs": tuple(outputs_map), **named,
                       "output_specs": tuple(op.get_attr("output_specs")) + tuple(specs)}, specs)
        slots = new_slots
    return fn, back, [dense(grads_b[k]) for k in mask], slots


@RegisterGradient(STATELESS_CASE.type)
@RegisterGradient(CASE.type)
@RegisterGradient(STATELESS_IF.type)
@RegisterGradient(IF.type)
@calls_user_code
def _if_grad(op: Any, *grads: Any) -> List[Any]:
    """An If (Case) over the branches' backward functions: d ext = branch_grad(d outputs)."""
    pred, ext = op.inputs[0], list(op.inputs[1:])
    plans = [_branch_plan(op, b, grads) for b in range(len(op.get_attr("branches")))]
    branch_inputs = op.get_attr("branch_inputs")
    targets: Dict[int, Any] = {}
    for b, plan in enumerate(plans):
        if plan is not None:
            fn, back, _, _ = plan
            for j, out in zip(back.input_grads, back.fn.outputs, strict=True):
                targets.setdefault(branch_inputs[b][j], out)
    result: List[Any] = [None] * len(op.inputs)
    if not targets:
        return result
    order = sorted(targets)

    def branch_grad(b: int) -> list:
        by_ext: Dict[int, Any] = {}
        plan = plans[b]
        if plan is not None:
            fn, back, grads_b, slots = plan
            own_inputs = [ext[i] for i in branch_inputs[b]]
            own_outputs = [op.outputs[s] for s in slots]
            extras = [resolve_extra(fn, own_inputs, own_outputs, v) for v in back.extras]
            outs = call_function(back.fn, grads_b + extras)
            for j, g in zip(back.input_grads, outs, strict=True):
                by_ext[branch_inputs[b][j]] = g
        return [by_ext[m] if m in by_ext else _zeros_for(ext[m], targets[m]) for m in order]

    if op.type in (IF.type, STATELESS_IF.type):
        outs = cond(pred, lambda: branch_grad(0), lambda: branch_grad(1), name="cond_grad")
    else:
        outs = switch_case(pred, [functools.partial(branch_grad, b) for b in range(len(plans))],
                           name="switch_case_grad")
    for m, g in zip(order, outs, strict=True):
        result[1 + m] = g
    return result


def _differentiable(tensor: Any) -> bool:
    return tensor.dtype.is_differentiable


def _extend_while(op: Any, body: Any, missing: list) -> Any:
    """Makes the graph While op also accumulate the body tensors `missing`."""
    body = body.extended(missing)
    specs = [(t.dtype, t.shape) for t in missing]
    stacked = [(dtype, TensorShape(None) if shape.rank is None else
                TensorShape([None] + shape.as_list())) for dtype, shape in specs]
    extend_op(op, {"body": body, "acc_specs": tuple(op.get_attr("acc_specs")) + tuple(specs)},
              stacked)
    return body


@RegisterGradient(STATELESS_WHILE.type)
@RegisterGradient(WHILE.type)
@calls_user_code
def _while_grad(op: Any, *grads: Any) -> List[Any]:
    """A loop over the iterations, last first: (d vars, d ext) += body_grad(d vars, values_i)."""
    n = op.get_attr("n_vars")
    body = op.get_attr("body")
    ext_start = n + (1 if op.get_attr("has_max") else 0)
    ext = list(op.inputs[ext_start:])
    body_inputs = op.get_attr("body_inputs")
    n_acc = len(body.outputs) - n
    var_mask = [k for k in range(n) if _differentiable(body.outputs[k])]
    acc_grads = {a: dense(grads[n + 1 + a]) for a in range(n_acc)
                 if grads[n + 1 + a] is not None and _differentiable(body.outputs[n + a])}
    mask = tuple(var_mask + [n + a for a in sorted(acc_grads)])
    result: List[Any] = [None] * len(op.inputs)
    if not mask:
        return result
    back = body.backward(mask)
    # Outer inputs the running gradients() call does not need (not between its ys and
    # xs, e.g. a loop's input sequence when only the weights are sources) are neither
    # computed nor summed over the iterations: the backward body returns only the rest,
    # and reads only the forward values those need (no accumulator gathered for nothing).
    skip = op.skip_input_indices
    kept = [k for k, j in enumerate(back.input_grads)
            if j < n or ext_start + body_inputs[j - n] not in skip]
    back_fn = back.fn
    if len(kept) < len(back.input_grads):
        back_fn = back.fn.subset(kept)
    acc_order = sorted(acc_grads)
    n_seeds = len(var_mask) + len(acc_order)
    used = back_fn.used_inputs()
    if len(used) < len(back_fn.inputs):
        back_fn = back_fn.with_inputs(used)
    else:
        used = tuple(range(len(back_fn.inputs)))
    used_extras = [k - n_seeds for k in used if k >= n_seeds]
    missing = missing_accumulators(body, n, [back.extras[e] for e in used_extras])
    if missing:
        body = _extend_while(op, body, missing)
    n_iter = op.outputs[n]
    acc_slot = {id(t): a for a, t in enumerate(body.outputs[n:])}
    resolved: List[tuple] = []  # per used extra: (accumulator index, None) or (None, value)
    for value in (back.extras[e] for e in used_extras):
        j = body.input_index(value)
        if is_constant(value):
            resolved.append((None, copy_constant(value)))
        elif j is not None and j >= n:
            resolved.append((None, ext[body_inputs[j - n]]))
        elif id(value) in acc_slot:
            resolved.append((acc_slot[id(value)], None))
        elif body.late_capture(value) is not None:  # an outer value: loop invariant
            resolved.append((None, body.late_capture(value)))
        else:
            resolved.append((None, resolve_extra(body, [], [], value)))
    accs = list(op.outputs[n + 1:])
    var_grads = [grads[k] if grads[k] is not None else zeros_for(op.outputs[k])
                 for k in var_mask]
    var_grads = [dense(g) for g in var_grads]
    input_grads = [back.input_grads[k] for k in kept]
    ext_targets = sorted({body_inputs[j - n] for j in input_grads if j >= n})
    like = {body_inputs[j - n]: out for j, out in zip(input_grads, back_fn.outputs, strict=True) if j >= n}
    ext_grads = [_zeros_for(ext[m], like[m]) for m in ext_targets]
    used_seeds = [k for k in used if k < n_seeds]

    def loop_cond(j, dvars, dexts):
        return math_ops.less(j, n_iter)

    def loop_body(j, dvars, dexts):
        i = n_iter - 1 - j
        extras = [gather(accs[a], i) if a is not None else v for a, v in resolved]
        seeds = list(dvars) + [gather(acc_grads[a], i) for a in acc_order]
        args = [seeds[k] for k in used_seeds] + extras
        got = dict(zip(input_grads, call_function(back_fn, args), strict=True))
        new_dvars = [got[k] if k in got else array_ops.zeros_like(d)
                     for k, d in zip(var_mask, dvars, strict=True)]
        by_ext: Dict[int, Any] = {}
        for jj, g in got.items():
            if jj >= n:
                by_ext[body_inputs[jj - n]] = g
        new_dexts = [d + by_ext[m] if m in by_ext else d for m, d in zip(ext_targets, dexts, strict=True)]
        return j + 1, new_dvars, new_dexts

    _, var_grads, ext_grads = while_loop(loop_cond, loop_body, (0, var_grads, ext_grads),
                                         name="while_grad")
    for k, g in zip(var_mask, var_grads, strict=True):
        result[k] = g
    for m, g in zip(ext_targets, ext_grads, strict=True):
        result[ext_start + m] = g
    return result


@RegisterGradient(TA_WRITE.type)
def _ta_write_grad(op: Any, dbuf: Any, dwritten: Any, dsize: Any) -> List[Any]:
    """d buf = dbuf without row index (old size); d value = dbuf[index]."""
    if dbuf is None:
        return [None, None, None, None]
    dbuf = dense(dbuf)
    index = op.inputs[2]
    return [mask_rows(dbuf, index, op.outputs[2]), None, None, gather(dbuf, index)]


@RegisterGradient(TA_SCATTER.type)
def _ta_scatter_grad(op: Any, dbuf: Any, dwritten: Any, dsize: Any) -> List[Any]:
    """d buf = dbuf without rows indices (old size); d values = dbuf[indices]."""
    if dbuf is None:
        return [None, None, None, None]
    dbuf = dense(dbuf)
    indices = op.inputs[2]
    return [mask_rows(dbuf, indices, op.outputs[2]), None, None, gather(dbuf, indices)]


@RegisterGradient(TA_MASK_ROWS.type)
def _mask_rows_grad(op: Any, grad: Any) -> List[Any]:
    """The adjoint: mask the same rows, resized back to the input's row count."""
    x = op.inputs[0]
    return [mask_rows(dense(grad), op.inputs[1], gather(array_ops.shape(x), 0)), None, None]


NotDifferentiable(TA_NEW.type)
NotDifferentiable(NO_OP.type)


@RegisterGradient(SCATTER_ROWS.type)
def _scatter_rows_grad(op: Any, grad: Any) -> List[Any]:
    """d values = grad[indices]."""
    return [gather(dense(grad), op.inputs[1]), None, None]
