"""Runs one op eagerly: the kernel on NumPy values, then the tapes.

This is the eager half of `apply_op`: no work beyond the kernel call and the
wrapping when no tape is recording. The common one- and two-input ops without
attrs take the same path specialised in one frame (`apply_unary` /
`apply_binary` in ops/op_helpers.py), with the error helpers defined here.
"""
from __future__ import annotations

from typing import Any, Sequence, Tuple

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


def execute(op_def: Any, inputs: Sequence[EagerTensor], attrs: dict) -> Any:
    """Runs `op_def` on eager `inputs`; returns an EagerTensor, a list, or None."""
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
    try:
        if op_def.stateful:
            result = kernel(EAGER_RESOURCES, *arrays, **attrs)
        elif attrs:
            result = kernel(*arrays, **attrs)
        else:
            result = kernel(*arrays)
    except OpError:
        raise
    except KERNEL_ERRORS as error:
        raise kernel_error(op_def, inputs, error) from None
    n = op_def.num_outputs
    out: Any
    outputs: Tuple[EagerTensor, ...]
    if n == 1:
        if type(result) is bytes:   # a ufunc on 0-d string (object) arrays
            result = np.asarray(result, dtype=object)
        out = _allocate(EagerTensor)  # EagerTensor(result) without its __init__ frame
        out.array = result
        out.tensor_id = new_tensor_id()
        outputs = (out,)
    elif n == 0:
        out = None
        outputs = ()
    else:
        outputs = tuple([EagerTensor(r) for r in result])
        out = list(outputs)
    values = _state.__dict__  # this thread's context: one thread-local look-up
    if values["tapes"] or values["accumulators"]:
        record(op_def, attrs, inputs, outputs)
    return out


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
