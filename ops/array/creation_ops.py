"""Creating tensors: range, linspace, eye, and shape_n. Gradients: creation_grad.py."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.allocation import MAX_ELEMENTS, check_allocation
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from .array_ops import broadcast_to, reshape, shape_out_type
from ..arg_errors import by_mode, mode_error
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from .join_ops import concat
from .manip_ops import one_hot
from ..math.math_ops import cast
from ..tensor_util import constant_value

_state = context.state

# TF's range picks the widest dtype of its arguments in this order.
_RANGE_DTYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _range_length(start, limit, delta) -> int:
    """The number of elements: exact for integers, and as TF's kernel computes it for
    floats, ceil(|(limit - start) / delta|) in their own dtype (float32 counts can differ
    from double's); TF's checks: delta != 0, the direction, NaN, at most 2**63 - 1."""
    if delta == 0:
        raise ValueError("Requires delta != 0")
    floats = [v for v in (start, limit, delta) if isinstance(v, np.floating)]
    exact = (limit - start) / delta if len(floats) == 3 else None   # in the dtype
    start, limit, delta = (v.item() if hasattr(v, "item") else v for v in (start, limit, delta))
    if not ((delta > 0 and start <= limit) or (delta < 0 and start >= limit)):
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}"
                         if delta > 0 else f"Requires start >= limit when delta < 0: "
                         f"{start}/{limit}")
    if isinstance(start, int) and isinstance(limit, int) and isinstance(delta, int):
        n = -((limit - start) // -delta) if delta > 0 else -((start - limit) // delta)
    else:
        with np.errstate(all="ignore"):
            size = abs(float(exact) if exact is not None else (limit - start) / delta)
        if not size <= MAX_ELEMENTS:   # inf (and NaN, though caught above)
            raise ValueError(f"Requires ((limit - start) / delta) <= {MAX_ELEMENTS}")
        n = int(np.ceil(size))
    if n > MAX_ELEMENTS:
        raise ValueError(f"Requires ((limit - start) / delta) <= {MAX_ELEMENTS}")
    return n


def _range_kernel(start, limit, delta):
    n = _range_length(start[()], limit[()], delta[()])
    check_allocation("Range", [n], start.dtype)
    if start.dtype.kind == "f":   # TF: start + T(i) * delta, in T
        return start + np.arange(n, dtype=start.dtype) * delta
    return (start + delta * np.arange(n, dtype=np.int64)).astype(start.dtype)


def _range_infer(inputs, attrs):
    for t in inputs:
        if t.shape.rank not in (None, 0):
            raise ValueError(f"range arguments must be scalars, got shape {t.shape}")
    values = [constant_value(t) for t in inputs]
    if any(v is None for v in values):
        return [(inputs[0].dtype, TensorShape((None,)))]
    return [(inputs[0].dtype, TensorShape((_range_length(*(v[()] for v in values)),)))]


RANGE = declare_op("Range", _range_kernel, _range_infer, grad_inputs=())


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range"):
    """start, start + delta, ... up to but excluding limit (Python's range on tensors)."""
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is None:
        converted = [convert_to_tensor(a) for a in args]
        dtype = _RANGE_DTYPES[max(_RANGE_DTYPES.index(t.dtype)
                               if t.dtype in _RANGE_DTYPES else 0
                               for t in converted)]
    dtype = dtypes.as_dtype(dtype)
    # Tensors are cast to the common dtype, as in TF; Python values must convert exactly.
    tensors = [cast(a, dtype) if isinstance(a, Tensor) else constant(a, dtype) for a in args]
    return apply_op(RANGE, tensors, name=name)


def _linspace_kernel(start, stop, num):
    n = int(num)
    if n < 0:  # tf.linspace gives an empty result for num == 0
        raise ValueError(f"Requires num >= 0: {n}")
    return np.linspace(start, stop, n).astype(start.dtype)


def _linspace_infer(inputs, attrs):
    start, stop, num = inputs
    if not start.dtype.is_floating or stop.dtype != start.dtype:
        raise TypeError(f"linspace start and stop must be floating tensors of one dtype, got "
                        f"{start.dtype.name} and {stop.dtype.name}")
    value = constant_value(num)
    return [(start.dtype, TensorShape((None if value is None else int(value),)))]


LINSPACE = declare_op("LinSpace", _linspace_kernel, _linspace_infer, grad_inputs=(2,))


def linspace(start: Any, stop: Any, num: Any, name: str = "linspace", axis: int = 0):
    """`num` evenly spaced values from `start` to `stop` inclusive (scalar endpoints)."""
    if axis != 0:
        raise ValueError("linspace supports scalar start and stop (axis=0) only")
    if isinstance(start, Tensor) or not isinstance(stop, Tensor):
        start = convert_to_tensor(start)
        stop = convert_to_tensor(stop, dtype_hint=start.dtype)
    else:
        start = convert_to_tensor(start, dtype_hint=stop.dtype)
    if start.dtype.is_integer:
        # TF divides (stop - start) by the step count: integers become float as in truediv.
        target = dtypes.float64 if start.dtype.size >= 4 else dtypes.float32
        start, stop = cast(start, target), cast(stop, target)
    num = num if isinstance(num, Tensor) else constant(int(num), dtypes.int32)
    return apply_op(LINSPACE, (start, stop, num), name=name)


def _eye_dim(value: Any, what: str) -> Any:
    """eye's sizes with TF's classes where it checks them in Python: a string is a
    TypeError, a negative int an InvalidArgumentError eagerly, and (eagerly) a
    num_columns that converts to no tensor a ValueError."""
    if isinstance(value, str):
        raise TypeError(f"eye: {what} must be an int, got {value!r}")
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < 0 and _state.graph is None:
            raise InvalidArgumentError(None, None, f"eye: {what} must be non-negative, got "
                                       f"{value}")
    elif isinstance(value, Tensor):
        # Building a graph, TF's shape arithmetic rejects a bool or complex size and
        # a num_columns of rank 2 or more with a TypeError.
        if _state.graph is not None and (value.dtype.is_bool or value.dtype.is_complex or
                                         what == "num_columns" and (value.shape.rank or 0) > 1):
            raise TypeError(f"eye: {what} must be an int32 scalar, got {value!r}")
    elif what == "num_columns" and value is not None and \
            not isinstance(value, (list, tuple, float)):
        raise by_mode(ValueError, TypeError)(
            f"eye: {what} must be an int, got {value!r}")
    elif isinstance(value, (list, tuple)) and _state.graph is None:
        np.asarray(value)  # a ragged list is a ValueError, as in TF
    return value


def eye(num_rows: Any, num_columns: Any = None, batch_shape: Optional[Sequence[int]] = None,
        dtype: Any = dtypes.float32, name: Optional[str] = None):
    """An identity matrix (or a batch of them), ones on the main diagonal."""
    dtype = dtypes.as_dtype(dtype)
    num_rows = _eye_dim(num_rows, "num_rows")
    if num_columns is not None:
        num_columns = _eye_dim(num_columns, "num_columns")
    static = [num_rows, num_columns]
    if not any(isinstance(v, Tensor) for v in static):
        cols = num_rows if num_columns is None else num_columns
        check_allocation("MatrixDiagV3", list(batch_shape or []) + [int(num_rows), int(cols)],
                         dtype)
        matrix = np.eye(int(num_rows), int(cols), dtype=dtype.as_numpy_dtype)
        if batch_shape is not None:
            matrix = np.broadcast_to(matrix, tuple(batch_shape) + matrix.shape).copy()
        return constant(matrix, name=name or "eye")
    # Dynamic sizes: row i is one_hot(i, num_columns).
    cols = num_rows if num_columns is None else num_columns
    matrix = one_hot(range(num_rows), cols, dtype=dtype)
    if batch_shape is None:
        return matrix
    target = concat([constant(np.asarray(batch_shape, np.int32).reshape(-1)),
                     reshape(convert_to_tensor(num_rows), [1]),
                     reshape(convert_to_tensor(cols), [1])], axis=0)
    return broadcast_to(matrix, target, name=name)


def _shape_n_infer(inputs, attrs):
    out_type = attrs["out_type"]
    return [(out_type, TensorShape((t.shape.rank,))) for t in inputs]


def _shape_n_kernel(*xs, out_type):
    return [np.array(x.shape, dtype=out_type.as_numpy_dtype) for x in xs]


SHAPE_N = declare_op("ShapeN", _shape_n_kernel, _shape_n_infer, num_outputs=-1, grad_inputs=())


def shape_n(input: Sequence[Any], out_type: Any = dtypes.int32,  # noqa: A002 (TF's name)
            name: Optional[str] = None):
    """The shapes of several tensors at once, one 1-D tensor each."""
    if not isinstance(input, (list, tuple)):
        if not isinstance(input, Tensor) or _state.graph is not None:
            raise TypeError(f"Expected list for 'input' argument to 'ShapeN' Op, not "
                            f"{type(input).__name__}.")
        input = list(input)  # eagerly TF's fast path takes a tensor as the list of its rows
    if not input:
        raise mode_error("List argument 'input' to 'ShapeN' Op with length 0 shorter than "
                         "minimum length 1.", ValueError)
    tensors = [convert_to_tensor(t) for t in input]
    out_type = shape_out_type(dtypes.int32 if out_type is None else dtypes.as_dtype(out_type),
                              "ShapeN")
    return apply_op(SHAPE_N, tensors, {"out_type": out_type}, name)


__all__ = ["range", "linspace", "eye", "shape_n"]
