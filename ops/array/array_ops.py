"""Array ops: identity, shapes, reshaping and creation. Gradients: array_grad.py."""
from __future__ import annotations

import functools
import math
from typing import Any, Optional, Sequence

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ...framework.allocation import check_allocation
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op, lookup_op, shared_attrs
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape, broadcast_shapes
from ..arg_errors import (int_array_arg, int_vector_arg, mode_error, pack_tensor_list, scalar_int_arg,
                          truth_tested_dtype)
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..op_helpers import apply_unary
from ..shape_rules import same_as_input
from ..tensor_util import constant_value, shape_from_tensor
from .int_vectors import int_vector, only_ints
from .join_ops import stack

_state = context.state


def _static_shape_or_tensor(shape: Any):
    """A shape argument as an int32 tensor (lists, tuples, TensorShapes, tensors),
    with TF's classes for anything else: None or an unconvertible value ValueError
    (a TypeError building a graph), a string or non-integer values
    InvalidArgumentError (TypeError), a dimension below -1 InvalidArgumentError
    (ValueError)."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if _state.graph is None and type(shape) in (list, tuple) and shape and only_ints(shape):
        if min(shape) < -1:   # Python ints eagerly (a loop's reshape): converted once
            raise mode_error(f"shape {list(shape)} has a dimension below -1", ValueError)
        return int_vector(shape, dtypes.int32)
    if (_state.graph is not None and isinstance(shape, (list, tuple))
            and any(isinstance(d, Tensor) for d in shape)):
        # [tf.shape(x)[0], -1] building a graph: packed into one int32 vector, as TF does.
        return stack([convert_to_tensor(d, dtype=dtypes.int32) for d in shape], name="shape")
    array = int_array_arg(shape, "shape")
    if isinstance(array, Tensor):
        return array
    array = array.reshape(-1)
    if array.size and array.min() < -1:
        raise mode_error(f"shape {array.tolist()} has a dimension below -1", ValueError)
    return constant(array, name="shape")


# -- identity-like ----------------------------------------------------------
IDENTITY = declare_op("Identity", lambda x: x, same_as_input, grad_inputs=())
STOP_GRADIENT = declare_op("StopGradient", lambda x: x, same_as_input, grad_inputs=())


def _identity_n_infer(inputs, attrs):
    return [(t.dtype, t.shape) for t in inputs]


IDENTITY_N = declare_op("IdentityN", lambda *xs: list(xs), _identity_n_infer, num_outputs=-1,
                        grad_inputs=())


def identity(input: Any, name: Optional[str] = None):  # noqa: A002 (TF's name)
    """Returns a tensor with the same value (a new node in graph mode)."""
    if hasattr(input, "__dg_tensor__") and not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    return apply_unary(IDENTITY, input, name)


def identity_n(input: Sequence[Any], name: Optional[str] = None):  # noqa: A002
    inputs = [convert_to_tensor(t) for t in input]
    return apply_op(IDENTITY_N, inputs, name=name)


def stop_gradient(input: Any, name: Optional[str] = None):  # noqa: A002
    """Identity whose gradient is None: the value is treated as a constant."""
    return apply_unary(STOP_GRADIENT, input, name)


# -- placeholders -----------------------------------------------------------
def _placeholder_kernel(*, dtype, shape, feed_name):
    raise ValueError(f"placeholder {feed_name} must be fed")


def _placeholder_infer(inputs, attrs):
    return [(attrs["dtype"], attrs["shape"])]


PLACEHOLDER = declare_op("Placeholder", _placeholder_kernel, _placeholder_infer, grad_inputs=())


def placeholder(dtype: Any, shape: Any = None, name: Optional[str] = None):
    """A graph input that must be fed to `Session.run` (graph mode only)."""
    graph = _state.graph
    if graph is None:
        raise RuntimeError("dg.placeholder() is not compatible with eager execution; "
                           "build it inside a dg.Graph().as_default() block.")
    attrs = {"dtype": dtypes.as_dtype(dtype), "shape": as_shape(shape), "feed_name": name}
    return apply_op(PLACEHOLDER, (), attrs, name or "Placeholder")


# -- shapes -----------------------------------------------------------------
def _shape_infer(inputs, attrs):
    return [(attrs["out_type"], TensorShape((inputs[0].shape.rank,)))]


def _shape_kernel(x, *, out_type):
    return np.array(np.shape(x), dtype=out_type.as_numpy_dtype)


SHAPE = declare_op("Shape", _shape_kernel, _shape_infer, grad_inputs=())
SIZE = declare_op("Size", lambda x, *, out_type: np.array(np.size(x), out_type.as_numpy_dtype),
                  lambda inputs, attrs: [(attrs["out_type"], TensorShape(()))], grad_inputs=())
RANK = declare_op("Rank", lambda x: np.array(np.ndim(x), np.int32),
                  lambda inputs, attrs: [(dtypes.int32, TensorShape(()))], grad_inputs=())


def shape(input: Any, out_type: Any = dtypes.int32, name: Optional[str] = None):  # noqa: A002
    """The dynamic shape of `input` as a 1-D integer tensor."""
    return apply_unary(SHAPE, input, name,
                       {"out_type": shape_out_type(truth_tested_dtype(out_type, dtypes.int32),
                                                   "Shape")})


def shape_out_type(dtype: Any, op: str) -> Any:
    """Shape's and ShapeN's out_type attr: int32 or int64 (an int given there is TF's
    DataType enum, int8 for 7), else the op's attr error."""
    if dtype not in (dtypes.int32, dtypes.int64):
        raise mode_error(f"Value for attr 'out_type' of {dtype} is not in the list of allowed "
                         f"values: int32, int64 ({op})", TypeError)
    return dtype


def size(input: Any, out_type: Any = dtypes.int32, name: Optional[str] = None):  # noqa: A002
    return apply_unary(SIZE, input, name,
                       {"out_type": truth_tested_dtype(out_type, dtypes.int32)})


def rank(input: Any, name: Optional[str] = None):  # noqa: A002
    return apply_unary(RANK, input, name)


# -- reshape ----------------------------------------------------------------
def _dims(shape) -> Any:
    """A 1-D shape array as Python ints (tolist: one C call, not one int() per dim)."""
    if type(shape) is np.ndarray and shape.ndim == 1 and shape.dtype.kind in "iu":
        return shape.tolist()
    return tuple(int(d) for d in shape)


def _reshape_kernel(x, shape):
    # the method, not np.reshape's wrapper: ~1 us less a call in loop bodies; a
    # NumPy scalar (a ufunc's result on 0-d arrays) becomes a 0-d array first
    return np.asarray(x).reshape(_dims(shape))


def _reshape_infer(inputs, attrs):
    x, shape_tensor = inputs
    target = shape_from_tensor(shape_tensor)
    if target.dims is None:
        return [(x.dtype, target)]
    dims = list(target.dims)
    known = x.shape.num_elements()
    if dims.count(None) > 1 and constant_value(shape_tensor) is not None:
        raise ValueError(f"can only infer one unknown dimension in shape {target}")
    if known is not None:
        if None in dims and dims.count(None) == 1:
            rest = 1
            for d in dims:
                if d is not None:
                    rest *= d
            if rest == 0 or known % rest:
                raise ValueError(f"Cannot reshape a tensor with {known} elements to shape "
                                 f"{target} (the unknown dimension cannot be inferred)")
            if constant_value(shape_tensor) is not None:
                dims[dims.index(None)] = known // rest
        elif None not in dims and int(np.prod(dims)) != known:
            raise ValueError(f"Cannot reshape a tensor with {known} elements to shape "
                             f"{list(dims)} ({int(np.prod(dims))} elements)")
    return [(x.dtype, TensorShape(tuple(dims)))]


RESHAPE = declare_op("Reshape", _reshape_kernel, _reshape_infer, grad_inputs=())


def reshape(tensor: Any, shape: Any, name: Optional[str] = None):
    """`tensor` with the same elements in `shape` (one dimension may be -1)."""
    tensor = convert_to_tensor(tensor)
    return apply_op(RESHAPE, (tensor, _static_shape_or_tensor(shape)), name=name)


# -- creation ---------------------------------------------------------------
def _fill_kernel(dims, value):
    shape = tuple(int(d) for d in dims)
    if min(shape, default=0) >= 0:   # NumPy reports a negative one
        check_allocation("Fill", shape, np.asarray(value).dtype)
    return np.full(shape, value, dtype=np.asarray(value).dtype)


def _fill_infer(inputs, attrs):
    return [(inputs[1].dtype, shape_from_tensor(inputs[0]))]


FILL = declare_op("Fill", _fill_kernel, _fill_infer, grad_inputs=())


def fill(dims: Any, value: Any, name: Optional[str] = None):
    """A tensor of shape `dims` filled with the scalar `value`."""
    if _state.graph is None:  # eagerly TF converts the value first (its ValueError first)
        value = convert_to_tensor(value)
        return apply_op(FILL, (_static_shape_or_tensor(dims), value), name=name)
    return apply_op(FILL, (_static_shape_or_tensor(dims), convert_to_tensor(value)), name=name)


def _full(shape: Any, dtype: Any, value: int, name: Optional[str]):
    dtype = dtypes.as_dtype(dtype)
    if shape is None:
        raise ValueError("zeros/ones: shape must be a list of dimensions, got None")
    packed = pack_tensor_list(shape, "zeros/ones shape")
    if packed is not None:   # [n, 3] with n a graph tensor: TF packs it into one
        shape = packed
    if isinstance(shape, Tensor):
        shape = convert_to_tensor(shape)  # a graph tensor in eager mode is a TypeError
        if not shape.dtype.is_integer:
            raise mode_error(f"shape must be int32 or int64, got a {shape.dtype.name} tensor",
                             TypeError)
        if shape.shape.rank not in (None, 1):
            raise mode_error(f"shape must be a vector, got a tensor of shape {shape.shape}",
                             ValueError)
        # via NumPy, so that 1 becomes True for bool (a Python int is not a bool constant)
        return fill(shape, constant(np.asarray(value, dtype.as_numpy_dtype)), name=name)
    # TF converts the shape to an int32 tensor: a string is a TypeError, another
    # value that is no list of ints a ValueError (TypeError building a graph).
    unconvertible = ValueError if _state.graph is None else TypeError
    if isinstance(shape, str):
        raise TypeError(f"zeros/ones: shape must be a list of ints, got {shape!r}")
    if not isinstance(shape, (int, np.integer, list, tuple, TensorShape)) and \
            np.asarray(shape).dtype.kind not in "iu":
        raise unconvertible(f"zeros/ones: cannot interpret {shape!r} as a shape")
    try:
        dims = tuple(as_shape(shape).as_list()) if not isinstance(shape, int) else (shape,)
    except TypeError:
        raise unconvertible(f"zeros/ones: cannot interpret {shape!r} as a shape") from None
    except ValueError as error:  # a negative dimension
        if _state.graph is None:
            raise InvalidArgumentError(None, None, str(error)) from None
        raise
    if any(d is None or d < 0 for d in dims):
        message = f"Dimensions must be known and non-negative, got shape {list(dims)}"
        raise mode_error(message, ValueError)
    if any(d > 2**63 - 1 for d in dims):   # TF cannot convert the shape to int64
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    check_allocation("Fill", dims, dtype)
    return constant(np.full(dims, value, dtype=dtype.as_numpy_dtype), name=name or "Const")


def zeros(shape: Any, dtype: Any = dtypes.float32, name: Optional[str] = None):
    return _full(shape, dtype, 0, name)


def ones(shape: Any, dtype: Any = dtypes.float32, name: Optional[str] = None):
    return _full(shape, dtype, 1, name)


def _zeros_like_kernel(x):
    if x.dtype.kind in "OS":   # a string tensor's "zero" is the empty string
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


ZEROS_LIKE = declare_op("ZerosLike", _zeros_like_kernel, same_as_input, grad_inputs=())
ONES_LIKE = declare_op("OnesLike", np.ones_like, same_as_input, grad_inputs=())


def zeros_like(input: Any, dtype: Any = None, name: Optional[str] = None):  # noqa: A002
    """Zeros with the shape of `input` (and its dtype unless `dtype` is given)."""
    input = convert_to_tensor(input)
    dtype = truth_tested_dtype(dtype, None)
    if dtype is not None and dtype != input.dtype:
        return zeros(shape(input), dtype, name) if not input.shape.is_fully_defined() \
            else zeros(input.shape, dtype, name)
    if type(input) is EagerTensor:
        return EagerTensor(_zeros_like_kernel(input.array))
    return apply_op(ZEROS_LIKE, (input,), name=name)


def ones_like(input: Any, dtype: Any = None, name: Optional[str] = None):  # noqa: A002
    input = convert_to_tensor(input)
    dtype = truth_tested_dtype(dtype, None)
    if dtype is not None and dtype != input.dtype:
        return ones(shape(input), dtype, name) if not input.shape.is_fully_defined() \
            else ones(input.shape, dtype, name)
    if type(input) is EagerTensor:
        return EagerTensor(np.ones_like(input.array))
    return apply_op(ONES_LIKE, (input,), name=name)


# -- broadcasting -------------------------------------------------------------
# Up to this many elements BroadcastTo fills a fresh array (~0.4 us) instead of
# returning np.broadcast_to's view (~2.5 us of Python-level setup): a gradient's
# broadcast in a loop body; larger results stay views (no memory).
SMALL_BROADCAST = 4096


def _broadcast_to_kernel(x, shape):
    dims = tuple(_dims(shape))
    x = np.asarray(x)
    if x.shape == dims:
        return x   # values are never written in place: the input itself
    if x.ndim <= len(dims) and min(dims, default=0) >= 0 and math.prod(dims) <= SMALL_BROADCAST:
        out = np.empty(dims, x.dtype)
        try:
            out[...] = x   # x has no more axes than dims: NumPy's broadcasting rule
            return out
        except ValueError:
            pass  # np.broadcast_to below raises its own message
    if min(dims, default=0) >= 0:   # TF allocates the result (NumPy's is a view)
        check_allocation("BroadcastTo", dims, x.dtype)
    return np.broadcast_to(x, dims)


def _broadcast_to_infer(inputs, attrs):
    target = shape_from_tensor(inputs[1])
    merged = broadcast_shapes(inputs[0].shape, target)
    if merged.rank is not None and target.rank is not None and merged.rank != target.rank:
        raise ValueError(f"Cannot broadcast shape {inputs[0].shape} to {target}")
    return [(inputs[0].dtype, target.merge_with(merged) if target.rank == merged.rank else target)]


BROADCAST_TO = declare_op("BroadcastTo", _broadcast_to_kernel, _broadcast_to_infer, grad_inputs=())


def broadcast_to(input: Any, shape: Any, name: Optional[str] = None):  # noqa: A002
    input = convert_to_tensor(input)
    return apply_op(BROADCAST_TO, (input, _static_shape_or_tensor(shape)), name=name)


def _sum_to_shape_kernel(x, shape):
    """Sums broadcast dimensions of `x` away so that it has `shape`."""
    target = tuple(int(d) for d in shape)
    lead = x.ndim - len(target)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(target)
                                      if d == 1 and x.shape[i + lead] != 1)
    out = np.sum(x, axis=axes, keepdims=True) if axes else x
    return out.reshape(target)


def _sum_to_shape_infer(inputs, attrs):
    return [(inputs[0].dtype, shape_from_tensor(inputs[1]))]


SUM_TO_SHAPE = declare_op("SumToShape", _sum_to_shape_kernel, _sum_to_shape_infer, grad_inputs=())


def sum_to_shape(x: Any, shape: Any, name: Optional[str] = None):
    """Undoes broadcasting: sums `x` down to `shape` (an internal op, the
    dynamic-shape counterpart of a static reduce_sum + reshape)."""
    return apply_op(SUM_TO_SHAPE, (x, _static_shape_or_tensor(shape)), name=name)


__all__ = ["identity", "identity_n", "stop_gradient", "placeholder", "shape", "size", "rank",
           "reshape", "fill", "zeros", "ones", "zeros_like", "ones_like", "broadcast_to"]


# -- selection ----------------------------------------------------------------
def _select_infer(inputs, attrs):
    cond, x, y = inputs
    if not cond.dtype.is_bool:
        raise TypeError(f"where condition must be bool, got {cond.dtype.name}")
    if x.dtype is not y.dtype:
        raise TypeError(f"where branches have different dtypes: {x.dtype.name} and {y.dtype.name}")
    shape = broadcast_shapes(broadcast_shapes(cond.shape, x.shape), y.shape)
    return [(x.dtype, shape)]


SELECT = declare_op("SelectV2", np.where, _select_infer, grad_inputs=(0,),
                    same_dtype=slice(1, 3))


def _where_indices_kernel(condition):
    if condition.ndim == 0:  # TF's kernel (its shape function lets a scalar through)
        raise ValueError("Where: the condition must have rank >= 1, got a scalar")
    return np.argwhere(condition).astype(np.int64)


WHERE_INDICES = declare_op(
    "Where", _where_indices_kernel,
    lambda inputs, attrs: [(dtypes.int64, TensorShape((None, inputs[0].shape.rank)))],
    grad_inputs=())


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None):
    """Elementwise `x if condition else y` (broadcasting); with only `condition`,
    the int64 coordinates of its true elements."""
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        if condition.dtype == dtypes.string:
            raise mode_error("Where: the condition must be bool or numeric, got string",
                             TypeError)
        if not condition.dtype.is_bool:  # Cast is declared in math_ops, which imports us
            condition = apply_op(lookup_op("Cast"), (condition,), {"DstT": dtypes.bool_})
        return apply_op(WHERE_INDICES, (condition,), name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be given, or neither")
    if isinstance(x, Tensor) or not isinstance(y, Tensor):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype_hint=x.dtype)
    else:
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype_hint=y.dtype)
    return apply_op(SELECT, (condition, x, y), name=name)


__all__ += ["where"]


# -- axes -----------------------------------------------------------------------
def _expand_dims_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    dims = list(x.shape.dims)
    axis = attrs["axis"]
    if not -(len(dims) + 1) <= axis <= len(dims):
        raise ValueError(f"axis {axis} out of range [-{len(dims) + 1}, {len(dims)}] "
                         f"for a tensor of shape {x.shape}")
    dims.insert(axis % (len(dims) + 1), 1)
    return [(x.dtype, TensorShape(tuple(dims)))]


def _expand_dims_kernel(x, *, axis):
    if not -(x.ndim + 1) <= axis <= x.ndim:
        raise InvalidArgumentError(None, None, f"Tried to expand dim index {axis} for tensor "
                                   f"with {x.ndim} dimensions.")
    return np.expand_dims(x, axis)


EXPAND_DIMS = declare_op("ExpandDims", _expand_dims_kernel, _expand_dims_infer, grad_inputs=())


def expand_dims(input: Any, axis: int, name: Optional[str] = None):  # noqa: A002
    """`input` with a new axis of size 1 inserted at `axis`."""
    return apply_unary(EXPAND_DIMS, input, name, {"axis": scalar_int_arg(axis)})


def _squeeze_kernel(x, *, axis):
    if axis is None:
        return np.squeeze(x)
    for a in axis:
        if not -x.ndim <= a < x.ndim:
            raise InvalidArgumentError(None, None, f"Tried to squeeze dim index {a} for tensor "
                                       f"with {x.ndim} dimensions.")
        if x.shape[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, "
                             f"got {x.shape[a]}")
    return np.squeeze(x, axis=axis)


def _squeeze_infer(inputs, attrs):
    x = inputs[0]
    axis = attrs["axis"]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.dims
    if axis is None:
        if None in dims:
            return [(x.dtype, TensorShape(None))]
        return [(x.dtype, TensorShape(tuple(d for d in dims if d != 1)))]
    rank = len(dims)
    for k, a in enumerate(axis):
        if not -rank <= a < rank:   # TF's shape function (a rank-0 input has no axis)
            raise ValueError(f"squeeze_dims[{k}] not in [{-rank},{rank}). for 'Squeeze' with "
                             f"input shapes: {list(dims)}.")
    axes = {a % rank for a in axis}
    for a in axes:
        if dims[a] is not None and dims[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, "
                             f"got {dims[a]} for shape {x.shape}")
    return [(x.dtype, TensorShape(tuple(d for i, d in enumerate(dims) if i not in axes)))]


SQUEEZE = declare_op("Squeeze", _squeeze_kernel, _squeeze_infer, grad_inputs=())


def squeeze(input: Any, axis: Any = None, name: Optional[str] = None):  # noqa: A002
    """`input` without its size-1 axes (or just those listed in `axis`)."""
    if isinstance(axis, Tensor) and axis.shape.num_elements() == 0:
        axis = None  # no axes listed: every size-1 axis, as TF
    if axis is not None:
        axes = [axis] if isinstance(axis, (int, np.integer)) else axis
        if isinstance(axes, (str, dict, Tensor)) or not all(
                isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axes):
            raise TypeError(f"squeeze: axis must be an int or a list of ints, got {axis!r}")
        axis = tuple(int(a) for a in axes)
    return apply_unary(SQUEEZE, input, name, {"axis": axis})


def _transpose_infer(inputs, attrs):
    x = inputs[0]
    perm = attrs["perm"]
    if perm is None:
        if x.shape.rank is None:
            return [(x.dtype, TensorShape(None))]
        return [(x.dtype, TensorShape(tuple(reversed(x.shape.dims))))]
    if x.shape.rank is not None and sorted(perm) != list(range(x.shape.rank)):
        raise ValueError(f"perm {list(perm)} is not a permutation of the axes of shape {x.shape}")
    if x.shape.rank is None:
        return [(x.dtype, TensorShape((None,) * len(perm)))]
    return [(x.dtype, TensorShape(tuple(x.shape.dims[p] for p in perm)))]


TRANSPOSE = declare_op("Transpose", lambda x, *, perm: np.transpose(x, perm),
                       _transpose_infer, grad_inputs=())


def transpose(a: Any, perm: Optional[Sequence[int]] = None, name: str = "transpose",
              conjugate: bool = False):
    """`a` with its axes permuted by `perm` (reversed when None)."""
    a = convert_to_tensor(a)
    if perm is not None:
        if type(perm) in (list, tuple) and only_ints(perm) and \
                all(-2**31 <= p < 2**31 for p in perm):
            perm = tuple(perm)   # Python ints (a loop's transpose): no array round trip
        else:
            perm = int_vector_arg(perm, "perm")
        rank = a.ndim
        if rank is not None:
            checked = _permutation(perm, rank)
            if checked is None:
                raise mode_error(f"transpose: perm {list(perm)} is not a permutation of the "
                                 f"{rank} axes of {a.shape}", ValueError)
            perm = checked
    elif a.shape.rank is not None:
        perm = tuple(reversed(range(a.shape.rank)))
    out = apply_op(TRANSPOSE, (a,), shared_attrs(("perm",), perm), name)
    if conjugate and a.dtype.is_complex:  # Conj is declared in complex_ops, which imports us
        out = apply_op(lookup_op("Conj"), (out,))
    return out


@functools.lru_cache(maxsize=256)
def _permutation(perm: tuple, rank: int) -> Optional[tuple]:
    """`perm` made non-negative when it permutes `rank` axes, else None (memoised: a
    loop transposes the same way every step)."""
    if len(perm) != rank or any(not -rank <= p < rank for p in perm):
        return None
    normal = tuple(p % rank for p in perm)
    return normal if sorted(normal) == list(range(rank)) else None


__all__ += ["expand_dims", "squeeze", "transpose"]


def shape_tensor(x: Any, out_type: Any = dtypes.int32):
    """The shape of `x` (a tensor or a TensorSpec) as a tensor: a constant when
    static, else a Shape op. Gradients use it for inputs the tape kept no value of."""
    static = x.shape
    if static.is_fully_defined():
        return constant(np.array(static.as_list(), dtype=dtypes.as_dtype(out_type).as_numpy_dtype))
    return shape(x, out_type)
