"""Tape backprop (TensorFlow's `imperative_grad`): one backward loop, two modes.

The loop walks the tape's records newest first. A tensor's consumers all ran
after its producer, so when a record is reached every gradient of its outputs
has arrived: the loop takes them (summed, `total`), runs the record's gradient
and adds each input gradient to that input's sum (`add_part`). A source's
gradient stays in the dict when the source is itself recorded (`kept`); every
other is taken out, and dies, when its producer runs.

The loop is written once (`_WALK`) and generated into its two modes, as the
eager executor and the Session plan are, so that each runs in one frame:
- **tensors** (`imperative_grad`): any tape. Only the records between the
  targets and the sources are walked (`_relevant`); each calls its gradient
  function eagerly (grad_registry/calling.gradient_of), so its ops run and
  are recorded by any outer tape or accumulator: higher-order and
  forward-over-reverse differentiation use this mode. Gradients are tensors;
  several parts of one are summed once, by add_n as in TF, when taken.
- **arrays** (`array_gradients`): first order when nothing else can observe
  the backward pass (`arrays_mode_allowed`: no other tape or accumulator, no
  graph, records in execution order). Gradients are NumPy arrays; a record
  runs its *adjoint program* (eager/adjoint_programs.py: its gradient
  function traced once per signature, when the reuse rule allows it) and
  parts are summed as they arrive, in place when only the loop sees the sum.
  Unary and binary records (`CellRecord`) take a specialised step in the same
  loop. Anything without a program abandons the walk, which has no side
  effects, and the tensors mode runs instead: the same values, and errors
  raised at the op with TF's types.

Trust (arrays mode): a cell's program is for a gradient with the output's
shape and dtype; the loop compares them only while not *trusted*. Trusted
means every gradient so far has its tensor's shape and dtype: it holds from
seeds like their targets while every program run preserves specs
(adjoint_programs.preserves_specs: all cell programs do) and parts of equal
shape and dtype are summed. In a chain the gradient of a cell's first input
is what the next record (its producer) takes: it is held aside (`chained`)
rather than put in the dict and popped at once.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ..grad_registry.aggregation import aggregate
from ..grad_registry.calling import gradient_of
from . import context
from .adjoint_programs import (UNSUPPORTED, cached_program, cell_program, preserves_specs,
                               signature)
from .eager_tensor import EagerTensor
from .tape import BinaryRecord, UnaryRecord, entry_view
from ..ops.array import array_ops

# The tensors mode sums a tensor's parts early once they hold this many bytes.
# TensorFlow waits for 4 parts and 128 MiB; summing as soon as parts total 1 MiB
# keeps at most one extra large gradient alive (what hand-written code holds),
# while small gradients are still summed once, by one add_n.
MIN_AGGREGATE_BYTES = 1024 * 1024

_state = context.state
_ndarray = np.ndarray
_generic = np.generic
_refcount = sys.getrefcount
_add = np.add


class Parts(list):
    """Two or more gradient parts of one tensor (tensors mode), not yet summed."""

    __slots__ = ("nbytes",)
    nbytes: int


class ArraysModeUnsupported(Exception):
    """The arrays mode met something it does not handle: the tensors mode runs."""


def add_part(grads: Dict[int, Any], tid: int, g: Any) -> None:
    """Adds gradient part `g` to tensor `tid`'s gradient in `grads`: the one
    accumulation of both modes.

    An array (arrays mode) is a running sum, in place (as hand-written code does
    `gx += g`) when nothing but the dict can see it: it owns its memory, is
    writable, and its only references are the dict's and ours (NumPy elides
    temporaries by the same reference-count test); a gradient is handed on only
    when its producer is reached, so no program has seen the sum before. A tensor
    (tensors mode) gathers its parts in `Parts`, summed when taken (`total`), or
    here once they hold MIN_AGGREGATE_BYTES."""
    old = grads.get(tid)
    if old is None:
        grads[tid] = g
    elif type(old) is _ndarray:
        if _refcount(old) == 3 and old.base is None and g.dtype is old.dtype \
                and old.flags.writeable:
            _add(old, g, old)  # refs: the dict, `old`, getrefcount's argument
        else:
            grads[tid] = old + g
    elif isinstance(old, _generic):
        grads[tid] = old + g
    else:
        parts = old
        if type(parts) is not Parts:   # a tensor's second part
            parts = grads[tid] = Parts((old,))
            parts.nbytes = _nbytes(old)
        parts.append(g)
        parts.nbytes += _nbytes(g)
        if parts.nbytes >= MIN_AGGREGATE_BYTES:
            grads[tid] = aggregate(list(parts))


def total(value: Any) -> Any:
    """A tensor's gradient from what `add_part` left (None: nothing arrived)."""
    return aggregate(list(value)) if type(value) is Parts else value


def _nbytes(g: Any) -> int:
    return g.array.nbytes if type(g) is EagerTensor else 0


def _all_none(grads: Sequence[Any]) -> bool:
    for g in grads:
        if g is not None:
            return False
    return True


def fits(grad: Any, specs: tuple) -> bool:
    """True when an output gradient (arrays mode: an array, or a list of arrays or
    None for several outputs) has every output's shape and dtype (`specs`): the case
    whose adjoint program a general cell keeps."""
    if type(grad) is list:
        if len(grad) != len(specs):
            return False
        for g, (shape, dtype) in zip(grad, specs, strict=True):
            if g is None or g.dtype is not dtype or g.shape != shape:
                return False
        return True
    shape, dtype = specs[0]
    return grad.dtype is dtype and grad.shape == shape


# The one backward loop. Each mode fills in its state ({parameters}, {prologue}),
# a step for records it handles specially ({cell_step}), how a record's input
# gradients are computed from `grad` ({run_step}: one output's gradient, or a
# list for several) and which inputs take them ({wanted}).
_WALK = """\
def walk(records, grads, kept, {parameters}):
    get = grads.get
    pop = grads.pop
{prologue}
    for record in records:
{cell_step}
        out_ids = record.output_ids
        if len(out_ids) == 1:
            tid = out_ids[0]
            grad = get(tid) if tid in kept else pop(tid, None)
            if grad is None:
                continue
            if type(grad) is Parts:
                grad = total(grad)
        else:
            grad = [total(get(t) if t in kept else pop(t, None)) for t in out_ids]
            if _all_none(grad):
                continue
{run_step}
        del grad  # dead once its step ran (as every local gradient: peak memory)
        if in_grads is not None:
            for tid, g in zip(record.input_ids, in_grads, strict=True):
                if g is not None{wanted}:
                    add_part(grads, tid, g)
            g = None
        in_grads = None  # (its parts would look shared to the next add_part)
{epilogue}
"""

_TENSORS_MODE = dict(
    parameters="influenced",
    prologue="    zeros_cache = {}",
    cell_step="",
    run_step="        in_grads = gradient_of(record, grad, zeros_cache)",
    wanted=" and tid in influenced",
    epilogue="",
)

_ARRAYS_MODE = dict(
    parameters="trusted",
    prologue="""\
    chain_id = None  # a first input's gradient not yet in the dict: `chained`
    chained = None
    last = None""",
    cell_step="""\
        kind = type(record)
        if kind is UnaryRecord or kind is BinaryRecord:
            oid = record.out_id
            if oid == chain_id:
                grad = chained
                chain_id = chained = None
            else:
                if chain_id is not None:
                    grads[chain_id] = chained
                    chain_id = chained = None
                grad = get(oid) if oid in kept else pop(oid, None)
                if grad is None:
                    continue
            cell = record.cell
            program = cell[1]
            if program is None or not trusted and (
                    grad.dtype is not (sig := cell[0])[-1] or grad.shape != sig[-2]):
                program = cell_program(record, grad)
                if program is UNSUPPORTED:
                    raise ArraysModeUnsupported(record.op_def.type)
                trusted = trusted and preserves_specs(program)
            if kind is UnaryRecord:
                (gx,) = program(record, grad)
                gy = None
            else:
                gx, gy = program(record, grad)
            del grad
            if gx is not None:
                tid = record.x_id
                if tid in grads or kind is BinaryRecord and tid == record.y_id or \\
                        tid in kept:
                    add_part(grads, tid, gx)
                else:
                    chain_id = tid
                    chained = gx
            if gy is not None:
                add_part(grads, record.y_id, gy)
            del gx, gy
            continue
        if chain_id is not None:
            grads[chain_id] = chained
            chain_id = chained = None
        if record is last:  # a multi-output record is stored once per output
            continue
        last = record""",
    run_step="""\
        cell = record.cell
        if cell is not None and not fits(grad, cell.output_specs):
            cell = None   # another gradient than the common case: by key
        program = None if cell is None else cell.program
        if program is None:   # traced or found by key; kept on the cell when it may be
            program = cached_program(record, grad, signature(record, grad))
            if cell is not None and preserves_specs(program):
                cell.program = program
        if program is UNSUPPORTED:
            raise ArraysModeUnsupported(record.gradient_name)
        trusted = trusted and preserves_specs(program)
        in_grads = program(record, grad)""",
    wanted="",
    epilogue="""\
    if chain_id is not None:
        grads[chain_id] = chained""",
)


def _generate(mode: Dict[str, str]) -> Any:
    namespace = dict(Parts=Parts, total=total, add_part=add_part, _all_none=_all_none,
                     gradient_of=gradient_of, UnaryRecord=UnaryRecord,
                     BinaryRecord=BinaryRecord, cell_program=cell_program,
                     cached_program=cached_program, signature=signature, fits=fits,
                     preserves_specs=preserves_specs, UNSUPPORTED=UNSUPPORTED,
                     ArraysModeUnsupported=ArraysModeUnsupported)
    exec(compile(_WALK.format(**mode), f"<backward walk: {mode['parameters']}>", "exec"),
         namespace)
    return namespace["walk"]


_walk_tensors = _generate(_TENSORS_MODE)
_walk_arrays = _generate(_ARRAYS_MODE)


def imperative_grad(producers: Dict[int, Any], targets: Sequence[Any], target_ids: Sequence[int],
                    source_ids: Sequence[int], output_gradients: Optional[Sequence[Any]],
                    release: bool) -> List[Optional[Any]]:
    """Gradients of the sum of `targets` w.r.t. each source id (None: not connected),
    in the tensors mode. `release`: the tape is not persistent, so records may be
    dropped as they are used."""
    relevant, influenced = _relevant(producers, target_ids, source_ids)
    grads: Dict[int, Any] = {}
    for i, (target, tid) in enumerate(zip(targets, target_ids, strict=True)):
        seed = output_gradients[i] if output_gradients is not None else None
        add_part(grads, tid, array_ops.ones_like(target) if seed is None else seed)
    _walk_tensors(_newest_first(relevant, producers, release), grads,
                  _kept(producers, source_ids), influenced)
    return [total(grads.get(sid)) for sid in source_ids]


def arrays_mode_allowed(tape: Any, targets: Sequence[Any],
                        output_gradients: Optional[Sequence[Any]]) -> bool:
    """True when the arrays mode may replace the tensors mode (see the module doc)."""
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


def array_gradients(producers: dict, targets: Sequence[Any], target_ids: Sequence[int],
                    source_ids: Sequence[int], output_gradients: Optional[Sequence[Any]]
                    ) -> Optional[List[Optional[Any]]]:
    """Gradients of the sum of `targets` for each source id as EagerTensors (None: not
    connected) in the arrays mode, or None when it cannot handle this tape."""
    grads: dict = {}
    trusted = True  # every seed has its target's shape and dtype (module doc: trust)
    for i, (target, tid) in enumerate(zip(targets, target_ids, strict=True)):
        seed = output_gradients[i] if output_gradients is not None else None
        value = target.array
        seed = np.ones_like(value) if seed is None else seed.array
        if seed.shape != value.shape or seed.dtype is not value.dtype:
            trusted = False
        add_part(grads, tid, seed)
    try:
        with np.errstate(all="ignore"):
            _walk_arrays(reversed(producers.values()), grads, _kept(producers, source_ids),
                         trusted)
    except Exception:  # noqa: BLE001 - any failure: the tensors mode decides (and raises)
        return None
    result: List[Optional[Any]] = []
    for sid in source_ids:
        g = grads.get(sid)
        result.append(None if g is None else EagerTensor(g))
    return result


def _kept(producers: Dict[int, Any], source_ids: Sequence[int]) -> frozenset:
    """The sources that are recorded outputs: their gradients stay in the dict."""
    return frozenset([s for s in source_ids if s in producers])


def _newest_first(entries: List[Any], producers: Dict[int, Any], release: bool) -> Any:
    """`entries` newest first, each let go once the loop moves past it; with
    `release`, its records leave the tape as it is reached."""
    while entries:
        entry = entries.pop()
        if release:
            for tid in entry.output_ids:
                producers.pop(tid, None)
        yield entry
        del entry


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
