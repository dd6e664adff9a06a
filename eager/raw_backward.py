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

Trust: a cell's program is for a gradient with the output's shape and dtype;
the sweep compares them only while it is not *trusted*. Trusted means every
gradient so far has its tensor's shape and dtype, which holds from seeds like
their targets while every program run preserves specs
(adjoint_programs.preserves_specs: all cell programs do) and parts of equal
shape and dtype are summed; the first program that does not preserve them ends
the trust for the rest of the sweep. A source's gradient stays in the dict
when the source is itself recorded (`kept`: an intermediate source); every
other gradient is popped when its producer takes it. In a chain the gradient
of a record's first input is what the next record (its producer) takes: it is
held aside rather than put in the dict and popped at once; any other next
record first puts it in the dict (it may add to it).
"""
from __future__ import annotations

import sys
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .adjoint_programs import (UNSUPPORTED, cached_program, cell_program, preserves_specs,
                               signature)
from . import context
from .eager_tensor import EagerTensor
from .tape import BinaryRecord, UnaryRecord

_state = context.state
_ndarray = np.ndarray
_refcount = sys.getrefcount
_add = np.add


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
    trusted = True  # every seed has its target's shape and dtype (see _sweep)
    for i, (target, tid) in enumerate(zip(targets, target_ids, strict=True)):
        seed = output_gradients[i] if output_gradients is not None else None
        value = target.array
        seed = np.ones_like(value) if seed is None else seed.array
        if seed.shape != value.shape or seed.dtype is not value.dtype:
            trusted = False
        old = grads.get(tid)
        grads[tid] = seed if old is None else old + seed
    sources = frozenset(source_ids)
    try:
        with np.errstate(all="ignore"):
            _sweep(producers, grads, sources, trusted)
    except Exception:  # noqa: BLE001 - any failure: the general pass decides (and raises)
        return None
    result: List[Optional[Any]] = []
    for sid in source_ids:
        g = grads.get(sid)
        result.append(None if g is None else EagerTensor(g))
    return result


def _sweep(producers: dict, grads: dict, sources: frozenset, trusted: bool) -> None:
    """The reverse sweep (module docstring: trust, chains); a unary or binary record
    runs its cell's program, any other is `_general_step`; RawPathUnsupported."""
    get = grads.get
    pop = grads.pop
    kept = frozenset([s for s in sources if s in producers]) or None  # see module doc
    chain_id = None  # a first input's gradient not yet in the dict: `chained`
    chained: Any = None
    last = None
    for record in reversed(producers.values()):
        kind = type(record)
        if kind is UnaryRecord or kind is BinaryRecord:
            oid = record.out_id
            unary = kind is UnaryRecord
        else:
            if chain_id is not None:
                grads[chain_id] = chained
                chain_id = chained = None
            if record is not last:  # a multi-output record is stored once per output
                last = record
                trusted = _general_step(record, grads, sources, trusted)
            continue
        if oid == chain_id:
            grad = chained
            chain_id = chained = None
        else:
            if chain_id is not None:
                grads[chain_id] = chained
                chain_id = chained = None
            grad = get(oid) if kept is not None and oid in kept else pop(oid, None)
            if grad is None:
                continue
        cell = record.cell
        program = cell[1]
        if program is None or not trusted and (grad.dtype is not (sig := cell[0])[-1] or
                                               grad.shape != sig[-2]):
            program, trusted = _cell_program(record, grad, trusted)
        if unary:
            (gx,) = program(record, grad)
            gy = None
        else:
            gx, gy = program(record, grad)
        del grad  # dead once its program ran (as every local gradient below: peak memory)
        if gx is not None:
            tid = record.x_id
            if tid in grads or not unary and tid == record.y_id or \
                    kept is not None and tid in kept:
                add_part(grads, tid, gx)
            else:
                chain_id = tid
                chained = gx
        if gy is not None:
            add_part(grads, record.y_id, gy)
        del gx, gy
    if chain_id is not None:
        grads[chain_id] = chained


def _cell_program(record: Any, grad: Any, trusted: bool) -> Tuple[Any, bool]:
    """The program of a unary or binary record for `grad`, and whether the sweep stays
    trusted; RawPathUnsupported when the record has no program."""
    program = cell_program(record, grad)
    if program is UNSUPPORTED:
        raise RawPathUnsupported(record.op_def.type)
    return program, trusted and preserves_specs(program)


def _general_step(record: Any, grads: dict, sources: frozenset, trusted: bool) -> bool:
    """Runs the program of an OpRecord (any op: found by its signature) on its output
    gradients, adding its input gradients; returns whether the sweep stays trusted."""
    out_ids = record.output_ids
    if len(out_ids) == 1:
        tid = out_ids[0]
        grad = grads.get(tid) if tid in sources else grads.pop(tid, None)
        if grad is None:
            return trusted
    else:
        grad = tuple([grads.get(t) if t in sources else grads.pop(t, None) for t in out_ids])
        if all(g is None for g in grad):
            return trusted
    program = cached_program(record, grad, signature(record, grad))
    if program is UNSUPPORTED:
        raise RawPathUnsupported(record.gradient_name)
    in_grads = program(record, grad)
    del grad
    for tid, g in zip(record.input_ids, in_grads, strict=True):
        if g is not None:
            add_part(grads, tid, g)
    return trusted and preserves_specs(program)


def add_part(grads: dict, tid: int, g: Any) -> None:
    """Adds gradient part `g` to tensor `tid`'s sum in `grads`.

    In place (as hand-written code does `gx += g`) when nothing but the sweep's dict
    can see the array so far: it owns its memory, is writable, and its only
    references are the dict's and ours (NumPy elides temporaries by the same
    reference-count test). A tensor's gradient is complete, and handed on, only when
    its producer is reached, so no program has seen the sum before; otherwise (a
    seed, a constant, an EagerTensor's value, a view) a new array is made."""
    old = grads.get(tid)
    if old is None:
        grads[tid] = g
    elif type(old) is _ndarray and _refcount(old) == 3 and old.base is None \
            and g.dtype is old.dtype and old.flags.writeable:
        _add(old, g, old)  # refs: the dict, `old`, getrefcount's argument
    else:
        grads[tid] = old + g
