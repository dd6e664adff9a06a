"""Tape-mode backprop (TensorFlow's `imperative_grad`).

Filter the tape to the entries between the targets and the sources while
counting how many entries use each tensor and how many outputs of each
entry still wait for gradients; seed the targets; pop ready entries from a
stack; call each gradient function on the entry (zeros fill absent output
gradients unless the function takes None there); pass input gradients on,
summing early when many large ones pile up; release each gradient and entry
as soon as nothing needs it.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..grad_registry.aggregation import aggregate, zeros_for
from ..grad_registry.registry import accepts_none, get_gradient_function
from ..ops import array_ops

# Sum a tensor's pending gradients early once this many, this large, pile up.
MIN_AGGREGATE_COUNT = 4
MIN_AGGREGATE_BYTES = 128 * 1024 * 1024


def _prepare(producers: Dict[int, Any], target_ids: Sequence[int], source_ids: Sequence[int]):
    """Entries between targets and sources, usage counts and missing-output counts."""
    reachable: Dict[int, Any] = {}
    stack = list(target_ids)
    seen = set(stack)
    while stack:
        entry = producers.get(stack.pop())
        if entry is None or id(entry) in reachable:
            continue
        reachable[id(entry)] = entry
        for tid in entry.input_ids:
            if tid not in seen:
                seen.add(tid)
                stack.append(tid)
    influenced = set(source_ids)
    relevant = []
    for entry in sorted(reachable.values(), key=_seq):
        for tid in entry.input_ids:
            if tid in influenced:
                influenced.update(entry.output_ids)
                relevant.append(entry)
                break
    usage: Dict[int, int] = {}
    for entry in relevant:
        for tid in entry.input_ids:
            if tid in influenced:
                usage[tid] = usage.get(tid, 0) + 1
    missing: Dict[int, int] = {}
    for entry in relevant:
        missing[id(entry)] = sum(1 for tid in entry.output_ids if usage.get(tid, 0) > 0)
    return relevant, influenced, usage, missing


def _seq(entry: Any) -> int:
    return entry.seq


def imperative_grad(producers: Dict[int, Any], targets: Sequence[Any], target_ids: Sequence[int],
                    source_ids: Sequence[int], output_gradients: Optional[Sequence[Any]],
                    release: bool) -> List[Optional[Any]]:
    """Gradients of the sum of `targets` w.r.t. each source id (None: not connected).

    `release`: the tape is not persistent, so entries may be dropped as used.
    """
    relevant, influenced, usage, missing = _prepare(producers, target_ids, source_ids)
    sources = set(source_ids)
    grads: Dict[int, list] = {}
    for i, (target, tid) in enumerate(zip(targets, target_ids)):
        seed = output_gradients[i] if output_gradients is not None else None
        if seed is None:
            seed = array_ops.ones_like(target)
        grads.setdefault(tid, []).append(seed)
    relevant_ids = {id(e) for e in relevant}
    entry_of = {}
    for entry in relevant:
        for tid in entry.output_ids:
            entry_of[tid] = entry
    ready = [e for e in relevant if missing[id(e)] == 0]
    ready.sort(key=_seq)
    zeros_cache: Dict[Any, Any] = {}
    pending_bytes: Dict[int, int] = {}
    while ready:
        entry = ready.pop()
        out_grads = []
        any_grad = False
        for tid in entry.output_ids:
            parts = grads.get(tid) if tid in sources else grads.pop(tid, None)
            if parts:
                any_grad = True
                out_grads.append(parts[0] if len(parts) == 1 else aggregate(parts))
            else:
                out_grads.append(None)
        if any_grad:
            grad_fn = get_gradient_function(entry)
            in_grads = _call(entry, grad_fn, out_grads, zeros_cache) if grad_fn else None
        else:
            in_grads = None
        for i, tid in enumerate(entry.input_ids):
            if tid not in influenced:
                continue
            if in_grads is not None:
                grad = in_grads[i]
                if grad is not None:
                    parts = grads.setdefault(tid, [])
                    parts.append(grad)
                    # a running total: summing every part on each append is quadratic
                    size = pending_bytes[tid] = pending_bytes.get(tid, 0) + _nbytes((grad,))
                    if len(parts) >= MIN_AGGREGATE_COUNT and size >= MIN_AGGREGATE_BYTES:
                        grads[tid] = [aggregate(parts)]
                        pending_bytes[tid] = _nbytes(grads[tid])
            count = usage[tid] - 1
            usage[tid] = count
            if count == 0:
                producer = entry_of.get(tid)
                if producer is not None and id(producer) in relevant_ids:
                    left = missing[id(producer)] - 1
                    missing[id(producer)] = left
                    if left == 0:
                        ready.append(producer)
        if release:
            for tid in entry.output_ids:
                producers.pop(tid, None)
    result = []
    for sid in source_ids:
        parts = grads.get(sid)
        result.append(None if not parts else parts[0] if len(parts) == 1 else aggregate(parts))
    return result


def _call(entry: Any, grad_fn: Any, out_grads: list, zeros_cache: dict) -> list:
    """Zeros for absent output gradients, then the gradient function, checked."""
    if any(g is None for g in out_grads):
        none_ok = accepts_none(entry)
        for i, g in enumerate(out_grads):
            if g is None and i not in none_ok:
                out = entry.outputs[i]
                if out.dtype.is_differentiable:
                    key = (out.shape, out.dtype)
                    zero = zeros_cache.get(key)
                    if zero is None:
                        zero = zeros_cache[key] = zeros_for(out)
                    out_grads[i] = zero
    in_grads = grad_fn(entry, *out_grads)
    if not isinstance(in_grads, (list, tuple)):
        in_grads = (in_grads,)
    if len(in_grads) != len(entry.input_ids):
        raise ValueError(f"Num gradients {len(in_grads)} generated for op {entry.type} do not "
                         f"match num inputs {len(entry.input_ids)}")
    return in_grads


def _nbytes(parts: list) -> int:
    total = 0
    for g in parts:
        array = getattr(g, "array", None)
        total += array.nbytes if array is not None else 0
    return total
