"""The tape: what eager ops were run on watched tensors, kept for backprop.

An entry keeps only what its op's gradient reads (the op declaration's
`grad_inputs`/`grad_outputs`); every other input or output is remembered
by its shape and dtype alone, so intermediates die as in hand-written code.

A recorded op is a `TapeRecord`: every reader uses its named fields `op_def`,
`gradient_name`, `attrs`, `input_ids`, `output_ids`, `inputs`, `outputs` (a
kept tensor, or a dropped one's lazy spec `(numpy shape, numpy dtype)`),
`skip` (the inputs no tape watched) and `cell`. It is stored in one of three
small `__slots__` classes, one object per op (the hot path allocates nothing
else):
- `OpRecord` (`Tape.record`): any op; every field stored; `cell`, for an eager
  op whose attrs have a key (eager/attr_key.py), a `GeneralCell` shared by the
  op's records of one key `(gradient name, skip, attrs key, specs)`, specs the
  (shape, dtype) of every input and output; else None;
- `UnaryRecord` (`record_unary`: one input, one output, no attrs) and
  `BinaryRecord` (`record_binary`: two inputs, one output, no attrs), the two
  `CellRecord`s, store the
  tensor ids, the kept tensors (None when dropped) and `cell`, a list
  `[signature, adjoint program or None]` shared by the op's records of one
  signature: unary `(x shape, x dtype, out shape, out dtype)`, binary `(skip,
  x shape, x dtype, y shape, y dtype, out shape, out dtype)`; their other
  fields are properties computed from these (the arrays mode reads the stored
  ones: `x_id`, `y_id`, `out_id`, `x`, `y`, `out`).
A general cell is found by comparing the record with the op's last cell (its
op cache's `general_cells`), the attrs by identity first: an op wrapper that
passes the same attrs dict each call (they are never written) costs no key.
The op declaration keeps its last cell per watched-input pattern (its op
cache's `keep_plans`: eager/op_cache.py), so a chain of like ops shares one
signature object (no shape tuples per record) and the arrays mode finds the
program on the cell without hashing anything; the cells it made before are kept
by signature, so records alternating between signatures share theirs too.

`entry_view` gives the `TapeEntry` a gradient function receives as `op`, built
only when the general backward pass needs it. Records are stored in
`Tape.producers` in execution order (a dict keeps insertion order), which the
raw first-order sweep relies on.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set

import numpy as np

from ..framework.dtypes import from_numpy, numpy_kind
from ..framework.tensor_shape import shape_from_dims
from ..framework.tensor_spec import spec_of
from .attr_key import Unkeyable, attrs_key
from .eager_tensor import EagerTensor
from .op_cache import op_cache

_NO_SKIP: frozenset = frozenset()
_SKIP_FIRST: frozenset = frozenset([0])
_SKIP_SECOND: frozenset = frozenset([1])
_NO_ATTRS: dict = {}
_NOTHING_KEPT: frozenset = frozenset()
_DIFFERENTIABLE_KINDS = "fc"
_allocate = object.__new__   # a record without its __init__ frame (the hot path)


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


def _specs(tensors: Sequence[Any]) -> tuple:
    """What each tensor is remembered by when the tape drops it: (shape, dtype) of an
    eager value; None for a graph tensor (a tape inside a graph), which is kept itself,
    so that a gradient can still ask for its dynamic shape (it holds no value alive)."""
    return tuple([(t.array.shape, t.array.dtype) if type(t) is EagerTensor else None
                  for t in tensors])


def _kept(tensors: Sequence[Any], keep: Any, specs: tuple) -> tuple:
    """`tensors` with those not in `keep` (None: all kept) reduced to their `specs`."""
    if keep is None:
        return tuple(tensors)
    return tuple([t if i in keep or specs[i] is None else specs[i]
                  for i, t in enumerate(tensors)])


def _dropped(tensors: Sequence[Any]) -> tuple:
    """`tensors`, none of them kept: their specs (a graph tensor stays itself)."""
    return _kept(tensors, _NOTHING_KEPT, _specs(tensors))


def _as_spec(value: Any) -> Any:
    """A lazy spec as a TensorSpec; kept tensors unchanged."""
    if type(value) is tuple:
        return spec_of(shape_from_dims(value[0]), from_numpy(value[1]))
    return value


class TapeRecord:
    """One recorded op: the fields every reader uses (see the module docstring).
    Its three storages below are the only classes of records a tape holds."""

    __slots__ = ()
    op_def: Any
    gradient_name: str
    attrs: dict
    input_ids: tuple
    output_ids: tuple
    inputs: tuple
    outputs: tuple
    skip: frozenset
    cell: Any   # a cell record's [signature, program]; an OpRecord's GeneralCell or None


class OpRecord(TapeRecord):
    """Any op, every field stored (`Tape.record`, `Tape.record_capture`)."""

    __slots__ = ("op_def", "gradient_name", "attrs", "input_ids", "output_ids", "inputs",
                 "outputs", "skip", "cell")

    def __init__(self, op_def: Any, gradient_name: str, attrs: dict, input_ids: tuple,
                 output_ids: tuple, inputs: tuple, outputs: tuple, skip: frozenset,
                 cell: Optional["GeneralCell"] = None) -> None:
        self.op_def = op_def
        self.gradient_name = gradient_name
        self.attrs = attrs
        self.input_ids = input_ids
        self.output_ids = output_ids
        self.inputs = inputs
        self.outputs = outputs
        self.skip = skip
        self.cell = cell


class GeneralCell:
    """What an op's general records of one key share: the key (gradient name, skip,
    attrs key, specs), the attrs dict it was first made with (matched by identity
    before by key), the output specs (a gradient of these shapes and dtypes is the
    common case), the adjoint program for that case once the backward pass has
    traced it (eager/imperative_grad.py), and what a record of the key keeps: the
    `inputs_kept` and `outputs_kept` plans (`_keep_plan`) and the positions of
    the differentiable outputs (`watch`), all fixed by the key."""

    __slots__ = ("key", "attrs", "output_specs", "program", "inputs_kept", "outputs_kept",
                 "watch")

    def __init__(self, key: tuple, attrs: dict, op_def: Any, inputs: int) -> None:
        specs = key[3]
        self.key = key
        self.attrs = attrs
        self.output_specs = specs[inputs:]
        self.program: Any = None
        self.inputs_kept = _keep_plan(op_def.inputs_read_by_gradient(key[1]), specs[:inputs])
        self.outputs_kept = _keep_plan(op_def.grad_outputs, self.output_specs)
        self.watch = tuple([i for i, (_, dtype) in enumerate(self.output_specs)
                            if numpy_kind(dtype) in _DIFFERENTIABLE_KINDS])


def _keep_plan(keep: Any, specs: tuple) -> Any:
    """How the records of a cell keep a list of tensors: None, every tensor; a tuple,
    none (it is their specs, shared by the records); else the frozenset of positions."""
    if keep is None or all(i in keep for i in range(len(specs))):
        return None
    if not any(i in keep for i in range(len(specs))):
        return specs
    return frozenset(keep)


def _kept_by(plan: Any, tensors: Sequence[Any], specs: tuple) -> tuple:
    """`_kept` with a cell's plan (`_keep_plan`)."""
    if plan is None:
        return tuple(tensors)
    if type(plan) is tuple:
        return plan
    return _kept(tensors, plan, specs)


def _differentiable(outputs: Sequence[Any]) -> List[int]:
    """The positions of the outputs of a float or complex dtype (they become watched)."""
    return [i for i, t in enumerate(outputs)
            if (numpy_kind(t.array.dtype) if type(t) is EagerTensor else t.dtype.kind)
            in _DIFFERENTIABLE_KINDS]


MAX_GENERAL_CELLS = 256


def _general_cell(op_def: Any, gradient_name: str, skip: frozenset, attrs: dict,
                  specs: tuple, inputs: int) -> Optional[GeneralCell]:
    """The cell of an eager record: the op's last one when the record matches it (a
    loop body records an op the same way each step), else one of the cells of its
    specs (a GRU's two matmuls alternate between two), made when none matches; None
    for attrs with no key."""
    cache = op_def.eager_cache or op_cache(op_def)
    plan = cache.general_cells
    if plan is None:
        plan = cache.general_cells = [None, {}]
    last = plan[0]
    if last is not None and last.key[3] == specs and _matches(last, gradient_name, skip, attrs):
        return last
    by_specs = plan[1]
    cells = by_specs.get(specs)
    if cells is None:
        cells = [] if len(by_specs) < MAX_GENERAL_CELLS else None
        if cells is not None:
            by_specs[specs] = cells
    else:
        for cell in cells:
            if _matches(cell, gradient_name, skip, attrs):
                plan[0] = cell
                return cell
    try:
        cell = GeneralCell((gradient_name, skip, attrs_key(attrs), specs), attrs, op_def, inputs)
    except Unkeyable:
        return None
    if cells is not None and len(cells) < MAX_GENERAL_CELLS:
        cells.append(cell)
    plan[0] = cell
    return cell


def _matches(cell: GeneralCell, gradient_name: str, skip: frozenset, attrs: dict) -> bool:
    """A record of the cell's specs has its key: the attrs compared by identity first
    (an op wrapper that passes one shared dict per value costs no key)."""
    key = cell.key
    if key[0] != gradient_name or key[1] != skip:
        return False
    if cell.attrs is attrs:
        return True
    try:
        return key[2] == attrs_key(attrs)
    except Unkeyable:
        return False


class CellRecord(TapeRecord):
    """What the hot path's records share: one output, no attrs, the op's own gradient
    (they are recorded only when no gradient override is active), a signature cell."""

    __slots__ = ()
    attrs = _NO_ATTRS
    op_def: Any
    out_id: int
    cell: list

    @property
    def gradient_name(self) -> str:   # type: ignore[override]
        return self.op_def.type

    @property
    def output_ids(self) -> tuple:   # type: ignore[override]
        return (self.out_id,)


class UnaryRecord(CellRecord):
    """A one-input, one-output op without attrs, recorded by the hot path (its fields
    are set there, without an __init__ frame)."""

    __slots__ = ("op_def", "x_id", "out_id", "x", "out", "cell")
    skip = _NO_SKIP
    x_id: int
    x: Any
    out: Any

    @property
    def input_ids(self) -> tuple:   # type: ignore[override]
        return (self.x_id,)

    @property
    def inputs(self) -> tuple:   # type: ignore[override]
        x = self.x
        return (x if x is not None else self.cell[0][0:2],)

    @property
    def outputs(self) -> tuple:   # type: ignore[override]
        out = self.out
        return (out if out is not None else self.cell[0][2:4],)


class BinaryRecord(CellRecord):
    """A two-input, one-output op without attrs, recorded by the hot path."""

    __slots__ = ("op_def", "x_id", "y_id", "out_id", "x", "y", "out", "cell")
    x_id: int
    y_id: int
    x: Any
    y: Any
    out: Any

    @property
    def skip(self) -> frozenset:   # type: ignore[override]
        return self.cell[0][0]

    @property
    def input_ids(self) -> tuple:   # type: ignore[override]
        return (self.x_id, self.y_id)

    @property
    def inputs(self) -> tuple:   # type: ignore[override]
        x, y, sig = self.x, self.y, self.cell[0]
        return (x if x is not None else sig[1:3], y if y is not None else sig[3:5])

    @property
    def outputs(self) -> tuple:   # type: ignore[override]
        out = self.out
        return (out if out is not None else self.cell[0][5:7],)


def entry_view(record: TapeRecord) -> "TapeEntry":
    """The TapeEntry (the `op` of a gradient function) of a record."""
    output_ids = record.output_ids
    return TapeEntry(record.op_def, record.gradient_name, record.attrs, record.input_ids,
                     output_ids, tuple([_as_spec(t) for t in record.inputs]),
                     tuple([_as_spec(t) for t in record.outputs]), record.skip, output_ids[0])


def _tape_plans(op_def: Any) -> list:
    """What the tape keeps of `op_def`, memoised in its op cache as `keep_plans`:
    [0] for one input: [the gradient reads input 0, it reads output 0, last cell,
    output spec follows the inputs', cells];
    [1..3] for two inputs, both watched / only the second / only the first:
    [skip set, reads input 0, reads input 1, reads output 0, last cell, follows, cells].
    The last cell is replaced, never changed, when a record's signature differs;
    `cells` keeps every cell made by signature (`_cell_for`), so that an op whose
    records alternate between signatures (an LSTM's bias add and state add) finds
    its cell, and the adjoint program cached on it, again.

    "Follows": the kernel is a NumPy ufunc with one output, whose result shape
    (broadcasting) and dtype (the ufunc's loop, chosen by the input dtypes alone:
    NEP 50) follow from its inputs' shapes and dtypes; a record whose inputs match
    its op's last cell then has the cell's output spec too, unread."""
    outs = op_def.grad_outputs
    keep_out = outs is None or 0 in outs
    kernel = op_def.kernel
    follows = type(kernel) is np.ufunc and kernel.nout == 1
    keep = op_def.inputs_read_by_gradient(_NO_SKIP)
    plans: List[list] = [[keep is None or 0 in keep, keep_out, None, follows, {}]]
    for skip in (_NO_SKIP, _SKIP_FIRST, _SKIP_SECOND):
        keep = op_def.inputs_read_by_gradient(skip)
        plans.append([skip, keep is None or 0 in keep, keep is None or 1 in keep, keep_out,
                      None, follows, {}])
    op_cache(op_def).keep_plans = plans
    return plans


MAX_CELLS_PER_PLAN = 64


def _cell_for(cells: dict, signature: tuple) -> list:
    """The cell of `signature` among a plan's `cells`, made (and kept, up to
    MAX_CELLS_PER_PLAN) when there is none."""
    cell = cells.get(signature)
    if cell is None:
        cell = [signature, None]
        if len(cells) < MAX_CELLS_PER_PLAN:
            cells[signature] = cell
    return cell


class Tape:
    """Recorded entries keyed by the ids of the tensors they produced."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.variables: Dict[int, Any] = {}  # handle id -> variable, in watch order
        # A tensor is watched when its id is in `watched` (sources, variable handles,
        # captures) or in `producers` (a recorded op's differentiable output).
        self.watched: Set[int] = set()
        self.producers: Dict[int, TapeRecord] = {}  # output id -> record, in execution order
        # False once the producers' order may differ from execution order (entries
        # copied from another tape, or a tensor recorded twice): tensors mode only.
        self.in_order = True

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
        return tensor_id in self.producers or tensor_id in self.watched

    def record_capture(self, identity_def: Any, outer: Any, inner: Any) -> None:
        """A function graph's placeholder `inner` for watched `outer`, recorded as an
        identity whatever the dtype (a captured variable handle too), as TF records
        every capture: then reads inside while/cond bodies reach outer sources."""
        outer_id = outer.tensor_id
        if not self.is_watched(outer_id):
            return
        inner_id = inner.tensor_id
        if inner_id in self.producers:
            self.in_order = False
        self.producers[inner_id] = OpRecord(identity_def, identity_def.type, {}, (outer_id,),
                                            (inner_id,), _dropped((outer,)),
                                            _dropped((inner,)), _NO_SKIP)
        self.watched.add(inner_id)

    def record(self, op_def: Any, gradient_name: str, attrs: dict, inputs: Sequence[Any],
               outputs: Sequence[Any], input_ids: Optional[tuple] = None) -> None:
        """Records `op_def` if any input is watched; its float outputs become watched."""
        watched = self.watched
        producers = self.producers
        if input_ids is None:
            input_ids = tuple([t.tensor_id for t in inputs])
        if len(input_ids) == 1:
            if input_ids[0] not in producers and input_ids[0] not in watched:
                return
            skip = _NO_SKIP
        elif len(input_ids) == 2:
            first = input_ids[0] in producers or input_ids[0] in watched
            second = input_ids[1] in producers or input_ids[1] in watched
            if first:
                skip = _NO_SKIP if second else _SKIP_SECOND
            elif second:
                skip = _SKIP_FIRST
            else:
                return
        else:
            missing = [i for i, tid in enumerate(input_ids)
                       if tid not in producers and tid not in watched]
            if len(missing) == len(input_ids):
                return
            skip = frozenset(missing) if missing else _NO_SKIP
        if not outputs:
            return
        specs = _specs((*inputs, *outputs))
        n = len(inputs)
        # eager values only: the cell of the op's key (a tape inside a graph has none)
        cell = _general_cell(op_def, gradient_name, skip, attrs, specs, n) \
            if None not in specs else None
        record = _allocate(OpRecord)   # its fields set here: no __init__ frame
        record.op_def = op_def
        record.gradient_name = gradient_name
        record.attrs = attrs
        record.input_ids = input_ids
        record.output_ids = tuple([t.tensor_id for t in outputs])
        record.skip = skip
        record.cell = cell
        if cell is not None:
            record.inputs = _kept_by(cell.inputs_kept, inputs, specs[:n])
            record.outputs = _kept_by(cell.outputs_kept, outputs, specs[n:])
            watch: Sequence[int] = cell.watch
        else:
            record.inputs = _kept(inputs, op_def.inputs_read_by_gradient(skip), specs[:n])
            record.outputs = _kept(outputs, op_def.grad_outputs, specs[n:])
            watch = _differentiable(outputs)
        for i in watch:   # the differentiable outputs become watched
            tid = outputs[i].tensor_id
            if tid in producers:   # recorded twice: keep the tensors mode only
                self.in_order = False
            producers[tid] = record

    def record_unary(self, op_def: Any, x: EagerTensor, out: EagerTensor) -> None:
        """`record` for a one-input, one-output eager op without attrs (the hot path);
        `out` holds the op's kernel applied to `x`'s value."""
        xid = x.tensor_id
        producers = self.producers
        if xid not in producers and xid not in self.watched:
            return
        value = x.array
        plan = ((op_def.eager_cache or op_cache(op_def)).keep_plans or _tape_plans(op_def))[0]
        keep_x, keep_out, cell, follows, cells = plan
        # The op's last signature, compared unbuilt (the output's only when it does not
        # follow from the input's); a new cell tests the dtype kind (a cell's output
        # dtype is differentiable).
        if cell is None or value.shape != (sig := cell[0])[0] or value.dtype is not sig[1] \
                or not follows and (out.array.shape != sig[2] or out.array.dtype is not sig[3]):
            array = out.array
            if numpy_kind(array.dtype) not in _DIFFERENTIABLE_KINDS:
                return
            cell = plan[2] = _cell_for(cells, (value.shape, value.dtype, array.shape,
                                                array.dtype))
        oid = out.tensor_id
        record = _allocate(UnaryRecord)   # its fields set here: no __init__ frame
        record.op_def = op_def
        record.x_id = xid
        record.out_id = oid
        record.x = x if keep_x else None
        record.out = out if keep_out else None
        record.cell = cell
        producers[oid] = record

    def record_binary(self, op_def: Any, x: EagerTensor, y: EagerTensor,
                      out: EagerTensor) -> None:
        """`record` for a two-input, one-output eager op without attrs (the hot path);
        `out` holds the op's kernel applied to the inputs' values."""
        producers = self.producers
        xid = x.tensor_id
        yid = y.tensor_id
        if xid in producers or xid in self.watched:
            which = 1 if yid in producers or yid in self.watched else 3
        elif yid in producers or yid in self.watched:
            which = 2
        else:
            return
        a = x.array
        b = y.array
        plan = ((op_def.eager_cache or op_cache(op_def)).keep_plans or
                _tape_plans(op_def))[which]
        skip, keep_x, keep_y, keep_out, cell, follows, cells = plan
        if cell is None or a.shape != (sig := cell[0])[1] or a.dtype is not sig[2] or \
                b.shape != sig[3] or b.dtype is not sig[4] or not follows and (
                    out.array.shape != sig[5] or out.array.dtype is not sig[6]):
            array = out.array  # as in record_unary
            if numpy_kind(array.dtype) not in _DIFFERENTIABLE_KINDS:
                return
            cell = plan[4] = _cell_for(cells, (skip, a.shape, a.dtype, b.shape, b.dtype,
                                               array.shape, array.dtype))
        oid = out.tensor_id
        record = _allocate(BinaryRecord)   # as in record_unary
        record.op_def = op_def
        record.x_id = xid
        record.y_id = yid
        record.out_id = oid
        record.x = x if keep_x else None
        record.y = y if keep_y else None
        record.out = out if keep_out else None
        record.cell = cell
        producers[oid] = record

    def record_entry_copy(self, other: "Tape") -> None:
        """Takes over another tape's entries and watched set (used by hessian)."""
        self.watched |= other.watched
        self.producers.update(other.producers)
        self.in_order = False

    def clear(self) -> None:
        self.watched = set()
        self.producers = {}
        self.variables = {}
        self.in_order = True


def watched_by_any(tapes: List[Tape], tensor_ids: Sequence[int]) -> bool:
    for tape in tapes:
        watched = tape.watched
        producers = tape.producers
        for tid in tensor_ids:
            if tid in producers or tid in watched:
                return True
    return False
