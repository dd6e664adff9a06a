"""The tape: what eager ops were run on watched tensors, kept for backprop.

An entry keeps only what its op's gradient reads (the op declaration's
`grad_inputs`/`grad_outputs`); every other input or output is remembered
by its shape and dtype alone, so intermediates die as in hand-written code.
"""
from __future__ import annotations

import itertools
from typing import Any, Dict, List, Optional, Sequence, Set

from ..framework.tensor_spec import spec_of
from .eager_tensor import EagerTensor

_NO_SKIP: frozenset = frozenset()
_SKIP_FIRST: frozenset = frozenset([0])
_SKIP_SECOND: frozenset = frozenset([1])
# Entry order across all tapes: entries copied between tapes (hessian) stay in
# execution order, which the backward filter and ready stack rely on.
_next_seq = itertools.count().__next__


class TapeEntry:
    """One recorded op. It is also the `op` its gradient function receives:
    `type`, `inputs`, `outputs`, `get_attr`, `skip_input_indices`."""

    __slots__ = ("type", "gradient_name", "attrs", "input_ids", "output_ids", "inputs",
                 "outputs", "skip_input_indices", "seq", "op_def", "__weakref__")

    def __init__(self, op_def: Any, gradient_name: str, attrs: dict, input_ids: tuple,
                 output_ids: tuple, inputs: tuple, outputs: tuple,
                 skip_input_indices: frozenset, seq: int) -> None:
        self.op_def = op_def
        self.type = op_def.type
        self.gradient_name = gradient_name
        self.attrs = attrs
        self.input_ids = input_ids
        self.output_ids = output_ids
        self.inputs = inputs
        self.outputs = outputs
        self.skip_input_indices = skip_input_indices
        self.seq = seq

    @property
    def name(self) -> str:
        return self.type

    def get_attr(self, name: str) -> Any:
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Op '{self.type}' has no attr named '{name}'.") from None

    def __repr__(self) -> str:
        return f"<TapeEntry {self.type} in={self.input_ids} out={self.output_ids}>"


def _spec(tensor: Any) -> Any:
    """Shape and dtype only; a graph tensor (a tape inside a graph) is kept itself, so
    that a gradient can still ask for its dynamic shape (it holds no value alive)."""
    if type(tensor) is EagerTensor:
        return spec_of(tensor.shape, tensor.dtype)
    return tensor


def _kept(tensors: Sequence[Any], keep: Any) -> tuple:
    """`tensors` with those not in `keep` (None: all kept) reduced to their specs."""
    if keep is None:
        return tuple(tensors)
    if not keep:
        return tuple([_spec(t) for t in tensors])
    return tuple([t if i in keep else _spec(t) for i, t in enumerate(tensors)])


def _is_differentiable(tensor: Any) -> bool:
    kind = tensor.array.dtype.kind if type(tensor) is EagerTensor else tensor.dtype.kind
    return kind == "f" or kind == "c"


class Tape:
    """Recorded entries keyed by the ids of the tensors they produced."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.variables: Dict[int, Any] = {}  # handle id -> variable, in watch order
        self.watched: Set[int] = set()
        self.producers: Dict[int, TapeEntry] = {}

    def watch_id(self, tensor_id: int) -> None:
        self.watched.add(tensor_id)

    def watch_variable(self, variable: Any) -> None:
        handle_id = variable.handle.tensor_id
        self.watched.add(handle_id)
        self.variables.setdefault(handle_id, variable)

    def variable_accessed(self, variable: Any) -> None:
        """Called on every read of a trainable variable while this tape records."""
        if self.watch_accessed_variables and variable.trainable:
            self.watch_variable(variable)

    def is_watched(self, tensor_id: int) -> bool:
        return tensor_id in self.watched

    def record_capture(self, identity_def: Any, outer: Any, inner: Any) -> None:
        """A function graph's placeholder `inner` for watched `outer`, recorded as an
        identity whatever the dtype (a captured variable handle too), as TF records
        every capture: then reads inside while/cond bodies reach outer sources."""
        outer_id = outer.tensor_id
        if outer_id not in self.watched:
            return
        inner_id = inner.tensor_id
        self.producers[inner_id] = TapeEntry(identity_def, identity_def.type, {}, (outer_id,),
                                             (inner_id,), (_spec(outer),), (_spec(inner),),
                                             _NO_SKIP, _next_seq())
        self.watched.add(inner_id)

    def record(self, op_def: Any, gradient_name: str, attrs: dict, inputs: Sequence[Any],
               outputs: Sequence[Any], input_ids: Optional[tuple] = None) -> None:
        """Records `op_def` if any input is watched; its float outputs become watched."""
        watched = self.watched
        if input_ids is None:
            input_ids = tuple([t.tensor_id for t in inputs])
        if len(input_ids) == 1:
            if input_ids[0] not in watched:
                return
            skip = _NO_SKIP
        elif len(input_ids) == 2:
            first, second = input_ids[0] in watched, input_ids[1] in watched
            if first:
                skip = _NO_SKIP if second else _SKIP_SECOND
            elif second:
                skip = _SKIP_FIRST
            else:
                return
        else:
            missing = [i for i, tid in enumerate(input_ids) if tid not in watched]
            if len(missing) == len(input_ids):
                return
            skip = frozenset(missing) if missing else _NO_SKIP
        keep = op_def.inputs_read_by_gradient(skip)
        if keep is None:
            kept_inputs = tuple(inputs)
        elif len(inputs) == 1:
            kept_inputs = (inputs[0],) if 0 in keep else (_spec(inputs[0]),)
        else:
            kept_inputs = tuple([t if i in keep else _spec(t) for i, t in enumerate(inputs)])
        if len(outputs) == 1:  # the common case, without loops
            out = outputs[0]
            tid = out.tensor_id
            kept_outputs = (out,) if op_def.grad_outputs != () else (_spec(out),)
            entry = TapeEntry(op_def, gradient_name, attrs, input_ids, (tid,), kept_inputs,
                              kept_outputs, skip, _next_seq())
            if _is_differentiable(out):
                self.producers[tid] = entry
                watched.add(tid)
            return
        entry = TapeEntry(op_def, gradient_name, attrs, input_ids,
                          tuple([t.tensor_id for t in outputs]), kept_inputs,
                          _kept(outputs, op_def.grad_outputs), skip, _next_seq())
        producers = self.producers
        for t in outputs:
            if _is_differentiable(t):
                tid = t.tensor_id
                producers[tid] = entry
                watched.add(tid)

    def record_entry_copy(self, other: "Tape") -> None:
        """Takes over another tape's entries and watched set (used by hessian)."""
        self.watched |= other.watched
        self.producers.update(other.producers)

    def clear(self) -> None:
        self.watched = set()
        self.producers = {}
        self.variables = {}


def watched_by_any(tapes: List[Tape], tensor_ids: Sequence[int]) -> bool:
    for tape in tapes:
        watched = tape.watched
        for tid in tensor_ids:
            if tid in watched:
                return True
    return False
