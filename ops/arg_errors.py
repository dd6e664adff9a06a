"""TF's exception classes for bad arguments of op wrappers (validation lives here,
in the wrappers, never in kernels or the dispatch path).

TF reports a bad value twice over: eagerly the kernel (or its attr check)
raises InvalidArgumentError; while a graph is built, op construction raises
TypeError (a dtype) or ValueError (a shape or value). `mode_error` picks the
class for the current mode (`by_mode` for two plain classes); `scalar_int_arg` is TF's handling of an axis-like
argument that is an int32/int64 scalar tensor input (Cumsum's axis, ArgMax's
dimension, TopKV2's k, ExpandDims' dim, ...).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..eager import context
from ..eager.eager_tensor import EagerTensor
from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from ..framework.tensor import Tensor
from .tensor_util import constant_value

_state = context.state


def mode_error(message: str, graph_class: type) -> Exception:
    """InvalidArgumentError eagerly, `graph_class` while building a graph."""
    if _state.graph is None:
        return InvalidArgumentError(None, None, message)
    return graph_class(message)


def by_mode(eager_class: type, graph_class: type) -> type:
    """The class TF raises for one bad argument in the current mode: `eager_class`
    eagerly (conversion), `graph_class` while building a graph (op construction)."""
    return eager_class if _state.graph is None else graph_class


def scalar_int_arg(value: Any, what: str = "axis") -> int:
    """`value` as a Python int, raising TF's class when it is not an integer scalar:
    None or a ragged list ValueError; an object that converts to no tensor
    ValueError (graph: TypeError); a string or a non-integer tensor
    InvalidArgumentError (graph: TypeError); a non-scalar InvalidArgumentError
    (graph: ValueError)."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer:
            raise mode_error(f"{what} must be an int32 or int64 scalar, got a "
                             f"{value.dtype.name} tensor", TypeError)
        array = value.array if isinstance(value, EagerTensor) else constant_value(value)
        if array is None:
            raise ValueError(f"{what} must be statically known, got {value}")
    elif isinstance(value, (bool, np.bool_)):
        raise mode_error(f"{what} must be an integer, got {value!r}", TypeError)
    elif isinstance(value, (int, np.integer)):
        if not -2**63 <= int(value) < 2**63:
            raise ValueError(f"{what}: Can't convert Python sequence with out-of-range "
                             "integer to Tensor.")
        return int(value)
    else:
        array = np.asarray(value)  # a ragged list raises ValueError here, as in TF
        if array.dtype.kind == "O":
            error = ValueError if _state.graph is None or value is None else TypeError
            raise error(f"Attempt to convert a value ({value!r}) with an unsupported type "
                        f"({type(value).__name__}) to a Tensor ({what}).")
        if array.dtype.kind not in "iu":
            raise mode_error(f"{what} must be an int32 or int64 scalar, got {value!r}",
                             TypeError)
    if np.ndim(array) != 0:
        raise mode_error(f"{what} must be a scalar, got shape {list(np.shape(array))}",
                         ValueError)
    return int(array)


def int_vector_arg(value: Any, what: str) -> tuple:
    """`value` (a list or 1-D integer tensor, e.g. transpose's perm) as a tuple of
    ints, with the classes of `scalar_int_arg` and a non-vector
    InvalidArgumentError (graph: ValueError)."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer:
            raise mode_error(f"{what} must be int32 or int64, got a {value.dtype.name} tensor",
                             TypeError)
        array = value.array if isinstance(value, EagerTensor) else constant_value(value)
        if array is None:
            raise ValueError(f"{what} must be statically known, got {value}")
    else:
        array = np.asarray(value)
        if array.dtype.kind == "O":
            error = ValueError if _state.graph is None or value is None else TypeError
            raise error(f"Attempt to convert a value ({value!r}) with an unsupported type "
                        f"({type(value).__name__}) to a Tensor ({what}).")
        if array.size and array.dtype.kind not in "iu":
            raise mode_error(f"{what} must be integers, got {value!r}", TypeError)
        if array.dtype == np.uint64 and array.size and array.max() > 2**63 - 1:
            raise ValueError(f"{what}: Can't convert Python sequence with out-of-range "
                             "integer to Tensor.")
    if np.ndim(array) != 1:
        raise mode_error(f"{what} must be a vector, got shape {list(np.shape(array))}",
                         ValueError)
    return tuple(int(a) for a in array)


def bool_attr(value: Any, what: str) -> bool:
    """A bool attr (adjoint, full_matrices, ...): TF accepts only bools (TypeError)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"Expected bool for argument '{what}' not {value!r}.")


def truth_tested_dtype(value: Any, default: Any) -> Any:
    """A dtype argument TF tests for truth before converting (zeros_like's dtype,
    shape's out_type): a tensor there is a ValueError eagerly (an ambiguous truth
    value), OperatorNotAllowedInGraphError building a graph; None is `default`."""
    if isinstance(value, Tensor):
        if _state.graph is None:
            raise ValueError(f"The truth value of a tensor is ambiguous: {value!r} is no dtype")
        raise OperatorNotAllowedInGraphError(f"Using a tensor ({value!r}) as a Python bool "
                                             "(a dtype) is not allowed in graph mode.")
    return default if value is None else dtypes.as_dtype(value)


def int_array_arg(value: Any, what: str) -> Any:
    """An integer array argument (a shape, tile's multiples, pad's paddings): an
    integer tensor as it is, anything else as an int32 array, with TF's classes:
    None or an unconvertible value ValueError (a TypeError building a graph), a
    string or non-integer values InvalidArgumentError (TypeError)."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer:
            raise mode_error(f"{what} must be int32 or int64, got a {value.dtype.name} tensor",
                             TypeError)
        return value
    if value is None:
        raise ValueError(f"{what} must be a list of integers, got None")
    if isinstance(value, str):
        raise mode_error(f"{what} must be a list of integers, got {value!r}", TypeError)
    packed = pack_tensor_list(value, what)
    if packed is not None:
        return packed
    array = np.asarray(value)  # a ragged list is a ValueError here, as in TF
    if array.dtype.kind == "O":
        raise (ValueError if _state.graph is None else TypeError)(
            f"{what} must be a list of integers, got {value!r}")
    if array.size and array.dtype.kind not in "iu":
        raise mode_error(f"{what} must be integers, got {value!r}", TypeError)
    if array.size and (array.max() > 2**31 - 1 or array.min() < -2**31):
        if array.dtype == np.uint64 and array.max() > 2**63 - 1:
            raise ValueError(f"{what}: Can't convert Python sequence with out-of-range "
                             "integer to Tensor.")
        return array.astype(np.int64)   # TF converts such a list to an int64 tensor
    return array.astype(np.int32)


def pack_tensor_list(value: Any, what: str) -> Any:
    """A flat list or tuple of integer scalars of which some are graph tensors, packed
    into one int32/int64 vector tensor (TF's auto-packing of `[n, 3]` where n is a
    tensor); None for anything else."""
    if not isinstance(value, (list, tuple)) or not any(
            isinstance(v, Tensor) and not isinstance(v, EagerTensor) for v in value):
        return None
    from .array.join_ops import stack   # late: join_ops sits above this module
    from .constant_op import convert_to_tensor
    parts = [convert_to_tensor(v) if isinstance(v, Tensor) else v for v in value]
    tensors = [p for p in parts if isinstance(p, Tensor)]
    for t in tensors:
        if not t.dtype.is_integer or t.shape.rank not in (0, None):
            raise TypeError(f"{what}: every element must be an integer scalar, got {t!r}")
    dtype = dtypes.int64 if any(t.dtype == dtypes.int64 for t in tensors) else dtypes.int32

    def element(part: Any) -> Tensor:
        if isinstance(part, Tensor):
            return part if part.dtype == dtype else _cast_int(part, dtype)
        return convert_to_tensor(part, dtype=dtype)
    return stack([element(p) for p in parts])


def _cast_int(t: Tensor, dtype: Any) -> Tensor:
    from .math.math_ops import cast   # late: math_ops sits above this module
    return cast(t, dtype)


def check_op_name(name: Any) -> None:
    """TF's classes for an op name that is no string, for wrappers that may build no
    op (they still validate the name while a graph is built): a tensor
    OperatorNotAllowedInGraphError, anything else TypeError."""
    if name is None or isinstance(name, str) or _state.graph is None:
        return
    if isinstance(name, Tensor):
        raise OperatorNotAllowedInGraphError(f"Using a tensor ({name!r}) as an op name is "
                                             "not allowed in graph mode.")
    raise TypeError(f"Op names are strings: expected string or bytes-like object, got "
                    f"'{type(name).__name__}'")
