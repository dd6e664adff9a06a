"""Calling a registered gradient function on a tape entry, the one way the eager
engine does it: eagerly in the tensors mode of the backward loop, and on
placeholders when the arrays mode traces the function into an adjoint program
(eager/imperative_grad.py, eager/adjoint_programs.py).

Zeros stand in for the absent gradients of a multi-output op's differentiable
outputs, except where the function declared it takes None; the result is one
gradient (or None) per input, checked against the op's input count."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from .aggregation import zeros_for
from .registry import NOT_REGISTERED, accepts_none, find_gradient, get_gradient_function


def gradient_of(entry: Any, grad: Any, zeros_cache: Dict[Any, Any]) -> Optional[Sequence[Any]]:
    """The input gradients `entry`'s gradient function gives for `grad` (its one
    output's gradient, or a list for several outputs with None where none arrived);
    None for a non-differentiable op; LookupError naming the op when no gradient is
    registered; ValueError on a wrong count. An adjoint program has this signature."""
    grad_fn = find_gradient(entry.gradient_name)
    if grad_fn is NOT_REGISTERED:
        get_gradient_function(entry)  # raises the LookupError naming the op
    if grad_fn is None:
        return None
    n = len(entry.input_ids)
    if len(entry.output_ids) == 1:
        in_grads = grad_fn(entry, grad)
    else:
        out_grads = list(grad)
        fill_absent_output_grads(entry, out_grads, zeros_cache)
        in_grads = grad_fn(entry, *out_grads)
    if type(in_grads) is not tuple and type(in_grads) is not list:
        in_grads = (in_grads,)
    if len(in_grads) != n:
        raise ValueError(f"Num gradients {len(in_grads)} generated for op {entry.type} do "
                         f"not match num inputs {n}")
    return in_grads


def fill_absent_output_grads(entry: Any, out_grads: List[Any],
                             zeros_cache: Dict[Any, Any]) -> None:
    """Zeros in place of the absent gradients of `entry`'s differentiable outputs,
    except where its gradient function takes None (`accepts_none`); one zero tensor
    per (shape, dtype) in `zeros_cache`."""
    none_ok = None
    for i, g in enumerate(out_grads):
        if g is None:
            if none_ok is None:
                none_ok = accepts_none(entry)
            out = entry.outputs[i]
            if i not in none_ok and out.dtype.is_differentiable:
                key = (out.shape, out.dtype)
                zero = zeros_cache.get(key)
                if zero is None:
                    zero = zeros_cache[key] = zeros_for(out)
                out_grads[i] = zero
