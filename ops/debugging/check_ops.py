"""dg.debugging: TensorFlow's runtime checks (check_ops.py, numerics.py).

Two ops do the work in graphs: `Assert` (stateful; raises
InvalidArgumentError "assertion failed: [...]" when its condition is false)
and `CheckNumerics` (passes its input through, raising on NaN or Inf).
Eagerly the checks run at once with TF's eager messages and return None.
In a graph a check whose values are known while building raises then (as
TF's static checks do); otherwise it returns the `Assert` op, which runs
when fetched, put in `control_dependencies`, or (inside dg.function) as a
stateful op. Shape and rank checks use static shapes and raise ValueError.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..array import array_ops
from ..math import math_ops, reduction_ops
from ..constant_op import convert_to_tensor, is_tensor
from ..control_flow.control_flow_ops import group, no_op
from ..dispatch import apply_op
from ..tensor_format import format_array
from ..tensor_util import constant_value

_state = context.state


# -- the two ops ---------------------------------------------------------------------
def _assert_kernel(resources: Any, condition: Any, *data: Any, template: tuple,
                   summarize: int) -> None:
    if np.all(condition):
        return
    pieces = [piece if isinstance(piece, str) else _summary(data[piece], summarize)
              for piece in template]
    raise InvalidArgumentError(None, None, "assertion failed: " +
                               " ".join(f"[{p}]" for p in pieces))


def _summary(array: Any, summarize: int) -> str:
    """A tensor's text inside Assert's brackets: its values without the outer ones."""
    text = format_array(array, summarize)
    return text[1:-1] if np.ndim(array) else text


ASSERT = declare_op("Assert", _assert_kernel, lambda inputs, attrs: [], num_outputs=0,
                    stateful=True, grad_inputs=(), side_effects=True)


def _check_numerics_kernel(x: np.ndarray, *, message: str) -> np.ndarray:
    if np.isnan(x).any():
        raise InvalidArgumentError(None, None, f"{message} : Tensor had NaN values")
    if np.isinf(x).any():
        raise InvalidArgumentError(None, None, f"{message} : Tensor had Inf values")
    return x


CHECK_NUMERICS = declare_op("CheckNumerics", _check_numerics_kernel,
                            lambda inputs, attrs: [(inputs[0].dtype, inputs[0].shape)],
                            grad_inputs=(), input_kinds="f")


def check_numerics(tensor: Any, message: str, name: Optional[str] = None) -> Any:
    """`tensor`, or InvalidArgumentError when it holds NaN or Inf."""
    return apply_op(CHECK_NUMERICS, [convert_to_tensor(tensor)], {"message": message},
                    name or "CheckNumerics")


assert_all_finite = check_numerics


def Assert(condition: Any, data: Sequence[Any], summarize: Optional[int] = None,  # noqa: N802
           name: Optional[str] = None) -> Any:
    """InvalidArgumentError printing `data` when `condition` is false."""
    summarize = 3 if summarize is None else int(summarize)
    condition = convert_to_tensor(condition)
    if _state.graph is None:
        if not _truth(condition.numpy()):
            text = "\n".join(repr(d.encode()) if isinstance(d, str) else
                             ", ".join(str(v) for v in np.asarray(convert_to_tensor(d).numpy())
                                       .ravel()[:summarize])
                             for d in data)
            raise InvalidArgumentError(None, None, f"Expected '{condition!s}' to be true. "
                                                   f"Summarized data: {text}")
        return None
    if condition.dtype != dtypes.bool_:
        raise TypeError(f"Input 'condition' of 'Assert' Op has type {condition.dtype.name} "
                        "that does not match expected type of bool.")
    if not isinstance(data, (list, tuple)):
        raise TypeError(f"Assert: data must be a sequence, got {type(data).__name__}")
    tensors: List[Any] = []
    template: List[Any] = []
    for item in data:
        if isinstance(item, str):
            template.append(item)
        else:
            tensors.append(convert_to_tensor(item))
            template.append(len(tensors) - 1)
    return apply_op(ASSERT, [condition] + tensors,
                    {"template": tuple(template), "summarize": summarize}, name or "Assert")


def _truth(value: np.ndarray) -> bool:
    """Python's truth of an eager condition, as TF's eager Assert takes it (`not
    condition`): ValueError for more than one element."""
    if value.size != 1:
        raise ValueError("The truth value of an array with more than one element is "
                         f"ambiguous (Assert's condition has shape {list(value.shape)}).")
    return bool(value.reshape(()))


# -- comparisons ---------------------------------------------------------------------
def _binary_assert(symbol: str, compare: Callable, x: Any, y: Any, message: Optional[str],
                   summarize: Optional[int], name: Optional[str]) -> Any:
    x = convert_to_tensor(x)
    # TF converts y on its own (a Python int beside a float x is an int32 tensor) and
    # lets the comparison op reject a dtype or shape mismatch with its own class.
    y = convert_to_tensor(y)
    test = compare(x, y)
    summarize = 3 if summarize is None else int(summarize)
    prefix = f"{message}\n" if message else ""
    if _state.graph is None:
        a, b = x.numpy(), y.numpy()
        holds = np.asarray(test.numpy())
        if holds.all():
            return None
        a_b, b_b = np.broadcast_arrays(a, b)
        bad = np.argwhere(~np.broadcast_to(holds, a_b.shape))[:summarize]
        n = min(summarize, a.size, b.size)
        raise InvalidArgumentError(None, None, (
            f"{prefix}Condition x {symbol} y did not hold.\n"
            f"Indices of first {len(bad)} different values:\n{bad}\n"
            f"Corresponding x values:\n{a_b[tuple(bad.T)]}\n"
            f"Corresponding y values:\n{b_b[tuple(bad.T)]}\n"
            f"First {n} elements of x:\n{a.ravel()[:n]}\nFirst {n} elements of y:\n"
            f"{b.ravel()[:n]}"))
    a, b = constant_value(x), constant_value(y)
    if a is not None and b is not None:
        if np.all(compare(a, b)):
            return no_op(name=name)
        raise InvalidArgumentError(None, None, (
            f"{prefix}Condition x {symbol} y did not hold element-wise:\nx ({x.name}) = \n"
            f"{format_array(a, summarize)}\ny ({y.name}) = \n{format_array(b, summarize)}"))
    holds = reduction_ops.reduce_all(test)
    data = ([message] if message else []) + [
        f"Condition x {symbol} y did not hold element-wise:", f"x ({x.name}) = ", x,
        f"y ({y.name}) = ", y]
    return Assert(holds, data, summarize=summarize, name=name or "Assert")


def _binary(symbol: str, compare: Callable, doc: str) -> Callable:
    def check(x: Any, y: Any, data: Any = None, summarize: Optional[int] = None,
              message: Optional[str] = None, name: Optional[str] = None) -> Any:
        return _binary_assert(symbol, compare, x, y, message, summarize, name)
    check.__doc__ = doc
    return check


def _np_or_op(np_fn: Callable, op_fn: Callable) -> Callable:
    return lambda a, b: np_fn(a, b) if isinstance(a, np.ndarray) else op_fn(a, b)


assert_equal = _binary("==", _np_or_op(np.equal, math_ops.equal), "Asserts x == y elementwise.")
assert_none_equal = _binary("!=", _np_or_op(np.not_equal, math_ops.not_equal),
                            "Asserts x != y elementwise.")
assert_less = _binary("<", _np_or_op(np.less, math_ops.less), "Asserts x < y elementwise.")
assert_less_equal = _binary("<=", _np_or_op(np.less_equal, math_ops.less_equal),
                            "Asserts x <= y elementwise.")
assert_greater = _binary(">", _np_or_op(np.greater, math_ops.greater),
                         "Asserts x > y elementwise.")
assert_greater_equal = _binary(">=", _np_or_op(np.greater_equal, math_ops.greater_equal),
                               "Asserts x >= y elementwise.")


def _unary(symbol: str, compare: Callable, doc: str) -> Callable:
    def check(x: Any, data: Any = None, summarize: Optional[int] = None,
              message: Optional[str] = None, name: Optional[str] = None) -> Any:
        x = convert_to_tensor(x)
        zero = np.zeros((), x.dtype.as_numpy_dtype)
        if _state.graph is None:
            a = x.numpy()
            if np.all(compare(a, zero)):
                return None
            n = 3 if summarize is None else int(summarize)
            raise InvalidArgumentError(None, None, (
                f"{message or ''}\nCondition x {symbol} 0 did not hold element-wise:\n"
                f"x (shape={x.shape} dtype={x.dtype.name}) = \n"
                f"{[str(v) for v in a.ravel()[:n]]}"))
        return _binary_assert(symbol, compare, x, zero, message, summarize, name)
    check.__doc__ = doc
    return check


assert_positive = _unary(">", _np_or_op(np.greater, math_ops.greater), "Asserts x > 0.")
assert_negative = _unary("<", _np_or_op(np.less, math_ops.less), "Asserts x < 0.")
assert_non_negative = _unary(">=", _np_or_op(np.greater_equal, math_ops.greater_equal),
                             "Asserts x >= 0.")
assert_non_positive = _unary("<=", _np_or_op(np.less_equal, math_ops.less_equal),
                             "Asserts x <= 0.")


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None, message: Optional[str] = None,
                summarize: Optional[int] = None, name: Optional[str] = None) -> Any:
    """Asserts |x - y| <= atol + rtol * |y| elementwise (default tolerances 10 eps)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    eps = np.finfo(x.dtype.as_numpy_dtype).eps if x.dtype.is_floating else 0
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=x.dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=x.dtype)
    holds = reduction_ops.reduce_all(
        math_ops.less_equal(math_ops.abs(x - y), atol + rtol * math_ops.abs(y)))
    data = [f"{message or ''}.  " if message else "",
            f"x and y not equal to tolerance rtol = {rtol!r}, atol = {atol!r}",
            f"x (shape={x.shape} dtype={x.dtype.name}) = ", x,
            f"y (shape={y.shape} dtype={y.dtype.name}) = ", y]
    return Assert(holds, data, summarize=summarize, name=name or "assert_near")


# -- static checks: dtype, rank, shapes -------------------------------------------------
def _describe(t: Any) -> str:
    return t.name if _state.graph is not None and isinstance(getattr(t, "name", None), str) \
        else ""


def _rank_check(x: Any, allowed: Sequence[int], text: str) -> Any:
    x = convert_to_tensor(x)
    rank = x.shape.rank
    if rank is None:
        return Assert(reduction_ops.reduce_any(math_ops.equal(
            array_ops.rank(x), convert_to_tensor(list(allowed)))),
            [f"Tensor {_describe(x)} must have rank {text}."])
    if rank not in allowed:
        raise ValueError(f"Tensor {_describe(x)} must have rank {text}.  Received rank {rank}, "
                         f"shape {x.shape}")
    return None if _state.graph is None else no_op()


def assert_rank(x: Any, rank: int, message: Optional[str] = None,
                name: Optional[str] = None) -> Any:
    """ValueError unless x has rank `rank`."""
    given = _rank_arg(rank)
    return _rank_check(x, [given], str(given))


def _rank_arg(rank: Any) -> int:
    """`rank` as TF's assert_rank takes it: converted to a tensor (that conversion's
    classes), TypeError unless integer, ValueError unless a known scalar."""
    if isinstance(rank, (int, np.integer)) and not isinstance(rank, bool) \
            and -2**63 <= rank < 2**63:
        return int(rank)
    tensor = convert_to_tensor(rank)
    if not tensor.dtype.is_integer:
        raise TypeError(f"assert_rank: rank must be of type int32 or int64, got "
                        f"{tensor.dtype.name}")
    value = constant_value(tensor)
    if value is None or np.ndim(value) != 0:
        raise ValueError(f"Rank must be a scalar (a known int), got {rank!r}")
    return int(value)


def assert_rank_at_least(x: Any, rank: int, message: Optional[str] = None,
                         name: Optional[str] = None) -> Any:
    """ValueError unless x has rank `rank` or more."""
    x = convert_to_tensor(x)
    top = max(int(rank), x.shape.rank or 0)
    return _rank_check(x, list(range(int(rank), top + 1)), f"at least {int(rank)}")


def assert_rank_in(x: Any, ranks: Sequence[int], message: Optional[str] = None,
                   name: Optional[str] = None) -> Any:
    """ValueError unless x's rank is one of `ranks`."""
    ranks = tuple(int(r) for r in ranks)
    return _rank_check(x, ranks, f"in {ranks}")


def assert_scalar(tensor: Any, message: Optional[str] = None, name: Optional[str] = None) -> Any:
    tensor = convert_to_tensor(tensor)
    if tensor.shape.rank not in (None, 0):
        raise ValueError(f"{message or ''}Expected scalar shape, saw shape: {tensor.shape}.")
    return tensor


def assert_type(tensor: Any, tf_type: Any, message: Optional[str] = None,
                name: Optional[str] = None) -> Any:
    tf_type = dtypes.as_dtype(tf_type)
    if convert_to_tensor(tensor).dtype != tf_type:
        raise TypeError(f"{message or ''}tensor must be of type dg.{tf_type.name}; got "
                        f"dg.{convert_to_tensor(tensor).dtype.name}")
    return None if _state.graph is None else no_op()


def assert_integer(x: Any, message: Optional[str] = None, name: Optional[str] = None) -> Any:
    dtype = convert_to_tensor(x).dtype
    if not dtype.is_integer:
        raise TypeError(f'{message or ""}Expected "x" to be integer type.  Found: tensor of '
                        f"dtype {dtype.name}")
    return None if _state.graph is None else no_op()


def is_numeric_tensor(tensor: Any) -> bool:
    return isinstance(tensor, Tensor) and (tensor.dtype.is_floating or tensor.dtype.is_integer
                                           or tensor.dtype.is_complex)


def assert_shapes(shapes: Any, data: Any = None, summarize: Optional[int] = None,
                  message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """Checks tensors against shape specs: ints, symbol strings shared between tensors,
    '.' (any size) and a leading '*' (any number of leading dimensions)."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes: dict = {}
    checks: List[Any] = []
    for x, spec in pairs:
        x = convert_to_tensor(x.deref() if hasattr(x, "deref") else x)
        spec = list(spec) if isinstance(spec, (list, tuple, TensorShape)) else [spec]
        wildcard = bool(spec) and spec[0] == "*"
        spec = spec[1:] if wildcard else spec
        dims = x.shape.as_list() if x.shape.rank is not None else None
        if dims is not None and not wildcard:
            allowed = (0, 1) if len(spec) == 1 else (len(spec),)
            if len(dims) not in allowed:
                text = f"in {allowed}" if len(allowed) > 1 else str(allowed[0])
                raise ValueError(f"Tensor {_describe(x)} must have rank {text}.  Received rank "
                                 f"{len(dims)}, shape {x.shape}")
            if len(dims) != len(spec):
                continue
        for k, symbol in enumerate(spec):
            if symbol in (".", None):
                continue
            axis = k if not wildcard else k - len(spec)
            size = None if dims is None or len(dims) < len(spec) else dims[axis]
            dim = axis if dims is None else axis % max(len(dims), 1)
            expected, origin = (int(symbol), "Specified explicitly.") \
                if not isinstance(symbol, str) else sizes.get(symbol, (None, None))
            if isinstance(symbol, str) and expected is None:
                if size is not None:
                    sizes[symbol] = (size, f"Specified by tensor {_describe_full(x)} dimension "
                                           f"{dim}.")
                continue
            if size is not None and expected is not None and size != expected:
                raise ValueError(f"{origin}  Tensor {_describe_full(x)} dimension "
                                 f"{dim} must have size {expected}.  "
                                 f"Received size {size}, shape {x.shape}")
            if size is None and expected is not None:
                checks.append(Assert(math_ops.equal(array_ops.shape(x)[axis], expected),
                                     [f"{origin}  Tensor {_describe_full(x)} dimension {axis} "
                                      f"must have size {expected}."]))
    if _state.graph is None:
        return None
    return no_op() if not checks else checks[0] if len(checks) == 1 else group(*checks)


def _describe_full(x: Any) -> str:
    return _describe(x) or f"shape={x.shape} dtype={x.dtype.name}"


def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> Any:
    """The common floating dtype of `tensors` (and `dtype`); ValueError when they differ."""
    found = dtypes.as_dtype(dtype) if dtype is not None else None
    for t in tensors or []:
        if not is_tensor(t):
            continue
        t_dtype = convert_to_tensor(t).dtype
        if found is None:
            found = t_dtype
        elif t_dtype != found:
            raise ValueError(f"{t!r}, type={t_dtype.name}, must be of the same type "
                             f"({found.name}).")
    if found is not None and not found.is_floating:
        raise ValueError(f"Expected floating point type, got {found.name}.")
    return found or dtypes.float32


__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater",
           "assert_greater_equal", "assert_integer", "assert_less", "assert_less_equal",
           "assert_near", "assert_negative", "assert_non_negative", "assert_non_positive",
           "assert_none_equal", "assert_positive", "assert_rank", "assert_rank_at_least",
           "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_shapes",
           "assert_type", "check_numerics", "is_numeric_tensor"]
