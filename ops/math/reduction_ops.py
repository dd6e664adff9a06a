"""Reductions over axes (attrs `axis`, `keepdims`) and add_n. Gradients: reduction_grad.py."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ...framework.errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ..arg_errors import mode_error
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..shape_rules import check_same_dtype, reduction
from ..tensor_util import constant_value

_state = context.state


def _axis_attr(axis: Any) -> Any:
    """The `axis` argument as a hashable attr: None, or a tuple of ints; an axis
    that is not integer raises TF's class for it."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        if not axis.dtype.is_integer:
            raise mode_error(f"reduction axis must be int32 or int64, got a {axis.dtype.name} "
                              "tensor", TypeError)
        axis = np.asarray(axis.array if isinstance(axis, EagerTensor) else _static(axis))
    else:
        array = np.asarray(axis)
        if array.dtype.kind == "O":  # not convertible at all
            error = ValueError if _state.graph is None else TypeError
            raise error(f"Attempt to convert a value ({axis!r}) with an unsupported type "
                        f"({type(axis).__name__}) to a Tensor (reduction axis).")
        if array.size == 0 and isinstance(axis, (list, tuple)):
            return ()   # `axis=[]` reduces nothing (TF: the input, unchanged)
        if array.dtype == np.uint64 and array.max() > 2**63 - 1:
            raise ValueError("Can't convert Python sequence with out-of-range integer to "
                             "Tensor (reduction axis).")
        if array.dtype.kind not in "iu":
            raise mode_error(f"reduction axis must be integers, got {axis!r}", TypeError)
        axis = array
    if np.ndim(axis) == 0:
        return (int(axis),)
    return tuple(int(a) for a in np.asarray(axis).reshape(-1))


def _axis_rank(axis: Any) -> int:
    """The rank of the `axis` argument (0 for None or a Python int)."""
    if axis is None:
        return 0
    if isinstance(axis, Tensor):
        return axis.shape.rank or 0
    try:
        return int(np.ndim(axis))
    except ValueError:  # a ragged nest: rejected later as not convertible
        return 0


def _out_of_range(axis: int, rank: int) -> str:
    return f"Invalid reduction dimension ({axis} for input with {rank} dimension(s)"


def _duplicate(axis: int) -> str:
    return f"Invalid reduction arguments: Axes contains duplicate dimension: {axis}"


def _shape_text(dims: Optional[list]) -> str:
    """A shape as TF's shape functions print it: [2,?] or ? for an unknown rank."""
    if dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _kernel_axes(x: np.ndarray, axis: Optional[tuple]) -> Optional[tuple]:
    """`axis` made non-negative for `x`, checked as TF's kernels check it (at run
    time): InvalidArgumentError for an axis out of range or named twice."""
    if axis is None:
        return None
    rank = x.ndim
    seen = set()
    for a in axis:
        if not -rank <= a < rank:   # a rank-0 input has no axis at all
            raise InvalidArgumentError(None, None, _out_of_range(a, rank))
        normal = a % rank
        if normal in seen:
            raise InvalidArgumentError(None, None, _duplicate(normal))
        seen.add(normal)
    return tuple(a % rank for a in axis)


def _static_axes(op_type: str, axis: tuple, x: Tensor, axis_rank: int) -> tuple:
    """Axes checked against x's known rank when the op is built.

    Eagerly, TF's kernel raises InvalidArgumentError for an axis out of range
    or named twice. Building a graph, TF's shape function raises ValueError for
    one out of range and for an axis argument of rank > 1, and accepts
    duplicates (the kernel rejects them when the graph runs).
    """
    rank = x.shape.rank
    eager = _state.graph is None
    if axis_rank > 1 and not eager:
        raise ValueError(f"Shape must be at most rank 1 but is rank {axis_rank} for "
                         f"'{{{{node {op_type}}}}} = {op_type}' with input shapes: "
                         f"{_shape_text(x.shape.as_list() if x.shape.rank is not None else None)}, "
                         f"{_shape_text([len(axis)] + [1] * (axis_rank - 1))}.")
    if rank is None:
        return axis
    seen = set()
    for a in axis:
        if not -rank <= a < rank:
            if eager:
                raise InvalidArgumentError(None, None, f"{_out_of_range(a, rank)} [Op:{op_type}]")
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions. "
                             f"for '{{{{node {op_type}}}}}' with input shapes: "
                             f"{_shape_text(x.shape.as_list())}, []")
        normal = a % rank
        if normal in seen and eager:
            raise InvalidArgumentError(None, None, f"{_duplicate(normal)} [Op:{op_type}]")
        seen.add(normal)
    return tuple(sorted(a % rank for a in axis))


def _static(tensor: Any) -> Any:
    value = constant_value(tensor)
    if value is None:
        raise ValueError(f"reduction axis must be statically known, got {tensor}")
    return value


def _reducer(np_func, keep_int_dtype: bool = True, plan_all: Optional[str] = None):
    def kernel(x, *, axis, keepdims):
        axis = _kernel_axes(x, axis)
        if keep_int_dtype and x.dtype.kind in "iub":
            return np.asarray(np_func(x, axis=axis, keepdims=keepdims, dtype=x.dtype))
        if plan_all == "sum" and type(x) is np.ndarray:
            # np.sum of an array is np.add.reduce behind ~1.5 us of wrapper (a
            # bias gradient per step of an eager loop)
            return np.asarray(np.add.reduce(x, axis=axis, keepdims=keepdims))
        return np.asarray(np_func(x, axis=axis, keepdims=keepdims))

    def plan_bind(op):
        """A float Sum/Mean in a plan (a loss, a gradient summed to a shape, in a loop
        body): the kernel's arithmetic with the axes checked once, here, against the
        input's static rank (None: the kernel with its run-time checks)."""
        attrs = op.attrs
        if set(attrs) != {"axis", "keepdims"} or not op.inputs \
                or op.inputs[0].dtype.name not in ("float32", "float64"):
            return None
        axes = attrs["axis"]
        if axes is not None:
            rank = op.inputs[0].shape.rank
            if rank is None or any(not -rank <= a < rank for a in axes) \
                    or len({a % rank for a in axes}) != len(axes):
                return None
            axes = tuple(a % rank for a in axes)
        keepdims = bool(attrs["keepdims"])
        if plan_all == "sum":
            def reduce_sum(x):
                return np.asarray(np.add.reduce(x, axis=axes, keepdims=keepdims))
            return reduce_sum

        if axes is None:
            def mean_all(x):  # _mean's float formula: the count is x.size (0: NaN, as TF)
                return np.asarray(np.true_divide(np.add.reduce(x, axis=None, keepdims=keepdims),
                                                 x.size))
            return mean_all

        def reduce_mean(x):  # _mean's float formula (size 0: 0/0, NaN as TF)
            total = np.add.reduce(x, axis=axes, keepdims=keepdims)
            return np.asarray(np.true_divide(total, x.size // max(total.size, 1)))
        return reduce_mean

    if plan_all is not None:  # "sum" or "mean"
        kernel.plan_bind = plan_bind  # type: ignore[attr-defined]
    return kernel


def _mean(x, axis, keepdims, dtype=None):
    if x.dtype.kind in "iu":
        s = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        n = x.size // max(np.size(s), 1) if x.size else 1
        return (s // n).astype(x.dtype)
    if x.size == 0:  # as TF 2.21: NaN for floats, 0 for complex; no NumPy warning
        total = np.sum(x, axis=axis, keepdims=keepdims)
        if x.dtype.kind == "c":
            return total
        with np.errstate(all="ignore"):
            return np.true_divide(total, 0)
    if x.dtype == np.float32 or x.dtype == np.float64:
        # np.mean's own arithmetic (a pairwise sum, then one division by the count)
        # without its Python-level wrapper: ~3 us less per call in loop bodies.
        total = np.add.reduce(x, axis=axis, keepdims=keepdims)
        return np.true_divide(total, x.size // max(np.size(total), 1))
    return np.mean(x, axis=axis, keepdims=keepdims)


def _lowest(dtype: np.dtype) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype: np.dtype) -> Any:
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _minmax(np_func, identity):
    """Max/Min; over an empty axis the result is the identity (TF: -inf/+inf for
    floats, the dtype's lowest/highest integer), NaN propagates."""
    def kernel(x, *, axis, keepdims):
        axis = _kernel_axes(x, axis)
        if x.size == 0:
            return np.asarray(np_func(x, axis=axis, keepdims=keepdims, initial=identity(x.dtype)))
        return np.asarray(np_func(x, axis=axis, keepdims=keepdims))
    return kernel


SUM = declare_op("Sum", _reducer(np.sum, plan_all="sum"), reduction(), input_kinds="fciu",
                 grad_inputs=(0,))
MEAN = declare_op("Mean", _reducer(_mean, keep_int_dtype=False, plan_all="mean"), reduction(),
                  input_kinds="fciu", grad_inputs=(0,))
PROD = declare_op("Prod", _reducer(np.prod), reduction(), input_kinds="fciu", grad_inputs=(0,))
MAX = declare_op("Max", _minmax(np.max, _lowest), reduction(), input_kinds="fiu",
                 grad_inputs=(0,), grad_outputs=(0,))
MIN = declare_op("Min", _minmax(np.min, _highest), reduction(), input_kinds="fiu",
                 grad_inputs=(0,), grad_outputs=(0,))
def _euclidean_norm(x, axis, keepdims):
    magnitude = np.abs(x) if x.dtype.kind == "c" else x
    out = np.sqrt(np.sum(magnitude * magnitude, axis=axis, keepdims=keepdims))
    return out.astype(x.dtype)  # complex input gives a complex result, as in TF


EUCLIDEAN_NORM = declare_op("EuclideanNorm", _reducer(_euclidean_norm, keep_int_dtype=False),
                            reduction(), input_kinds="fci", grad_inputs=(0,), grad_outputs=(0,))
ALL = declare_op("All", _reducer(np.all, False), reduction(), input_kinds="b", grad_inputs=())
ANY = declare_op("Any", _reducer(np.any, False), reduction(), input_kinds="b", grad_inputs=())


def _reduce(op_def, input_tensor, axis, keepdims, name):
    logical = op_def.input_kinds == "b"
    if logical and not isinstance(input_tensor, Tensor):
        x = convert_to_tensor(input_tensor, dtype=dtypes.bool_)  # TF: a TypeError if not bool
    else:
        x = convert_to_tensor(input_tensor)
    axis_rank = _axis_rank(axis)
    if logical and _state.graph is None:
        axis = _axis_attr(axis)  # All/Any check the axis first eagerly (TF's order)
    kinds = op_def.input_kinds  # the input's dtype is checked before the axis, as in TF
    if kinds is not None and x.dtype.kind not in kinds:
        raise mode_error(op_def.dtype_error(x.dtype), TypeError)
    if not (logical and _state.graph is None):
        axis = _axis_attr(axis)
    if axis is not None:
        axis = _static_axes(op_def.type, axis, x, axis_rank)
    return apply_op(op_def, (x,), {"axis": axis, "keepdims": bool(keepdims)}, name)


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None):
    """Sum over `axis` (None: all axes)."""
    return _reduce(SUM, input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                name: Optional[str] = None):
    return _reduce(MEAN, input_tensor, axis, keepdims, name)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                name: Optional[str] = None):
    return _reduce(PROD, input_tensor, axis, keepdims, name)


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None):
    return _reduce(MAX, input_tensor, axis, keepdims, name)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None):
    return _reduce(MIN, input_tensor, axis, keepdims, name)


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: Optional[str] = None):
    """sqrt(sum(|x|**2)) over `axis`: one op, so its gradient is x / norm (NaN at 0, as TF)."""
    return _reduce(EUCLIDEAN_NORM, input_tensor, axis, keepdims, name)


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None):
    return _reduce(ALL, input_tensor, axis, keepdims, name)


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None):
    return _reduce(ANY, input_tensor, axis, keepdims, name)


def _add_n_kernel(*xs):
    total = xs[0] + xs[1] if len(xs) > 1 else xs[0].copy()
    for x in xs[2:]:
        total += x
    return total


def _bind_add_n(op):
    """A plan's AddN of two values is np.add itself: the plan may then write it into a
    dead temporary (a gradient sum in a loop body)."""
    return np.add if len(op.inputs) == 2 and not op.attrs else None


_add_n_kernel.plan_bind = _bind_add_n  # type: ignore[attr-defined]


def _add_n_infer(inputs, attrs):
    dtype = check_same_dtype(inputs)
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not shape.is_compatible_with(t.shape):
            raise ValueError(f"AddN inputs must all have one shape: {shape} vs {t.shape}")
        shape = shape.merge_with(t.shape)
    return [(dtype, shape)]


ADD_N = declare_op("AddN", _add_n_kernel, _add_n_infer, input_kinds="fciu", grad_inputs=(),
                   same_dtype=slice(None))


def add_n(inputs: Sequence[Any], name: Optional[str] = None):
    """Sum of a list of same-shape tensors (IndexedSlices are densified)."""
    if inputs is None:
        raise TypeError("add_n: inputs must be a list of tensors, got None")
    if isinstance(inputs, Tensor):  # TF tests it for truth: eagerly, a list of its rows
        if _state.graph is not None:
            raise OperatorNotAllowedInGraphError(
                f"add_n: using a tensor ({inputs!r}) as a Python list is not allowed in graph "
                "mode; pass a list of tensors.")
        inputs = list(inputs)
    if not inputs:
        raise ValueError("inputs must be a non-empty list of tensors")
    tensors = [convert_to_tensor(t) for t in inputs]
    if len(tensors) == 1 and name is None:
        return tensors[0]
    return apply_op(ADD_N, tensors, name=name)


__all__ = ["reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min",
           "reduce_all", "reduce_any", "add_n"]
