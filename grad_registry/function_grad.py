"""Gradient of the function call op (ops/graph_function.py)."""
from __future__ import annotations

from typing import Any, List

from ..framework.func_graph import capture_value
from ..ops.graph_function import (CALL, GraphFunction, call_function, copy_constant, extend_op,
                                  is_constant, trainable)
from ..ops.tensor_array_ops import dense_gradient
from .registry import RegisterGradient


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
    return capture_value(value)  # an outer value captured by the backward graph itself


@RegisterGradient(CALL.type)
def _call_grad(op: Any, *grads: Any) -> List[Any]:
    """Calls f's backward function: d inputs = f_grad(d outputs, forward values)."""
    f = op.get_attr("f")
    mask = tuple(i for i, g in enumerate(grads) if g is not None and trainable(op.outputs[i]))
    result: List[Any] = [None] * len(op.inputs)
    if not mask:
        return result
    back = f.backward(mask)
    missing = f.missing_extras(back)
    if missing:  # a graph op built without a tape: make it also return what back reads
        f = f.extended(missing)
        extend_op(op, {"f": f}, f.output_specs[len(op.outputs):])
    extras = [resolve_extra(f, op.inputs, op.outputs, v) for v in back.extras]
    outs = call_function(back.fn, [dense(grads[i]) for i in mask] + extras)
    for j, grad in zip(back.input_grads, outs, strict=True):
        result[j] = grad
    return result
