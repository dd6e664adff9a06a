"""Runs one op eagerly: the kernel on NumPy values, then the tapes.

This is the eager half of `apply_op`: no work beyond the kernel call and the
wrapping when no tape is recording. The common one- and two-input ops without
attrs take the same path specialised in one frame (`apply_unary` /
`apply_binary` in ops/op_helpers.py), with the error helpers defined here.
"""
from __future__ import annotations

import textwrap
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from ..framework.bfloat16_compute import in_float32, is_bfloat16, requests_dtype
from ..framework.dtypes import numpy_kind
from ..framework.errors import InvalidArgumentError, OpError, ResourceExhaustedError
from ..framework.indexed_slices import densify_inputs
from ..framework.tensor import new_tensor_id
from . import context
from .eager_tensor import EagerTensor

_state = context.state
_allocate = object.__new__  # see EagerTensor.__init__
NO_ATTRS: dict = {}  # the attrs of an op run without any (never written)
# What a NumPy kernel may raise on bad values: each becomes TF's class (an OverflowError,
# e.g. a Python int beyond C long, InvalidArgumentError; a MemoryError TF's OOM,
# ResourceExhaustedError), never a Python-internal error.
KERNEL_ERRORS = (ValueError, IndexError, TypeError, np.linalg.LinAlgError, ZeroDivisionError,
                 OverflowError, MemoryError)


class EagerResources:
    """The resource store of eager mode: variables hold their own values."""

    @staticmethod
    def read(variable: Any) -> Any:
        return variable.eager_value()

    @staticmethod
    def write(variable: Any, value: Any) -> None:
        variable.set_eager_value(value)


EAGER_RESOURCES = EagerResources()


def kernel_error(op_def: Any, inputs: Sequence[Any], error: Exception) -> OpError:
    """A NumPy failure inside a kernel, as TF's InvalidArgumentError naming the op
    (ResourceExhaustedError for memory)."""
    if isinstance(error, MemoryError):
        return ResourceExhaustedError(None, None, f"{op_def.type}: OOM when allocating the "
                                      f"result ({error})")
    return InvalidArgumentError(None, None, f"{op_def.type}: {error} (input shapes: "
                                f"{[tuple(np.shape(t.array)) for t in inputs]}, dtypes: "
                                f"{[t.dtype.name for t in inputs]})")


def not_eager_error(op_def: Any, inputs: Sequence[Any]) -> TypeError:
    """TF's TypeError for a graph tensor (no value) given to an op run eagerly."""
    names = [getattr(t, "name", repr(t)) for t in inputs if not hasattr(t, "array")]
    return TypeError(f"{op_def.type}: an op outside of the function building code is being "
                     f"passed a graph tensor {names}: it has no value in eager mode. Build "
                     "the graph and run it with a Session, or use dg.function.")


def dtype_error(op_def: Any, x: EagerTensor) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, op_def.dtype_error(x.dtype))


# The one definition of running an op eagerly: three steps, written once as source
# and generated into each frame below (as the Session plan generates its code), so
# that the one- and two-input fast forms run in a single Python frame without a
# hand-written copy of the general path.
#   RUN_KERNEL: the kernel call ({call}), its failures as TF's classes naming the op;
#   ONE_OUTPUT: `out`, an EagerTensor of `result` built without its __init__ frame;
#   RECORD: every tape and accumulator records the op; when one tape records and
#   nothing overrides a gradient, the frame calls that tape's recorder directly
#   (ON_ONE_TAPE: the fast forms their specialised ones).
RUN_KERNEL = """\
try:
    result = {call}
except OpError:
    raise
except KERNEL_ERRORS as error:
    raise kernel_error(op_def, {inputs}, error) from None
"""
ONE_OUTPUT = """\
out = _allocate(EagerTensor)
out.array = result
out.tensor_id = new_tensor_id()
"""
RECORD = """\
tapes = values["tapes"]
accumulators = values["accumulators"]
if tapes or accumulators:
{record_call}
"""
ON_EVERY_TAPE = "record(op_def, {attrs}, {inputs}, {outputs})"
ON_ONE_TAPE = """\
if len(tapes) == 1 and not accumulators and not values["gradient_overrides"]:
    tapes[0].{record_one}(op_def, {arguments})
else:
    """ + ON_EVERY_TAPE

# The general frame: any op, any arity; attrs, dtype checks, bfloat16, resources.
GENERAL = """\
def execute(op_def, inputs, attrs):
    try:
        arrays = [t.array for t in inputs]
    except AttributeError:  # an IndexedSlices input (e.g. a gradient) becomes dense
        inputs = densify_inputs(inputs)
        try:
            arrays = [t.array for t in inputs]
        except AttributeError:
            raise not_eager_error(op_def, inputs) from None
    kinds = op_def.input_kinds
    kernel = op_def.kernel
    if kinds is not None and arrays and arrays[0].dtype.kind not in kinds:
        first = arrays[0].dtype
        if numpy_kind(first) not in kinds:
            raise dtype_error(op_def, inputs[0])
        if is_bfloat16(first) and not requests_dtype(attrs):
            kernel = in_float32(kernel, first)   # TF's bfloat16 kernels compute in float32
    same = op_def.same_dtype
    if same is not None:
        chosen = arrays[same]
        if chosen:
            first = chosen[0].dtype
            for array in chosen:
                if array.dtype is not first:  # identical NumPy dtypes need no closer look
                    mixed = op_def.mixed_dtype_error(inputs)
                    if mixed is not None:
                        raise InvalidArgumentError(None, None, mixed)
                    break
    if op_def.stateful:
        arrays = [EAGER_RESOURCES, *arrays]
{run_kernel}
    n = op_def.num_outputs
    if n == 1:
        if type(result) is bytes:   # a ufunc on 0-d string (object) arrays
            result = np.asarray(result, dtype=object)
{one_output}
        outputs = (out,)
    elif n == 0:
        out = None
        outputs = ()
    else:
        pieces = []
        for result in list(result):   # each output built as the one output is
{one_output_each}
            pieces.append(out)
        outputs = tuple(pieces)
        out = pieces
    values = _state.__dict__  # this thread's context: one thread-local look-up
{record}
    return out
"""

# The one-input fast form: an eager tensor, no attrs, a dtype the op accepted before
# (`fast_path_accepts`); anything else takes `slow`, the converting path.
UNARY = """\
def unary_form(op_def, cache, accepts, slow):
    def unary_op(x, name=None):
        if type(x) is EagerTensor:
            values = _state.__dict__  # this thread's context: one thread-local look-up
            if values["graph"] is None:
                array = x.array
                if array.dtype is cache.fast_dtype or accepts(op_def, x):
{run_kernel}
{one_output}
{record}
                    return out
        return slow(x, name)
    return unary_op
"""

# The two-input fast form: eager tensors or a Python scalar beside one (converted
# through this thread's scalar-operand cache, inline), one dtype the op accepted.
BINARY = """\
def binary_form(op_def, cache, accepts, scalar_operand, slow):
    def binary_op(x, y, name=None):
        values = _state.__dict__  # this thread's context: one thread-local look-up
        if values["graph"] is None:
            ty = type(y)
            fast = True
            if type(x) is EagerTensor:
                a = x.array
                if ty is EagerTensor:
                    b = y.array
                elif ty is float or ty is int:  # `x * 0.5`
                    by_dtype = values["scalar_operands"].get(a.dtype)
                    operand = by_dtype.get(y) if by_dtype is not None else None
                    y = operand if operand is not None else scalar_operand(y, a.dtype)
                    b = y.array
                else:
                    fast = False
            elif ty is EagerTensor and (type(x) is float or type(x) is int):
                b = y.array
                x = scalar_operand(x, b.dtype)
                a = x.array
            else:
                fast = False
            if fast:
                dtype = a.dtype
                if (dtype is cache.fast_dtype and b.dtype is dtype) or accepts(op_def, x, y):
{run_kernel}
{one_output}
{record}
                    return out
        return slow(x, y, name)
    return binary_op
"""


def _frame(frame: str, indent: int, call: str, inputs: str, outputs: str, attrs: str,
           record_one: Optional[str] = None, arguments: str = "",
           output_indent: int = 0) -> str:
    """`frame` with the three steps filled in at `indent` spaces (ONE_OUTPUT at
    `output_indent` when it differs); `record_one`: the tape's recorder for one tape."""
    def step(text: str, spaces: int = indent, **names: str) -> str:
        return textwrap.indent(text.format(**names), " " * spaces).rstrip("\n")
    on_tapes = ON_ONE_TAPE if record_one is not None else ON_EVERY_TAPE
    record_call = step(on_tapes, 4, record_one=record_one or "", arguments=arguments,
                       attrs=attrs, inputs=inputs, outputs=outputs)
    return frame.format(run_kernel=step(RUN_KERNEL, call=call, inputs=inputs),
                        one_output=step(ONE_OUTPUT, output_indent or indent),
                        one_output_each=step(ONE_OUTPUT, 12),
                        record=step(RECORD, record_call=record_call))


def _generate() -> Dict[str, Any]:
    """The three frames, compiled once, at import."""
    sources = [
        _frame(GENERAL, 4, "kernel(*arrays, **attrs) if attrs else kernel(*arrays)",
               "inputs", "outputs", "attrs", "record", "op_def.type, attrs, inputs, outputs",
               output_indent=8),
        _frame(UNARY, 20, "op_def.kernel(array)", "(x,)", "(out,)", "NO_ATTRS",
               "record_unary", "x, out"),
        _frame(BINARY, 20, "op_def.kernel(a, b)", "(x, y)", "(out,)", "NO_ATTRS",
               "record_binary", "x, y, out"),
    ]
    namespace: Dict[str, Any] = {
        "np": np, "EagerTensor": EagerTensor, "OpError": OpError,
        "InvalidArgumentError": InvalidArgumentError, "KERNEL_ERRORS": KERNEL_ERRORS,
        "kernel_error": kernel_error, "dtype_error": dtype_error,
        "not_eager_error": not_eager_error, "densify_inputs": densify_inputs,
        "numpy_kind": numpy_kind, "is_bfloat16": is_bfloat16,
        "requests_dtype": requests_dtype, "in_float32": in_float32,
        "EAGER_RESOURCES": EAGER_RESOURCES, "NO_ATTRS": NO_ATTRS, "_state": _state,
        "_allocate": _allocate, "new_tensor_id": new_tensor_id, "record": record}
    for source in sources:
        exec(compile(source, f"<duograd eager executor: {source.split('(')[0][4:]}>",
                     "exec"), namespace)
    return namespace


def record(op_def: Any, attrs: dict, inputs: Sequence[Any], outputs: Sequence[Any],
           gradient_name: Any = None) -> None:
    """Records an op run on eager tensors onto every tape and accumulator.

    `gradient_name` (a graph op's gradient override) replaces the op type."""
    state = _state
    if state.tapes:
        name = gradient_name or op_def.type
        overrides = state.gradient_overrides
        if overrides and gradient_name is None:
            for mapping in reversed(overrides):
                if name in mapping:
                    name = mapping[name]
                    break
        input_ids = tuple([t.tensor_id for t in inputs])
        for tape in state.tapes:
            tape.record(op_def, name, attrs, inputs, outputs, input_ids)
    for accumulator in state.accumulators:
        accumulator.record(op_def, attrs, inputs, outputs)


_FRAMES = _generate()
execute: Callable[[Any, Sequence[Any], dict], Any] = _FRAMES["execute"]
execute.__doc__ = "Runs `op_def` on eager `inputs`; returns an EagerTensor, a list, or None."
unary_form: Callable[..., Callable[..., Any]] = _FRAMES["unary_form"]
binary_form: Callable[..., Callable[..., Any]] = _FRAMES["binary_form"]
