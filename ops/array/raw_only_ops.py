"""TF ops that TF's public API reaches only through tf.raw_ops or inside its own gradient
code, with their TF semantics and gradient decisions: ApproximateEqual, PreventGradient,
ScatterNdNonAliasingAdd, BroadcastGradientArgs, ConcatOffset, CheckNumericsV2,
ConjugateTranspose and ParallelDynamicStitch. Each public function here takes the op's
inputs positionally (dg has no tf.raw_ops namespace). Gradients:
grad_registry/raw_only_grad.py."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..shape_rules import with_dtype
from ..tensor_util import constant_value


# -- ApproximateEqual ----------------------------------------------------------------------
def _approximate_equal(x, y, *, tolerance):
    if x.shape != y.shape:
        raise ValueError(f"ApproximateEqual: x and y must be of the same shape. x shape: "
                         f"{list(x.shape)}. y shape: {list(y.shape)}")
    with np.errstate(all="ignore"):
        return np.abs(x - y) < tolerance


APPROXIMATE_EQUAL = declare_op("ApproximateEqual", _approximate_equal,
                               with_dtype(dtypes.bool_), input_kinds="fciu", grad_inputs=(),
                               same_dtype=slice(None))


def approximate_equal(x: Any, y: Any, tolerance: float = 1e-5, name: Optional[str] = None):
    """|x - y| < tolerance elementwise (x and y of one shape)."""
    x = convert_to_tensor(x)
    return apply_op(APPROXIMATE_EQUAL, (x, convert_to_tensor(y, dtype_hint=x.dtype)),
                    {"tolerance": float(tolerance)}, name)


# -- PreventGradient ----------------------------------------------------------------------------
PREVENT_GRADIENT = declare_op("PreventGradient", lambda x, *, message: x,
                              lambda inputs, attrs: [(inputs[0].dtype, inputs[0].shape)],
                              grad_inputs=())


def prevent_gradient(input: Any, message: str = "", name: Optional[str] = None):  # noqa: A002
    """The identity, whose gradient is a LookupError naming `message`."""
    return apply_op(PREVENT_GRADIENT, (convert_to_tensor(input),), {"message": str(message)},
                    name)


# -- ScatterNdNonAliasingAdd --------------------------------------------------------------------
def _non_aliasing_add(x, indices, updates):
    index = np.asarray(indices).astype(np.int64)
    k = index.shape[-1]
    if k > x.ndim or k == 0:
        raise ValueError(f"ScatterNdNonAliasingAdd: index depth {k} must be in [1, {x.ndim}]")
    for j in range(k):
        bad = (index[..., j] < 0) | (index[..., j] >= x.shape[j])
        if np.any(bad):
            position = np.argwhere(bad)[0].tolist()
            raise ValueError(f"ScatterNdNonAliasingAdd: indices{position} = "
                             f"{index[tuple(position)].tolist()} does not index into shape "
                             f"{list(x.shape)}")
    out = x.copy()
    np.add.at(out, tuple(np.moveaxis(index, -1, 0)), updates)
    return out


SCATTER_ND_NON_ALIASING_ADD = declare_op(
    "ScatterNdNonAliasingAdd", _non_aliasing_add,
    lambda inputs, attrs: [(inputs[0].dtype, inputs[0].shape)], grad_inputs=(1,),
    same_dtype=slice(0, 3, 2))


def scatter_nd_non_aliasing_add(input: Any, indices: Any, updates: Any,  # noqa: A002
                                name: Optional[str] = None):
    """input with updates added at indices (a new tensor; repeated indices add up)."""
    x = convert_to_tensor(input)
    return apply_op(SCATTER_ND_NON_ALIASING_ADD,
                    (x, convert_to_tensor(indices), convert_to_tensor(updates,
                                                                      dtype_hint=x.dtype)),
                    name=name)


# -- BroadcastGradientArgs ----------------------------------------------------------------------
def _broadcast_gradient_args(s0, s1):
    a, b = [int(d) for d in s0], [int(d) for d in s1]
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + a, [1] * (rank - len(b)) + b
    r0, r1 = [], []
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"Incompatible shapes: {list(s0)} vs. {list(s1)}")
        if x == 1 and y != 1 or x == 1 and y == 1:
            r0.append(i)
        if y == 1 and x != 1 or x == 1 and y == 1:
            r1.append(i)
    dtype = np.result_type(s0, s1)
    return np.array(r0, dtype), np.array(r1, dtype)


BROADCAST_GRADIENT_ARGS = declare_op(
    "BroadcastGradientArgs", _broadcast_gradient_args,
    lambda inputs, attrs: [(inputs[0].dtype, TensorShape((None,)))] * 2, num_outputs=2,
    input_kinds="i", grad_inputs=())


def broadcast_gradient_args(s0: Any, s1: Any, name: Optional[str] = None):
    """(r0, r1): the axes to sum a gradient over to undo broadcasting shapes s0, s1."""
    s0 = convert_to_tensor(s0, dtype_hint=dtypes.int32)
    r0, r1 = apply_op(BROADCAST_GRADIENT_ARGS, (s0, convert_to_tensor(s1, dtype=s0.dtype)),
                      name=name)
    return r0, r1


# -- ConcatOffset ------------------------------------------------------------------------------
def _concat_offset(concat_dim, *shapes):
    rank = len(shapes[0])
    axis = int(concat_dim)
    if not -rank <= axis < rank:
        raise ValueError(f"Concat dim is out of range: {axis} vs. {rank}")
    axis %= rank
    offsets: List[np.ndarray] = []
    running = 0
    for shape in shapes:
        if len(shape) != rank or any(int(shape[i]) != int(shapes[0][i])
                                     for i in range(rank) if i != axis):
            raise ValueError(f"ConcatOffset: input shape {list(shape)} does not match "
                             f"{list(shapes[0])} outside the concat dimension {axis}")
        offset = np.zeros(rank, shape.dtype)
        offset[axis] = running
        running += int(shape[axis])
        offsets.append(offset)
    return tuple(offsets)


def _concat_offset_infer(inputs, attrs):
    return [(t.dtype, t.shape) for t in inputs[1:]]


CONCAT_OFFSET = declare_op("ConcatOffset", _concat_offset, _concat_offset_infer,
                           num_outputs=-1, grad_inputs=())


def concat_offset(concat_dim: Any, shape: Sequence[Any], name: Optional[str] = None):
    """The offset of each input of a concat along concat_dim (TF's ConcatOffset)."""
    shapes = [convert_to_tensor(s, dtype_hint=dtypes.int32) for s in shape]
    out = apply_op(CONCAT_OFFSET, [convert_to_tensor(concat_dim, dtype=dtypes.int32)] + shapes,
                   name=name)
    return list(out) if isinstance(out, (list, tuple)) else [out]


# -- CheckNumericsV2 ----------------------------------------------------------------------------
def _check_numerics_v2(x, *, message):
    if np.isnan(x).any():
        raise InvalidArgumentError(None, None, f"{message} : Tensor had NaN values")
    if np.isposinf(x).any():
        raise InvalidArgumentError(None, None, f"{message} : Tensor had +Inf values")
    if np.isneginf(x).any():
        raise InvalidArgumentError(None, None, f"{message} : Tensor had -Inf values")
    return x


CHECK_NUMERICS_V2 = declare_op("CheckNumericsV2", _check_numerics_v2,
                               lambda inputs, attrs: [(inputs[0].dtype, inputs[0].shape)],
                               input_kinds="f", grad_inputs=())


def check_numerics_v2(tensor: Any, message: str, name: Optional[str] = None):
    """tensor, or InvalidArgumentError naming NaN, +Inf or -Inf (TF's CheckNumericsV2)."""
    return apply_op(CHECK_NUMERICS_V2, (convert_to_tensor(tensor),), {"message": message}, name)


# -- ConjugateTranspose -------------------------------------------------------------------------
def _conjugate_transpose(x, perm):
    order = [int(p) for p in np.reshape(perm, -1)]
    if sorted(order) != list(range(x.ndim)):
        raise ValueError(f"ConjugateTranspose: {order} is not a permutation of the {x.ndim} "
                         f"axes")
    return np.ascontiguousarray(np.conj(np.transpose(x, order)))


def _conjugate_transpose_infer(inputs, attrs):
    x, perm = inputs
    value = constant_value(perm)
    if value is None or x.shape.rank is None:
        return [(x.dtype, TensorShape(None) if x.shape.rank is None else
                 TensorShape((None,) * x.shape.rank))]
    return [(x.dtype, TensorShape([x.shape.dims[int(p)] for p in np.reshape(value, -1)]))]


CONJUGATE_TRANSPOSE = declare_op("ConjugateTranspose", _conjugate_transpose,
                                 _conjugate_transpose_infer, grad_inputs=(1,))


def conjugate_transpose(x: Any, perm: Any, name: Optional[str] = None):
    """conj(transpose(x, perm)) as one op (TF's ConjugateTranspose)."""
    return apply_op(CONJUGATE_TRANSPOSE, (convert_to_tensor(x),
                                          convert_to_tensor(perm, dtype_hint=dtypes.int32)),
                    name=name)


# -- ParallelDynamicStitch ----------------------------------------------------------------------
def _parallel_stitch(*tensors):
    half = len(tensors) // 2
    indices, data = tensors[:half], tensors[half:]
    flat = [np.asarray(i).reshape(-1) for i in indices]
    rows = max((int(f.max()) + 1 for f in flat if f.size), default=0)
    tail = data[0].shape[np.ndim(indices[0]):]
    out = np.zeros((rows,) + tail, dtype=data[0].dtype)
    for idx, values in zip(flat, data, strict=True):
        out[idx] = values.reshape((-1,) + tail)
    return out


def _parallel_stitch_infer(inputs, attrs):
    half = len(inputs) // 2
    first, values = inputs[0], inputs[half]
    if first.shape.rank is None or values.shape.rank is None:
        return [(values.dtype, TensorShape(None))]
    return [(values.dtype, TensorShape((None,) + tuple(values.shape.dims[first.shape.rank:])))]


PARALLEL_DYNAMIC_STITCH = declare_op("ParallelDynamicStitch", _parallel_stitch,
                                     _parallel_stitch_infer)


def parallel_dynamic_stitch(indices: Sequence[Any], data: Sequence[Any],
                            name: Optional[str] = None):
    """dynamic_stitch's values (TF's ParallelDynamicStitch; order among repeated indices is
    unspecified in TF, the last wins here)."""
    if len(indices) != len(data) or not indices:
        raise ValueError("parallel_dynamic_stitch needs as many (non-zero) index tensors as "
                         "data tensors")
    return apply_op(PARALLEL_DYNAMIC_STITCH,
                    [convert_to_tensor(i, dtype_hint=dtypes.int32) for i in indices]
                    + [convert_to_tensor(d) for d in data], name=name)
