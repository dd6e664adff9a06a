"""Gradient of the function call op (ops/functions/graph_function.py)."""
from __future__ import annotations

from typing import Any, List

from ..framework.func_graph import capture_value
from ..framework.graph import Operation
from ..ops.array.array_ops import zeros_like
from ..ops.functions.graph_function import (CALL, STATEFUL_CALL, GraphFunction, call_function,
                                            copy_constant, extend_op, is_constant, trainable)
from ..ops.control_flow.tensor_array_ops import dense_gradient
from .registry import RegisterGradient, calls_user_code


def dense(grad: Any) -> Any:
    return dense_gradient(grad)


def resolve_extra(fn: GraphFunction, inputs: Any, outputs: Any, value: Any) -> Any:
    """The value, where the op is, of a forward tensor a backward function reads."""
    if is_constant(value):
        return copy_constant(value)
    j = fn.input_index(value)
    if j is not None:
        return inputs[j]
    k = fn.output_index(value)
    if k is not None:
        return outputs[k]
    late = fn.late_capture(value)
    if late is not None:
        return late
    return capture_value(value)  # an outer value captured by the backward graph itself


@RegisterGradient(STATEFUL_CALL.type)
@RegisterGradient(CALL.type)
@calls_user_code
def _call_grad(op: Any, *grads: Any) -> List[Any]:
    """Calls f's backward function: d inputs = f_grad(d outputs, forward values)."""
    f = op.get_attr("f")
    mask = tuple(i for i, g in enumerate(grads) if g is not None and trainable(op.outputs[i]))
    result: List[Any] = [None] * len(op.inputs)
    if not mask:
        return result
    back = f.backward(mask)
    missing = f.missing_extras(back)
    if missing and not isinstance(op, Operation):
        # A tape entry cannot grow; its function returns what the backward for all
        # differentiable outputs reads (with_gradient_outputs): use that one, with
        # zero gradients for the outputs that received none.
        full = f.differentiable_outputs()
        full_back = f.backward(full)
        if not f.missing_extras(full_back) and all(
                grads[i] is not None or op.outputs[i].dtype.is_differentiable for i in full):
            grads = tuple(g if g is not None or i not in full else zeros_like(op.outputs[i])
                          for i, g in enumerate(grads))
            mask, back, missing = full, full_back, []
    if missing:  # a graph op built without a tape: make it also return what back reads
        f = f.extended(missing)
        extend_op(op, {"f": f}, f.output_specs[len(op.outputs):])
    extras = [resolve_extra(f, op.inputs, op.outputs, v) for v in back.extras]
    outs = call_function(back.fn, [dense(grads[i]) for i in mask] + extras)
    for j, grad in zip(back.input_grads, outs, strict=True):
        result[j] = grad
    return result
