"""Forward-mode (JVP) rules of the core ops, registered beside their gradients.

`@RegisterJVP(op_type)` on `rule(op, *tangents)`: `op` has `.inputs`,
`.outputs` and `.get_attr()` like a gradient function's op; `tangents` has
one entry per input (None: that input has no tangent). It returns the
output's tangent (a list for multi-output ops; None for no tangent). Rules
use only the public op library, so they build graph ops in graph mode and
are differentiable again. Ops without a rule fall back to differentiating
their gradient function (eager/forwardprop.py).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..framework.registry import jvp_functions
from ..ops.array import array_ops, join_ops
from ..ops.math import math_ops, reduction_ops
from ..ops.array.array_ops import (BROADCAST_TO, EXPAND_DIMS, IDENTITY, IDENTITY_N, RESHAPE, SELECT,
                                   SQUEEZE, SUM_TO_SHAPE, TRANSPOSE)
from ..ops.array.indexed_slices_ops import (GATHER, UNSORTED_SEGMENT_SUM, gather,
                                            unsorted_segment_sum)
from ..ops.array.join_ops import CONCAT, PACK
from ..ops.math.math_ops import (ABS, ADD, CAST, COS, EXP, LOG, LOG1P, MAXIMUM, MINIMUM, MUL, NEG,
                                 POW, REAL_DIV, RSQRT, SIGMOID, SIN, SQRT, SQUARE, SUB, TANH)
from ..ops.math.matmul_ops import BATCH_MATMUL, MATMUL, matmul
from ..ops.math.reduction_ops import ADD_N, MAX, MEAN, MIN, SUM
from ..ops.state.resource_variable_ops import READ_VARIABLE


class RegisterJVP:
    """Decorator registering `rule(op, *input_tangents) -> output tangent(s)`."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, rule: Callable) -> Callable:
        jvp_functions.register(self._op_type, rule)
        return rule


def get_jvp_rule(op_type: str) -> Optional[Callable]:
    """The registered rule for `op_type`, or None."""
    return jvp_functions.get(op_type)


def fit(tangent: Any, out: Any) -> Any:
    """`tangent` broadcast to the shape of `out` (a one-sided broadcasting op)."""
    if tangent is None:
        return None
    shape = out.shape
    if shape.is_fully_defined():
        if tangent.shape == shape:
            return tangent
        return array_ops.broadcast_to(tangent, shape.as_list())
    return array_ops.broadcast_to(tangent, array_ops.shape(out))


def _total(out: Any, *terms: Any) -> Any:
    """The sum of the terms that exist, shaped like `out` (None if none exist)."""
    present = [t for t in terms if t is not None]
    if not present:
        return None
    total = present[0]
    for t in present[1:]:
        total = total + t
    return fit(total, out)


def _or_zeros(tangent: Any, x: Any) -> Any:
    return array_ops.zeros_like(x) if tangent is None else tangent


# -- elementwise binary -------------------------------------------------------
@RegisterJVP(ADD.type)
def _add_jvp(op, tx, ty):
    """tx + ty."""
    return _total(op.outputs[0], tx, ty)


@RegisterJVP(SUB.type)
def _sub_jvp(op, tx, ty):
    """tx - ty."""
    return _total(op.outputs[0], tx, None if ty is None else -ty)


@RegisterJVP(MUL.type)
def _mul_jvp(op, tx, ty):
    """tx * y + x * ty."""
    x, y = op.inputs
    return _total(op.outputs[0], None if tx is None else tx * y, None if ty is None else x * ty)


@RegisterJVP(REAL_DIV.type)
def _real_div_jvp(op, tx, ty):
    """(tx - ty * z) / y, z = x / y."""
    x, y = op.inputs
    z = op.outputs[0]
    return _total(z, None if tx is None else tx / y, None if ty is None else -ty * z / y)


@RegisterJVP(POW.type)
def _pow_jvp(op, tx, ty):
    """tx * y * x**(y-1) + ty * z * log(x) (log taken as 0 where x <= 0)."""
    x, y = op.inputs
    z = op.outputs[0]
    dx = None if tx is None else tx * y * math_ops.pow(x, y - 1)
    dy = None
    if ty is not None:
        positive = math_ops.greater(x, 0)
        safe = array_ops.where(positive, x, array_ops.ones_like(x))
        dy = ty * z * array_ops.where(positive, math_ops.log(safe), array_ops.zeros_like(x))
    return _total(z, dx, dy)


def _select_jvp(op, tx, ty, pick_x):
    x, y = op.inputs
    z = op.outputs[0]
    mask = pick_x(x, y)
    chosen = array_ops.where(mask, fit(_or_zeros(tx, x), z), fit(_or_zeros(ty, y), z))
    return chosen


@RegisterJVP(MAXIMUM.type)
def _maximum_jvp(op, tx, ty):
    """tx where x >= y, else ty."""
    return _select_jvp(op, tx, ty, math_ops.greater_equal)


@RegisterJVP(MINIMUM.type)
def _minimum_jvp(op, tx, ty):
    """tx where x <= y, else ty."""
    return _select_jvp(op, tx, ty, math_ops.less_equal)


# -- elementwise unary ----------------------------------------------------------
@RegisterJVP(NEG.type)
def _neg_jvp(op, tx):
    """-tx."""
    return -tx


@RegisterJVP(SIN.type)
def _sin_jvp(op, tx):
    """tx * cos(x)."""
    return tx * math_ops.cos(op.inputs[0])


@RegisterJVP(COS.type)
def _cos_jvp(op, tx):
    """-tx * sin(x)."""
    return -tx * math_ops.sin(op.inputs[0])


@RegisterJVP(TANH.type)
def _tanh_jvp(op, tx):
    """tx * (1 - z**2)."""
    z = op.outputs[0]
    return tx * (1 - z * z)


@RegisterJVP(EXP.type)
def _exp_jvp(op, tx):
    """tx * z."""
    return tx * op.outputs[0]


@RegisterJVP(LOG.type)
def _log_jvp(op, tx):
    """tx / x."""
    return tx / op.inputs[0]


@RegisterJVP(LOG1P.type)
def _log1p_jvp(op, tx):
    """tx / (1 + x)."""
    return tx / (1 + op.inputs[0])


@RegisterJVP(SQRT.type)
def _sqrt_jvp(op, tx):
    """tx * 0.5 / z."""
    return tx * 0.5 / op.outputs[0]


@RegisterJVP(RSQRT.type)
def _rsqrt_jvp(op, tx):
    """-0.5 * tx * z**3."""
    z = op.outputs[0]
    return tx * (-0.5 * z * z * z)


@RegisterJVP(SQUARE.type)
def _square_jvp(op, tx):
    """2 x tx."""
    return tx * (2 * op.inputs[0])


@RegisterJVP(ABS.type)
def _abs_jvp(op, tx):
    """tx * sign(x) (real inputs)."""
    return tx * math_ops.sign(op.inputs[0])


@RegisterJVP(SIGMOID.type)
def _sigmoid_jvp(op, tx):
    """tx * z * (1 - z)."""
    z = op.outputs[0]
    return tx * (z * (1 - z))


@RegisterJVP(CAST.type)
def _cast_jvp(op, tx):
    """tx cast like the output (None when either side is not differentiable)."""
    out = op.outputs[0]
    if not out.dtype.is_differentiable or not tx.dtype.is_differentiable:
        return None
    return math_ops.cast(tx, out.dtype)


# -- linear algebra and reductions ------------------------------------------------
def _matmul_jvp(op, ta, tb):
    """ta @ b + a @ tb (with the op's transpose flags)."""
    a, b = op.inputs
    flags = {"transpose_a": op.get_attr("transpose_a"),
             "transpose_b": op.get_attr("transpose_b")}
    return _total(op.outputs[0], None if ta is None else matmul(ta, b, **flags),
                  None if tb is None else matmul(a, tb, **flags))


RegisterJVP(MATMUL.type)(_matmul_jvp)
RegisterJVP(BATCH_MATMUL.type)(_matmul_jvp)


@RegisterJVP(SUM.type)
def _sum_jvp(op, tx):
    """sum(tx) over the same axes."""
    return reduction_ops.reduce_sum(tx, op.get_attr("axis"), op.get_attr("keepdims"))


@RegisterJVP(MEAN.type)
def _mean_jvp(op, tx):
    """mean(tx) over the same axes."""
    return reduction_ops.reduce_mean(tx, op.get_attr("axis"), op.get_attr("keepdims"))


def _extremum_jvp(op, tx):
    """tx averaged over the elements equal to the extremum (as the gradient splits ties)."""
    x = op.inputs[0]
    axis, keepdims = op.get_attr("axis"), op.get_attr("keepdims")
    z = reduction_ops.reduce_max(x, axis, keepdims=True) if op.type == MAX.type \
        else reduction_ops.reduce_min(x, axis, keepdims=True)
    mask = math_ops.cast(math_ops.equal(x, z), tx.dtype)
    count = reduction_ops.reduce_sum(mask, axis, keepdims=keepdims)
    return reduction_ops.reduce_sum(mask * tx, axis, keepdims=keepdims) / count


RegisterJVP(MAX.type)(_extremum_jvp)
RegisterJVP(MIN.type)(_extremum_jvp)


@RegisterJVP(ADD_N.type)
def _add_n_jvp(op, *tangents):
    """The sum of the inputs' tangents."""
    return _total(op.outputs[0], *tangents)


# -- shape ops: the same op applied to the tangent -------------------------------
@RegisterJVP(IDENTITY.type)
def _identity_jvp(op, tx):
    """tx."""
    return tx


@RegisterJVP(READ_VARIABLE.type)
def _read_variable_jvp(op, t_handle):
    """The variable's tangent."""
    return t_handle


@RegisterJVP(IDENTITY_N.type)
def _identity_n_jvp(op, *tangents):
    """Each input's tangent."""
    return list(tangents)


def _like_output(op, tx, *more):
    """tx reshaped to the output's shape (reshape, expand_dims, squeeze)."""
    out = op.outputs[0]
    return array_ops.reshape(tx, array_ops.shape_tensor(out))


for _op in (RESHAPE, EXPAND_DIMS, SQUEEZE):
    RegisterJVP(_op.type)(_like_output)


@RegisterJVP(TRANSPOSE.type)
def _transpose_jvp(op, tx):
    """tx transposed by the same permutation."""
    return array_ops.transpose(tx, op.get_attr("perm"))


@RegisterJVP(BROADCAST_TO.type)
def _broadcast_to_jvp(op, tx, t_shape):
    """tx broadcast the same way."""
    return array_ops.broadcast_to(tx, op.inputs[1])


@RegisterJVP(SUM_TO_SHAPE.type)
def _sum_to_shape_jvp(op, tx, t_shape):
    """tx summed to the same shape."""
    return array_ops.sum_to_shape(tx, op.inputs[1])


@RegisterJVP(CONCAT.type)
def _concat_jvp(op, *tangents):
    """The tangents concatenated (zeros for inputs without one)."""
    parts = [_or_zeros(t, x) for t, x in zip(tangents, op.inputs, strict=True)]
    return join_ops.concat(parts, axis=op.get_attr("axis"))


@RegisterJVP(PACK.type)
def _pack_jvp(op, *tangents):
    """The tangents stacked (zeros for inputs without one)."""
    parts = [_or_zeros(t, x) for t, x in zip(tangents, op.inputs, strict=True)]
    return join_ops.stack(parts, axis=op.get_attr("axis"))


@RegisterJVP(GATHER.type)
def _gather_jvp(op, t_params, t_indices):
    """tx gathered at the same indices."""
    if t_params is None:
        return None
    return gather(t_params, op.inputs[1], axis=op.get_attr("axis"))


@RegisterJVP(UNSORTED_SEGMENT_SUM.type)
def _unsorted_segment_sum_jvp(op, t_data, t_ids, t_num):
    """tx segment-summed the same way."""
    if t_data is None:
        return None
    return unsorted_segment_sum(t_data, op.inputs[1], op.inputs[2])


@RegisterJVP(SELECT.type)
def _select_v2_jvp(op, t_cond, tx, ty):
    """tx where the condition holds, else ty."""
    cond, x, y = op.inputs
    z = op.outputs[0]
    if tx is None and ty is None:
        return None
    return array_ops.where(cond, fit(_or_zeros(tx, x), z), fit(_or_zeros(ty, y), z))


__all__ = ["RegisterJVP", "get_jvp_rule"]
