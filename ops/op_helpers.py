"""Helpers shared by the public op wrappers: input conversion with TF's dtype rules."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ..eager import context
from ..eager.eager_tensor import EagerTensor
from ..framework.dtypes import from_numpy
from ..framework.errors import InvalidArgumentError
from ..framework.op_def import OpDef
from ..framework.tensor import Tensor
from .constant_op import convert_to_tensor
from ..eager.execute import execute_binary, execute_unary
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


def _operand(value: Any, dtype: Any) -> Tensor:
    """A non-tensor operand in the other operand's dtype (TypeError if lossy, as TF).

    Eager Python scalars are converted once per (value, dtype) and thread."""
    kind = type(value)
    if (kind is int or kind is float) and _state.graph is None and dtype.kind:
        return scalar_operand(value, np.dtype(dtype.as_numpy_dtype), dtype)
    if hasattr(value, "__dg_tensor__"):
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype=dtype)


def scalar_operand(value: Any, np_dtype: Any, dtype: Any = None) -> EagerTensor:
    """An eager Python int/float operand as a tensor of `np_dtype` (TypeError if lossy,
    as TF), converted once per (value, dtype) and thread: eager tensors are immutable.
    (0.0 and -0.0 are equal keys but different operands: zeros are not cached.)"""
    by_dtype = _state.scalar_operands.get(np_dtype)
    if by_dtype is None:
        by_dtype = _state.scalar_operands[np_dtype] = {}
    tensor: Any = by_dtype.get(value)  # eager, so convert_to_tensor gives an EagerTensor
    if tensor is None:
        tensor = convert_to_tensor(value, dtype=dtype if dtype is not None else
                                   from_numpy(np_dtype))
        if value and len(by_dtype) < MAX_CACHED_OPERANDS:
            by_dtype[value] = tensor
    return tensor


def apply_binary(op_def: OpDef, x: Any, y: Any, name: Optional[str] = None) -> Any:
    """A binary elementwise op; the eager fast path skips all conversion work."""
    if _state.graph is None and op_def.simple:
        tx, ty = type(x), type(y)
        if tx is EagerTensor:
            if ty is EagerTensor:
                xd, yd = x.array.dtype, y.array.dtype
                if xd is yd or xd == yd:  # (identity first: dtype == is a slow compare)
                    return execute_binary(op_def, x, y)
            elif ty is float or ty is int:
                np_dtype = x.array.dtype  # scalar_operand's cache hit, inline (`x * 0.5`)
                by_dtype = _state.scalar_operands.get(np_dtype)
                operand = by_dtype.get(y) if by_dtype is not None else None
                return execute_binary(op_def, x, operand if operand is not None
                                      else scalar_operand(y, np_dtype))
        elif ty is EagerTensor:
            if tx is float or tx is int:
                return execute_binary(op_def, scalar_operand(x, y.array.dtype), y)
    x, y = binary_operands(op_def.type, x, y)
    return apply_op(op_def, (x, y), name=name)


def apply_unary(op_def: OpDef, x: Any, name: Optional[str] = None, attrs: Optional[dict] = None) -> Any:
    """A one-input op; converts non-tensors first."""
    if type(x) is not EagerTensor:
        x = convert_to_tensor(x)
    elif not attrs and op_def.simple and _state.graph is None:
        return execute_unary(op_def, x)
    if attrs:
        return apply_op(op_def, (x,), attrs, name)
    return apply_op(op_def, (x,), name=name)
