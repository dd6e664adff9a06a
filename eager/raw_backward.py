"""First-order tape backprop on raw NumPy values, in one reverse sweep.

Used by `GradientTape.gradient` when nothing else could observe the backward
pass: no other tape records, no forward accumulator is active, no graph is
being built, and the tape's records are in execution order. Then the
gradients are never differentiated again, so they need no EagerTensor
identity and no recording: the sweep walks the records newest first, runs
each op's *adjoint program* (its registered gradient function traced once
per signature and compiled to straight-line NumPy code:
eager/adjoint_programs.py) on the record's kept values, and sums each
tensor's incoming gradients as they arrive.

Anything without a program (a gradient that cannot be traced, a multi-output
op, IndexedSlices, an error at run time) abandons the sweep, which has no
side effects, and the general pass (`imperative_grad`) runs instead: it
gives the same values, raises errors at the op with TF's types, and is what
higher-order and forward-over-reverse differentiation always use.

Why one reverse sweep is right: records are stored in execution order and a
tensor's consumers all ran after its producer, so when the sweep reaches a
record every gradient of its outputs has arrived. Records that no gradient
reaches are skipped; records not influenced by the sources only add terms
to tensors that are not sources (gradients are sums over paths).
"""
from __future__ import annotations

import sys
from typing import Any, List, Optional, Sequence

import numpy as np

from .adjoint_programs import UNSUPPORTED, adjoint_program, signature
from . import context
from .eager_tensor import EagerTensor

_state = context.state
_ndarray = np.ndarray


class RawPathUnsupported(Exception):
    """The sweep met something it does not handle: the general pass runs instead."""


def raw_sweep_allowed(tape: Any, targets: Sequence[Any],
                      output_gradients: Optional[Sequence[Any]]) -> bool:
    """True when the raw sweep may replace the general pass (see the module doc)."""
    state = _state
    if state.graph is not None or state.tapes or state.accumulators or not tape.in_order:
        return False
    for t in targets:
        if type(t) is not EagerTensor:
            return False
    if output_gradients is not None:
        for g in output_gradients:
            if g is not None and type(g) is not EagerTensor:
                return False
    return True


def raw_gradient(producers: dict, targets: Sequence[Any], target_ids: Sequence[int],
                 source_ids: Sequence[int],
                 output_gradients: Optional[Sequence[Any]]) -> Optional[List[Optional[Any]]]:
    """Gradients of the sum of `targets` for each source id as EagerTensors (None:
    not connected), or None when the sweep cannot handle this tape."""
    grads: dict = {}
    for i, (target, tid) in enumerate(zip(targets, target_ids, strict=True)):
        seed = output_gradients[i] if output_gradients is not None else None
        seed = np.ones_like(target.array) if seed is None else seed.array
        old = grads.get(tid)
        grads[tid] = seed if old is None else old + seed
    sources = frozenset(source_ids)
    try:
        with np.errstate(all="ignore"):
            _sweep(producers, grads, sources)
    except Exception:  # noqa: BLE001 - any failure: the general pass decides (and raises)
        return None
    result: List[Optional[Any]] = []
    for sid in source_ids:
        g = grads.get(sid)
        result.append(None if g is None else EagerTensor(g))
    return result


def _sweep(producers: dict, grads: dict, sources: frozenset) -> None:
    """The reverse sweep proper; raises RawPathUnsupported for what it does not do.

    A tensor's gradient parts are summed as they arrive, in place (as hand-written
    code does `gx += g`) when nothing but this sweep's dict can see the array so far:
    it owns its memory, is writable, and its only references are the dict's and ours
    (NumPy elides temporaries by the same reference-count test). A tensor's gradient
    is complete, and handed on, only when its producer is reached, so no program has
    seen the sum before; otherwise (a seed, a constant, an EagerTensor's value, a
    view) a new array is made."""
    last = None
    get = grads.get
    refcount = sys.getrefcount
    for record in reversed(producers.values()):
        if record is last:  # a multi-output record is stored once per output
            continue
        last = record
        out_ids = record[4]
        grad: Any
        if len(out_ids) == 1:
            tid = out_ids[0]
            grad = get(tid) if tid in sources else grads.pop(tid, None)
            if grad is None:
                continue
        else:
            grad = tuple([get(t) if t in sources else grads.pop(t, None) for t in out_ids])
            if all(g is None for g in grad):
                continue
        inputs = record[5]
        n_inputs = len(inputs)
        if record[2] or n_inputs > 2 or len(out_ids) != 1:
            key = signature(record, grad)
        else:  # signature() of a one- or two-input op without attrs, inline (hot path)
            x = inputs[0]
            if type(x) is EagerTensor:
                array = x.array
                x_shape, x_dtype = array.shape, array.dtype
            else:
                x_shape, x_dtype = x
            y = record[6][0]
            if type(y) is EagerTensor:
                array = y.array
                y_shape, y_dtype = array.shape, array.dtype
            else:
                y_shape, y_dtype = y
            if n_inputs == 1:
                key = (record[1], record[7], None, x_shape, x_dtype, y_shape, y_dtype,
                       grad.shape, grad.dtype)
            else:
                z = inputs[1]
                if type(z) is EagerTensor:
                    array = z.array
                    z_shape, z_dtype = array.shape, array.dtype
                else:
                    z_shape, z_dtype = z
                key = (record[1], record[7], None, x_shape, x_dtype, z_shape, z_dtype,
                       y_shape, y_dtype, grad.shape, grad.dtype)
        programs = record[0].adjoint_programs
        program = programs.get(key) if programs is not None else None
        if program is None:
            program = adjoint_program(record, grad, key)
        if program is UNSUPPORTED:
            raise RawPathUnsupported(record[1])
        in_grads = program(inputs, record[6], grad)
        in_ids = record[3]
        for i in range(n_inputs):
            g = in_grads[i]
            if g is not None:
                tid = in_ids[i]
                old = get(tid)
                if old is None:
                    grads[tid] = g
                elif type(old) is _ndarray and old.base is None and refcount(old) == 3 \
                        and g.dtype is old.dtype and old.flags.writeable:
                    np.add(old, g, out=old)  # refs: the dict, `old`, getrefcount's argument
                else:
                    grads[tid] = old + g
