"""The raw backward context: gradient functions run on plain NumPy values.

While the first-order tape sweep (`eager/raw_backward.py`) runs a registered
gradient function, `context.state.raw` is set on the thread. Then the public
ops that the gradient functions call dispatch straight to their NumPy kernels
when given raw values (`np.ndarray` or NumPy scalars) and return raw values:
no EagerTensor is made and nothing is recorded. NumPy's own operators
(`grad * y`, `-grad`) are the same kernels as Mul and Neg. Anything a raw
path does not cover converts to EagerTensors as usual and stays correct
(the sweep unwraps EagerTensor results).

`ArraySpec` stands in for an input or output the tape dropped (it remembers
only shape and dtype, as a TensorSpec does in the general pass), with the
NumPy spelling (`shape` a tuple, `dtype` a NumPy dtype) so that shape helpers
treat it like an array. `static_dims` reads static dimensions of any of
tensors, specs and raw values: gradient functions that need a shape use it.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any, Optional

import numpy as np

from . import context

_state = context.state
RAW_TYPES = (np.ndarray, np.generic)


class RawPathUnsupported(Exception):
    """A raw sweep met something it does not handle: the general pass runs instead."""


class ArraySpec(tuple):
    """(shape, dtype) of a dropped eager value, read like an array's."""

    __slots__ = ()
    shape = property(itemgetter(0))
    dtype = property(itemgetter(1))

    @property
    def ndim(self) -> int:
        return len(self[0])


def static_dims(value: Any) -> Optional[tuple]:
    """The static dimensions of a tensor, spec or raw value (None: unknown rank)."""
    shape = value.shape
    if type(shape) is tuple:
        return shape
    return shape.dims


def raw_active() -> bool:
    """True while a gradient function runs in a raw first-order sweep on this thread."""
    return _state.raw


def is_raw(value: Any) -> bool:
    """True for the values of the raw context (NumPy arrays and scalars)."""
    return isinstance(value, RAW_TYPES)


def raw_unary(op_def: Any, x: Any, attrs: Optional[dict] = None) -> Any:
    """`op_def`'s kernel on a raw value (the input-dtype check kept)."""
    kinds = op_def.input_kinds
    if kinds is not None and x.dtype.kind not in kinds:
        raise RawPathUnsupported(op_def.type)
    if attrs:
        return op_def.kernel(x, **attrs)
    return op_def.kernel(x)


def raw_binary(op_def: Any, x: Any, y: Any) -> Any:
    """`op_def`'s kernel on two raw values of one dtype, or a raw value and a Python
    scalar operand (which takes the value's dtype, as `_operand` does)."""
    tx, ty = type(x), type(y)
    if tx is float or tx is int:
        kind = y.dtype.kind
        scalar = True
    elif ty is float or ty is int:
        kind = x.dtype.kind
        scalar = True
    else:
        dtype = x.dtype
        other = y.dtype
        if dtype is not other and dtype != other:
            raise RawPathUnsupported(op_def.type)
        kind = dtype.kind
        scalar = False
    if scalar and kind not in "fc":  # NumPy would promote; TF's conversion may refuse
        raise RawPathUnsupported(op_def.type)
    kinds = op_def.input_kinds
    if kinds is not None and kind not in kinds:
        raise RawPathUnsupported(op_def.type)
    return op_def.kernel(x, y)


def raw_inputs(inputs: Any) -> bool:
    """True when every input is a raw value (and there is one at least)."""
    if not inputs:
        return False
    for x in inputs:
        if not isinstance(x, RAW_TYPES):
            return False
    return True


def raw_execute(op_def: Any, inputs: Any, attrs: dict) -> Any:
    """`execute` in the raw context: the kernel on raw values, raw values back."""
    if op_def.stateful or op_def.num_outputs == 0:
        raise RawPathUnsupported(op_def.type)
    kinds = op_def.input_kinds
    if kinds is not None and inputs[0].dtype.kind not in kinds:
        raise RawPathUnsupported(op_def.type)
    result = op_def.kernel(*inputs, **attrs) if attrs else op_def.kernel(*inputs)
    return result if op_def.num_outputs == 1 else list(result)


def raw_shape(shape: Any) -> np.ndarray:
    """A shape argument (list, tuple, TensorShape, tensor or array) as an int32 array."""
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    elif hasattr(shape, "numpy"):
        shape = shape.numpy()
    return np.asarray(shape, dtype=np.int32).reshape(-1)
