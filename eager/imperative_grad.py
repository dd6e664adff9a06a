"""Tape-mode backprop (TensorFlow's `imperative_grad`).

Filter the tape to the entries between the targets and the sources; seed the
targets; walk the entries newest first (the raw sweep's order: a tensor's
consumers all ran after its producer, so when an entry is reached every
gradient of its outputs has arrived); call each gradient function on the entry
(zeros fill absent output gradients unless the function takes None there);
pass input gradients on, summing early when many large ones pile up; release
each gradient and entry as soon as nothing needs it.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..grad_registry.aggregation import aggregate, zeros_for
from ..grad_registry.registry import (NOT_REGISTERED, accepts_none, find_gradient,
                                      get_gradient_function)
from .eager_tensor import EagerTensor
from .tape import entry_view
from ..ops.array import array_ops

# Sum a tensor's pending gradients early once this many, this large, pile up.
# TensorFlow waits for 4 parts and 128 MiB; summing as soon as two parts total
# 1 MiB keeps at most one extra large gradient alive (what hand-written code
# holds), while small gradients are still summed once, by one add_n.
MIN_AGGREGATE_COUNT = 2
MIN_AGGREGATE_BYTES = 1024 * 1024


def _relevant(producers: Dict[int, Any], target_ids: Sequence[int],
              source_ids: Sequence[int]) -> tuple:
    """The entries between targets and sources in execution order (their `seq`: the
    tensor id of their first output, and every output is made after every input),
    and the ids of the tensors the sources influence."""
    views: Dict[int, Any] = {}  # id(record) -> its TapeEntry view, built once
    stack = list(target_ids)
    seen = set(stack)
    get = producers.get
    while stack:
        record = get(stack.pop())
        if record is None or id(record) in views:
            continue
        entry = views[id(record)] = entry_view(record)
        for tid in entry.input_ids:
            if tid not in seen:
                seen.add(tid)
                stack.append(tid)
    # One pass in execution order: an entry is relevant when a source influences
    # one of its inputs.
    influenced = set(source_ids)
    relevant = []
    for entry in sorted(views.values(), key=_seq):
        for tid in entry.input_ids:
            if tid in influenced:
                influenced.update(entry.output_ids)
                relevant.append(entry)
                break
    return relevant, influenced


def _seq(entry: Any) -> int:
    return entry.seq


def imperative_grad(producers: Dict[int, Any], targets: Sequence[Any], target_ids: Sequence[int],
                    source_ids: Sequence[int], output_gradients: Optional[Sequence[Any]],
                    release: bool) -> List[Optional[Any]]:
    """Gradients of the sum of `targets` w.r.t. each source id (None: not connected).

    `release`: the tape is not persistent, so entries may be dropped as used.
    """
    relevant, influenced = _relevant(producers, target_ids, source_ids)
    sources = set(source_ids)
    grads = _seeds(targets, target_ids, output_gradients)
    zeros_cache: Dict[Any, Any] = {}
    pending_bytes: Dict[int, int] = {}
    for entry in reversed(relevant):
        out_grads = _output_gradients(entry, grads, sources)
        in_grads = None if out_grads is None else _input_gradients(entry, out_grads,
                                                                   zeros_cache)
        if in_grads is not None:
            for tid, grad in zip(entry.input_ids, in_grads, strict=True):
                if grad is not None and tid in influenced:
                    add_part(grads, pending_bytes, tid, grad)
        if release:
            for tid in entry.output_ids:
                producers.pop(tid, None)
    return [_total(grads.get(sid)) for sid in source_ids]


def _seeds(targets: Sequence[Any], target_ids: Sequence[int],
           output_gradients: Optional[Sequence[Any]]) -> Dict[int, list]:
    """Each target's gradient parts: its output gradient, or ones like it."""
    grads: Dict[int, list] = {}
    for i, (target, tid) in enumerate(zip(targets, target_ids, strict=True)):
        seed = output_gradients[i] if output_gradients is not None else None
        if seed is None:
            seed = array_ops.ones_like(target)
        grads.setdefault(tid, []).append(seed)
    return grads


def _total(parts: Optional[list]) -> Any:
    """The sum of a tensor's gradient parts (None: no part arrived)."""
    return None if not parts else parts[0] if len(parts) == 1 else aggregate(parts)


def _output_gradients(entry: Any, grads: Dict[int, list], sources: set) -> Optional[list]:
    """The summed gradient of each output of `entry` (None where none arrived), taken
    out of `grads` unless the output is a source; None when no output has one."""
    out_grads = []
    for tid in entry.output_ids:
        parts = grads.get(tid) if tid in sources else grads.pop(tid, None)
        out_grads.append(_total(parts))
    if len(out_grads) == 1:
        return None if out_grads[0] is None else out_grads
    return None if all(g is None for g in out_grads) else out_grads


def _input_gradients(entry: Any, out_grads: list, zeros_cache: dict) -> Any:
    """The entry's gradient function called on its output gradients (None for a
    non-differentiable op); LookupError naming the op when none is registered."""
    grad_fn = find_gradient(entry.gradient_name)
    if grad_fn is NOT_REGISTERED:
        get_gradient_function(entry)  # raises the LookupError naming the op
    if grad_fn is None:
        return None
    if len(out_grads) == 1 and len(entry.input_ids) == 1:
        in_grads = grad_fn(entry, out_grads[0])
        if type(in_grads) is not tuple and type(in_grads) is not list:
            return (in_grads,)
        if len(in_grads) != 1:
            raise _count_error(entry, len(in_grads))
        return in_grads
    return _call(entry, grad_fn, out_grads, zeros_cache)


def add_part(grads: Dict[int, list], pending_bytes: Dict[int, int], tid: int,
             grad: Any) -> None:
    """Adds gradient part `grad` to tensor `tid`'s parts, summing them early once
    MIN_AGGREGATE_COUNT parts of MIN_AGGREGATE_BYTES in all pile up (a running total:
    summing every part on each append would be quadratic)."""
    parts = grads.get(tid)
    if parts is None:
        grads[tid] = [grad]
        return
    parts.append(grad)
    if len(parts) >= MIN_AGGREGATE_COUNT:
        size = pending_bytes.get(tid) or _nbytes(parts[:-1])
        if type(grad) is EagerTensor:
            size += grad.array.nbytes
        pending_bytes[tid] = size
        if size >= MIN_AGGREGATE_BYTES:
            grads[tid] = [aggregate(parts)]
            pending_bytes[tid] = _nbytes(grads[tid])


def fill_absent_output_grads(entry: Any, out_grads: list, zeros_cache: dict) -> None:
    """Zeros in place of the absent gradients of a multi-output op's differentiable
    outputs, except where its gradient function takes None (`accepts_none`)."""
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


def _call(entry: Any, grad_fn: Any, out_grads: list, zeros_cache: dict) -> Any:
    """Zeros for absent output gradients, then the gradient function, checked."""
    if len(out_grads) > 1:
        fill_absent_output_grads(entry, out_grads, zeros_cache)
    in_grads = grad_fn(entry, *out_grads)
    n = len(entry.input_ids)
    if type(in_grads) is not tuple and type(in_grads) is not list:
        if n == 1:
            return (in_grads,)
        in_grads = (in_grads,)
    if len(in_grads) != n:
        raise _count_error(entry, len(in_grads))
    return in_grads


def _count_error(entry: Any, count: int) -> ValueError:
    return ValueError(f"Num gradients {count} generated for op {entry.type} do not match "
                      f"num inputs {len(entry.input_ids)}")


def _nbytes(parts: Sequence[Any]) -> int:
    total = 0
    for g in parts:
        if type(g) is EagerTensor:
            total += g.array.nbytes
    return total
