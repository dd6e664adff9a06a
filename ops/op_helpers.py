"""Helpers shared by the public op wrappers: input conversion with TF's dtype rules,
and the functions that run one- and two-input ops (`unary_function`,
`binary_function`): eager mode's hottest path, one Python frame per op."""
from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import numpy as np

from ..eager import context
from ..eager.eager_tensor import EagerTensor
from ..eager.op_cache import op_cache
from ..framework import dtypes
from ..framework.dtypes import from_numpy, numpy_kind
from ..framework.errors import InvalidArgumentError
from ..framework.op_def import OpDef
from ..framework.tensor import Tensor
from .constant_op import convert_to_tensor
from ..eager.execute import binary_form, dtype_error, unary_form
from .dispatch import apply_op

_state = context.state


def binary_operands(op_type: str, x: Any, y: Any) -> Tuple[Tensor, Tensor]:
    """Converts two operands; a Python scalar takes the other operand's dtype.

    Two tensors of different dtypes are an error naming both dtypes:
    InvalidArgumentError in eager mode, TypeError in graph mode (as in TF).
    """
    x_is = isinstance(x, Tensor)
    y_is = isinstance(y, Tensor)
    if x_is and not y_is:
        y = _operand(y, x.dtype)
    elif y_is and not x_is:
        x = _operand(x, y.dtype)
    elif not x_is and not y_is:
        x = convert_to_tensor(x)
        y = _operand(y, x.dtype)
    if _state.graph is None and (type(x) is not EagerTensor or type(y) is not EagerTensor):
        convert_to_tensor(x), convert_to_tensor(y)  # a graph tensor in eager mode: TypeError
    if x.dtype is not y.dtype:
        message = (f"cannot compute {op_type} as input #1(zero-based) was expected to be a "
                   f"{x.dtype.name} tensor but is a {y.dtype.name} tensor [Op:{op_type}]")
        if _state.graph is None:
            raise InvalidArgumentError(None, None, message)
        raise TypeError(f"Input 'y' of '{op_type}' Op has type {y.dtype.name} that does not "
                        f"match type {x.dtype.name} of argument 'x'.")
    return x, y


MAX_CACHED_OPERANDS = 4096
_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1


def _operand(value: Any, dtype: Any) -> Tensor:
    """A non-tensor operand in the other operand's dtype (TypeError if lossy, as TF).

    Eager Python scalars are converted once per (value, dtype) and thread."""
    kind = type(value)
    if (kind is int or kind is float) and _state.graph is None and dtype.kind:
        return scalar_operand(value, np.dtype(dtype.as_numpy_dtype), dtype)
    if hasattr(value, "__dg_tensor__"):
        return convert_to_tensor(value)
    if dtype is dtypes.string and not isinstance(value, (str, bytes)):
        return convert_to_tensor(value)   # TF: the kernel then reports the mixed dtypes
    return convert_to_tensor(value, dtype=dtype)


def scalar_operand(value: Any, np_dtype: Any, dtype: Any = None) -> EagerTensor:
    """An eager Python int/float operand as a tensor of `np_dtype` (TypeError if lossy,
    as TF), converted once per (value, dtype) and thread: eager tensors are immutable.
    (0.0 and -0.0 are equal keys but different operands: zeros are not cached.)"""
    by_dtype = _state.scalar_operands.get(np_dtype)
    if by_dtype is None:
        by_dtype = _state.scalar_operands[np_dtype] = {}
    tensor: Any = by_dtype.get(value)  # eager, so convert_to_tensor gives an EagerTensor
    if tensor is None and np_dtype.kind == "O":
        return convert_to_tensor(value)  # type: ignore[return-value]  # a number beside a string: the kernel rejects the mix
    if tensor is None:
        if np_dtype.kind in "fc" and (type(value) is float or _INT64_MIN <= value <= _INT64_MAX):
            # Into a float or complex dtype nothing is lossy: convert_to_tensor's result,
            # without its general rules (a new scalar each step, e.g. `x * lr`, stays cheap).
            tensor = EagerTensor(np.array(value, dtype=np_dtype))
        else:
            tensor = convert_to_tensor(value, dtype=dtype if dtype is not None else
                                       from_numpy(np_dtype))
        if value and len(by_dtype) < MAX_CACHED_OPERANDS:
            by_dtype[value] = tensor
    return tensor


def fast_path_accepts(op_def: OpDef, x: EagerTensor, y: Optional[EagerTensor] = None) -> bool:
    """The full checks behind the `fast_dtype` memo (eager/op_cache.py), run when it
    misses.

    True (and the memo set) when the eager fast path may run `op_def` on these eager
    inputs; False when the general path must (an op that is not `simple`, or two inputs
    of different dtypes: the general path raises TF's error for those); TF's
    InvalidArgumentError for a first input of a dtype the op does not accept."""
    if not op_def.simple:
        return False
    dtype = x.array.dtype
    if dtype.kind == "O":
        return False   # strings: the general path keeps a 0-d result an array
    if y is not None and y.array.dtype != dtype:
        return False
    kinds = op_def.input_kinds
    if kinds is not None and dtype.kind not in kinds:
        if numpy_kind(dtype) not in kinds:
            raise dtype_error(op_def, x)
        return False   # bfloat16: the general path computes it in float32
    op_cache(op_def).fast_dtype = dtype
    return True


def binary_function(op_def: OpDef, public_name: Optional[str] = None,
                    module: Optional[str] = None, doc: Optional[str] = None) -> Callable[..., Any]:
    """The function `f(x, y, name=None)` that runs two-input op `op_def`: a public op, or
    (`public_name` None) the one `apply_binary` calls, kept as its op cache's `binary`.

    Its eager fast path (eager tensors or Python scalars, a simple op, a dtype the op
    accepted before: see `fast_path_accepts`) runs the kernel and records on the tapes
    in this one frame, so that `dg.multiply(x, y)` and `x * y` cost one Python call;
    anything else is converted by `binary_operands` and goes through `apply_op`."""
    cache = op_cache(op_def)

    def converted(x: Any, y: Any, name: Optional[str]) -> Any:
        x, y = binary_operands(op_def.type, x, y)
        return apply_op(op_def, (x, y), name=name)
    binary_op = binary_form(op_def, cache, fast_path_accepts, scalar_operand, converted)
    if public_name is None:
        cache.binary = binary_op
    return _named(binary_op, public_name, module, doc)


def unary_function(op_def: OpDef, public_name: Optional[str] = None,
                   module: Optional[str] = None, doc: Optional[str] = None) -> Callable[..., Any]:
    """The function `f(x, name=None)` that runs one-input op `op_def` without attrs: a
    public op, or (`public_name` None) the one `apply_unary` calls, kept as
    its op cache's `unary`.

    Its eager fast path (an eager tensor, a simple op, a dtype the op accepted before:
    see `fast_path_accepts`) runs the kernel and records on the tapes in this one frame;
    anything else is converted and goes through `apply_op`."""
    cache = op_cache(op_def)

    def converted(x: Any, name: Optional[str]) -> Any:
        return apply_op(op_def, (convert_to_tensor(x),), name=name)
    unary_op = unary_form(op_def, cache, fast_path_accepts, converted)
    if public_name is None:
        cache.unary = unary_op
    return _named(unary_op, public_name, module, doc)


def _named(function: Any, public_name: Optional[str], module: Optional[str],
           doc: Optional[str]) -> Any:
    """`function` named as the public op it is (unchanged when it is none)."""
    if public_name is None:
        return function
    function.__name__ = function.__qualname__ = public_name
    if module is not None:
        function.__module__ = module
    function.__doc__ = doc
    return function


def apply_binary(op_def: OpDef, x: Any, y: Any, name: Optional[str] = None) -> Any:
    """A two-input op, run by `op_def`'s `binary_function` (made on first use)."""
    return ((op_def.eager_cache or op_cache(op_def)).binary or binary_function(op_def))(x, y,
                                                                                       name)


def apply_unary(op_def: OpDef, x: Any, name: Optional[str] = None, attrs: Optional[dict] = None) -> Any:
    """A one-input op: without attrs, run by `op_def`'s `unary_function` (made on first
    use); with attrs, converted and run by `apply_op`."""
    if attrs is None:
        return ((op_def.eager_cache or op_cache(op_def)).unary or unary_function(op_def))(x,
                                                                                         name)
    if type(x) is not EagerTensor:
        x = convert_to_tensor(x)
    return apply_op(op_def, (x,), attrs, name)
