"""Adjoint programs: each pure gradient function, traced once per signature.

The arrays mode of the backward loop (eager/imperative_grad.py) needs a recorded op's
gradient as a function of NumPy values. Running the registered gradient
function eagerly costs a dozen Python calls per op around one or two NumPy
kernels, so instead the function is traced once, exactly as graph mode's
`gradients()` calls it, on placeholders carrying the record's static shapes
and dtypes, and the Session's plan compiler turns that graph into
straight-line code: `program(record, grad) -> input gradients`, reading the
kept inputs and outputs straight from the record (its fields: eager/tape.py). Static
shapes fold away (an unbroadcast of equal shapes is no op at all), so what runs is
the kernels the gradient needs and nothing else.

Why this is the same gradient: the program *is* the registered function's
graph, built by the function itself, run by the same `OpDef.kernel`s that
eager execution and Session plans run. A gradient function must work on
symbolic tensors (graph mode calls it so), so it cannot branch on values;
whatever it branches on (op type, gradient name, attrs, skipped inputs,
every static shape and dtype of inputs, outputs and gradient) is the cache
key. Only a pure function is traced (the reuse rule, grad_registry/registry.py:
one of duograd's own); a user's, an override's or a custom_gradient's runs as
Python every time, in the tensors mode. A function that cannot be traced (it
is not pure, fails, builds a stateful op, reads
an input the tape did not keep, or returns IndexedSlices) gets no program:
the arrays mode gives up and the tensors mode runs.

Programs are memoised in the op's cache (eager/op_cache.py: `programs`), as
the tape's keep plans are, at most MAX_PROGRAMS_PER_OP per op type. A general
record's key is `signature()` (the sweep builds it only when the record's general
cell, eager/tape.py, holds no program for its gradient); a unary or binary record's is its cell's
signature when the gradient has the output's shape and dtype, else
`(signature, gradient shape, gradient dtype)`. The three kinds of key never
compare equal (a general key starts with a str, a unary signature has 4 items,
a binary one 7 starting with the skip set, the rest are 3-tuples), and each
holds everything the function may branch on: a unary or binary record has no
attrs and its gradient name is its op's type (the hot path records only when
no gradient override is active). A cell caches the program of its signature
for a gradient shaped and typed like the output, so that the arrays mode finds it
with one comparison of the gradient's shape and dtype.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List

import numpy as np

from ..framework.dtypes import from_numpy
from ..framework.graph import Graph, SymbolicTensor
from ..framework.session import compile_plan
from ..grad_registry.calling import gradient_of
from ..grad_registry.registry import NOT_REGISTERED, find_gradient, is_pure
from ..ops.array.array_ops import placeholder
from .attr_key import Unkeyable, attrs_key
from .eager_tensor import EagerTensor
from .op_cache import op_cache
from .tape import BinaryRecord, TapeEntry, TapeRecord, UnaryRecord

MAX_PROGRAMS_PER_OP = 512
UNSUPPORTED = object()  # memoised for a signature whose gradient cannot be traced
_PARAMETERS = "r, g"


class NotTraceable(Exception):
    """The record's gradient function cannot become an adjoint program."""


def signature(record: TapeRecord, grad: Any) -> tuple:
    """Everything a gradient function may branch on, for an OpRecord and its output
    gradient (for a multi-output op, a tuple with None for
    outputs without one), as one flat tuple: gradient name, skipped inputs, attrs,
    then shape and dtype of each input, each output and the gradient."""
    try:
        keyed_attrs = attrs_key(record.attrs)
    except Unkeyable as error:
        raise NotTraceable(str(error)) from None
    key: List[Any] = [record.gradient_name, record.skip, keyed_attrs]
    for group in (record.inputs, record.outputs):
        for value in group:
            if type(value) is EagerTensor:
                array = value.array
                key.append(array.shape)
                key.append(array.dtype)
            elif type(value) is tuple:  # a dropped value's (shape, dtype)
                key.extend(value)
            else:
                raise NotTraceable(type(value).__name__)
    if len(record.output_ids) == 1:
        key.append(grad.shape)
        key.append(grad.dtype)
    else:
        key.append(tuple([None if g is None else (g.shape, g.dtype) for g in grad]))
    return tuple(key)


def cell_program(record: TapeRecord, grad: Any) -> Any:
    """The program of a unary or binary record, or UNSUPPORTED. It is cached on the cell
    when the gradient has the output's shape and dtype and the program preserves
    specs (`preserves_specs`; UNSUPPORTED does not: the loop tests for it only here)."""
    cell = record.cell
    assert cell is not None, "a unary or binary record has a cell"
    sig = cell[0]
    if grad.shape == sig[-2] and grad.dtype == sig[-1]:
        key: tuple = sig
    else:
        key = (sig, grad.shape, grad.dtype)
    program = cached_program(record, grad, key)
    if key is sig and preserves_specs(program):
        cell[1] = program
    return program


def cached_program(record: TapeRecord, grad: Any, key: tuple) -> Any:
    """The program memoised for `record` under `key`, traced on a miss (UNSUPPORTED
    when it cannot be)."""
    programs = op_cache(record.op_def).programs
    program = programs.get(key) if programs is not None else None
    return adjoint_program(record, grad, key) if program is None else program


def adjoint_program(record: TapeRecord, grad: Any, key: tuple) -> Any:
    """The program for `record` (memoised under `key`), or UNSUPPORTED."""
    op_def = record.op_def
    try:
        program: Any = _trace(record, grad)
    except Exception:  # noqa: BLE001 - any failure to trace: the tensors mode runs
        program = UNSUPPORTED
    cache = op_cache(op_def)
    programs = cache.programs
    if programs is None or len(programs) >= MAX_PROGRAMS_PER_OP:
        programs = cache.programs = {}
    programs[key] = program
    return program


def _value_expressions(record: TapeRecord) -> tuple:
    """Where a program finds each input and output of `record` (its stored fields)."""
    kind = type(record)
    if kind is UnaryRecord:
        return ("r.x",), ("r.out",)
    if kind is BinaryRecord:
        return ("r.x", "r.y"), ("r.out",)
    return (tuple([f"r.inputs[{i}]" for i in range(len(record.inputs))]),
            tuple([f"r.outputs[{i}]" for i in range(len(record.outputs))]))


def _placeholder(value: Any) -> Any:
    if type(value) is EagerTensor:
        value = value.array
        return placeholder(from_numpy(value.dtype), value.shape)
    shape, dtype = value
    return placeholder(from_numpy(dtype), shape)


def _trace(record: TapeRecord, grad: Any) -> Callable:
    op_def, name, attrs = record.op_def, record.gradient_name, record.attrs
    input_ids, output_ids, skip = record.input_ids, record.output_ids, record.skip
    inputs, outputs = record.inputs, record.outputs
    in_exprs, out_exprs = _value_expressions(record)
    function = find_gradient(name)  # None: not differentiable, inputs get None
    if function is NOT_REGISTERED or not is_pure(name) or op_def.stateful:
        # no gradient (the tensors mode raises), one that must run every time (the
        # reuse rule: grad_registry/registry.py), or state
        raise NotTraceable(name)
    multi = len(output_ids) != 1
    graph = Graph()
    feeds: List[SymbolicTensor] = []
    expressions: List[str] = []
    with graph.as_default():
        in_tensors = tuple([_placeholder(v) for v in inputs])
        out_tensors = tuple([_placeholder(v) for v in outputs])
        for group, tensors, where in ((inputs, in_tensors, in_exprs),
                                      (outputs, out_tensors, out_exprs)):
            for i, value in enumerate(group):
                if type(value) is EagerTensor:  # kept: the program reads it from the record
                    feeds.append(tensors[i])
                    expressions.append(f"{where[i]}.array")
        view = TapeEntry(op_def, name, attrs, input_ids, output_ids, in_tensors,
                         out_tensors, skip, output_ids[0])
        out_grads: List[Any] = []
        for i, g in enumerate(grad if multi else (grad,)):
            if g is not None:
                out_grads.append(placeholder(from_numpy(g.dtype), g.shape))
                feeds.append(out_grads[-1])
                expressions.append(f"g[{i}]" if multi else "g")
            else:
                out_grads.append(None)
        result = gradient_of(view, out_grads if multi else out_grads[0], {})
    results = [None] * len(input_ids) if result is None else list(result)
    for i, r in enumerate(results):
        if i in skip:
            results[i] = None
        elif r is not None and type(r) is not SymbolicTensor:
            raise NotTraceable(type(r).__name__)  # e.g. IndexedSlices: the tensors mode
    for op in graph.get_operations():
        if op.op_def.stateful or op.op_def.is_stateful:
            raise NotTraceable(op.type)
    # An unfed placeholder (a value the tape dropped) makes compile_plan raise.
    plan = compile_plan(graph, results, feeds, name=f"adjoint {name}",
                        signature=(_PARAMETERS, expressions))
    program = plan.function
    program.preserves_specs = _preserves_specs(inputs, results)
    return program


def _preserves_specs(inputs: tuple, results: List[Any]) -> bool:
    """Whether every gradient the program returns has, statically (fully known), its
    input's recorded shape and dtype (see `preserves_specs`)."""
    for value, result in zip(inputs, results, strict=True):
        if result is None:
            continue
        if type(value) is EagerTensor:
            shape, dtype = value.array.shape, value.array.dtype
        elif type(value) is tuple:
            shape, dtype = value
        else:
            return False
        dims = result.shape.dims
        if dims is None or None in dims or tuple(dims) != tuple(shape) or \
                np.dtype(result.dtype.as_numpy_dtype) != dtype:
            return False
    return True


def preserves_specs(program: Any) -> bool:
    """True for a program whose every input gradient has that input's shape and dtype
    by the traced graph's static shapes and dtypes, which the kernels that run it
    honour (Session plans rely on them as well: eliding temporaries, folding
    broadcasts). Only such programs are cached on a cell."""
    return getattr(program, "preserves_specs", False)


def cached_programs(op_def: Any) -> Dict[tuple, Any]:
    """The programs memoised on `op_def` (for tests and introspection)."""
    return dict(op_cache(op_def).programs or {})
