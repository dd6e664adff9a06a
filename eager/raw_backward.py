"""First-order tape backprop on raw NumPy values, in one reverse sweep.

Used by `GradientTape.gradient` when nothing else could observe the backward
pass: no other tape records, no forward accumulator is active, no graph is
being built, and the tape's records are in execution order. Then the
gradients are never differentiated again, so they need no EagerTensor
identity and no recording: the sweep walks the records newest first, calls
the op's *registered* gradient function on a `RawOpView` (kept inputs and
outputs as NumPy values, dropped ones as `ArraySpec`s) with the raw context
set (eager/raw_mode.py: the ops it calls run their kernels on NumPy values),
and sums each tensor's incoming gradients as they arrive.

Only ops whose registered gradient function is known to run on raw values
take this path (`grad_registry/raw_capable.py`, checked against the general
pass by tests/test_raw_backward.py). Anything else (another op type, a
multi-output op, IndexedSlices, an error) abandons the sweep, which has no
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

from typing import Any, List, Optional, Sequence

import numpy as np

from ..grad_registry.raw_capable import raw_gradient_functions
from . import context
from .eager_tensor import EagerTensor
from .raw_mode import ArraySpec, RawPathUnsupported

_state = context.state
_ndarray = np.ndarray


def _raw(values: tuple) -> tuple:
    """A record's kept tensors as NumPy values, lazy specs as ArraySpecs."""
    if len(values) == 1:
        v = values[0]
        if type(v) is EagerTensor:
            return (v.array,)
        return (ArraySpec(v),)
    return tuple([v.array if type(v) is EagerTensor else ArraySpec(v) for v in values])


class RawOpView:
    """The `op` a gradient function receives in the raw sweep: `type`, `inputs`,
    `outputs`, `skip_input_indices`, `get_attr`, read from the record."""

    __slots__ = ("record",)

    def __init__(self, record: tuple) -> None:
        self.record = record

    @property
    def type(self) -> str:
        return self.record[0].type

    name = type

    @property
    def gradient_name(self) -> str:
        return self.record[1]

    @property
    def inputs(self) -> tuple:
        values = self.record[5]
        n = len(values)
        if n == 1:  # the common cases inline (this is the hot path)
            x = values[0]
            return (x.array,) if type(x) is EagerTensor else (ArraySpec(x),)
        if n == 2:
            x, y = values
            return (x.array if type(x) is EagerTensor else ArraySpec(x),
                    y.array if type(y) is EagerTensor else ArraySpec(y))
        return _raw(values)

    @property
    def outputs(self) -> tuple:
        values = self.record[6]
        if len(values) == 1:
            v = values[0]
            return (v.array,) if type(v) is EagerTensor else (ArraySpec(v),)
        return _raw(values)

    @property
    def skip_input_indices(self) -> frozenset:
        return self.record[7]

    def get_attr(self, name: str) -> Any:
        try:
            return self.record[2][name]
        except KeyError:
            raise ValueError(f"Op '{self.type}' has no attr named '{name}'.") from None


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
    functions = raw_gradient_functions()
    grads: dict = {}
    for i, (target, tid) in enumerate(zip(targets, target_ids, strict=True)):
        seed = output_gradients[i] if output_gradients is not None else None
        seed = np.ones_like(target.array) if seed is None else seed.array
        old = grads.get(tid)
        grads[tid] = seed if old is None else old + seed
    sources = frozenset(source_ids)
    view = RawOpView(())
    state = _state
    state.raw = True
    try:
        with np.errstate(all="ignore"):
            _sweep(producers, grads, sources, functions, view)
    except Exception:  # noqa: BLE001 - any failure: the general pass decides (and raises)
        return None
    finally:
        state.raw = False
    result: List[Optional[Any]] = []
    for sid in source_ids:
        g = grads.get(sid)
        result.append(None if g is None else EagerTensor(g))
    return result


def _sweep(producers: dict, grads: dict, sources: frozenset, functions: dict,
           view: RawOpView) -> None:
    """The reverse sweep proper; raises RawPathUnsupported for what it does not do."""
    last = None
    get = grads.get
    for record in reversed(producers.values()):
        if record is last:  # a multi-output record is stored once per output
            continue
        last = record
        out_ids = record[4]
        if len(out_ids) != 1:
            raise RawPathUnsupported("multi-output op")
        tid = out_ids[0]
        grad = get(tid) if tid in sources else grads.pop(tid, None)
        if grad is None:
            continue
        fn = functions.get(record[1])
        if fn is None:
            raise RawPathUnsupported(record[1])
        view.record = record
        in_grads = fn(view, grad)
        in_ids = record[3]
        if type(in_grads) is not tuple and type(in_grads) is not list:
            if len(in_ids) == 1:  # one input, one gradient: the common case, inline
                if in_grads is not None:
                    if type(in_grads) is not _ndarray:
                        in_grads = _as_raw(in_grads)
                    tid = in_ids[0]
                    old = get(tid)
                    grads[tid] = in_grads if old is None else old + in_grads
                continue
            in_grads = (in_grads,)
        n = len(in_ids)
        if len(in_grads) != n:
            raise RawPathUnsupported("gradient count")
        for i in range(n):
            g = in_grads[i]
            if g is None:
                continue
            if type(g) is not _ndarray:
                g = _as_raw(g)
            tid = in_ids[i]
            old = get(tid)
            grads[tid] = g if old is None else old + g


def _as_raw(value: Any) -> Any:
    """A gradient function's result as a raw value (EagerTensors unwrapped)."""
    if type(value) is EagerTensor:
        return value.array
    if isinstance(value, np.generic):
        return value
    raise RawPathUnsupported(type(value).__name__)
