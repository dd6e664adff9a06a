"""Batching rules for `vectorized_map` (TensorFlow's pfor converters), one per op family.

A rule gets the traced op, its converted inputs (a batched input carries a
new leading axis of size `n`), a tuple saying which inputs are batched, and
`n` (a Python int, or None when unknown); it returns one `(tensor, batched)`
pair per op output. A rule raises `NoBatchingRule` to decline a case it does
not handle (unknown ranks, say): the converter then runs the op in a loop.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from ...framework.registry import batching_rules, op_defs
from ..array.array_ops import broadcast_to, expand_dims, reshape, transpose
from ..constant_op import constant
from ..dispatch import apply_op
from ..math.math_ops import add
from ..math.reduction_ops import reduce_sum
from ..tensor_util import constant_value

Pairs = List[Tuple[Any, bool]]


class NoBatchingRule(Exception):
    """Raised by a rule that cannot batch this particular op instance."""


def register_batching_rule(*op_types: str) -> Callable:
    """Registers `fn(op, inputs, batched, n) -> [(tensor, batched), ...]` for op types."""
    def wrap(fn: Callable) -> Callable:
        for op_type in op_types:
            batching_rules.register(op_type, fn)
        return fn
    return wrap


def run_op(op: Any, args: Sequence[Any], attrs: Optional[dict] = None) -> list:
    """Applies `op`'s declaration to `args` in the current mode; its outputs as a list."""
    out = apply_op(op.op_def, tuple(args), op.attrs if attrs is None else attrs)
    if op.op_def.num_outputs == 1:
        return [out]
    return list(out) if isinstance(out, (list, tuple)) else []


def event_rank(t: Any, is_batched: bool) -> int:
    rank = t.shape.rank
    if rank is None:
        raise NoBatchingRule("unknown rank")
    return rank - 1 if is_batched else rank


def expand_event(t: Any, k: int) -> Any:
    """A batched `t` with `k` size-1 axes inserted after the batch axis."""
    if k <= 0:
        return t
    dims = t.shape.dims
    if dims is not None and None not in dims[1:]:
        return reshape(t, [-1] + [1] * k + list(dims[1:]))
    for _ in range(k):
        t = expand_dims(t, 1)
    return t


def unit_axis(t: Any, axis: int) -> Any:
    """`expand_dims(t, axis)` (axis >= 0), as a reshape when the shape is static:
    the same value, one cheaper kernel in a compiled plan."""
    dims = t.shape.dims
    if dims is None or None in dims:
        return expand_dims(t, axis)
    dims = list(dims)
    return reshape(t, dims[:axis] + [1] + dims[axis:])


def tile(t: Any, n: Optional[int]) -> Any:
    """Unbatched `t` repeated `n` times along a new leading axis."""
    dims = t.shape.dims
    if n is None or dims is None or None in dims:
        raise NoBatchingRule("tiling needs static shapes")
    return broadcast_to(expand_dims(t, 0), [n] + list(dims))


def _shift_axis(axis: int) -> int:
    return axis + 1 if axis >= 0 else axis


def _static_list(t: Any) -> list:
    value = constant_value(t)
    if value is None:
        raise NoBatchingRule("needs a static shape argument")
    return [int(d) for d in np.reshape(value, [-1])]


# -- elementwise ----------------------------------------------------------------
def _elementwise(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    """Any broadcasting elementwise op: align the event ranks of batched inputs."""
    ranks = [event_rank(t, b) for t, b in zip(inputs, batched, strict=True)]
    top = max(ranks)
    args = [expand_event(t, top - r) if b else t for t, b, r in zip(inputs, batched, ranks, strict=True)]
    return [(out, True) for out in run_op(op, args)]


def _infer_name(op_def: Any) -> str:
    return getattr(op_def.infer, "__qualname__", "")


_ELEMENTWISE_INFERS = ("broadcast_binary", "broadcast_compare", "elementwise_unary.<locals>.infer",
                       "same_as_input", "with_dtype.<locals>.infer")
_EXTRA_ELEMENTWISE = ("Abs", "Cast", "SelectV2", "Real", "Imag", "Complex", "TanhGrad",
                      "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "Gelu",
                      "GeluGrad")


def rule_for(op_def: Any) -> Optional[Callable]:
    """The rule registered for the op type, else the elementwise rule for an op
    whose shape rule is elementwise (ops declared later are covered too)."""
    rule = batching_rules.get(op_def.type)
    if rule is None and (_infer_name(op_def) in _ELEMENTWISE_INFERS or
                         op_def.type in _EXTRA_ELEMENTWISE):
        return _elementwise
    return rule


@register_batching_rule("AddN")
def _add_n(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    dims = [t.shape.dims for t in inputs]
    if all(batched) and dims[0] is not None and None not in dims[0] and \
            all(d == dims[0] for d in dims):
        return [(run_op(op, inputs)[0], True)]
    total = None
    for t in inputs:
        total = t if total is None else add(total, t)
    return [(total, True)]


# -- reductions and shapes --------------------------------------------------------
@register_batching_rule("Sum", "Mean", "Prod", "Max", "Min", "All", "Any")
def _reduction(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    axis = op.attrs["axis"]
    if axis is None:
        axis = tuple(range(1, event_rank(inputs[0], True) + 1))
    else:
        axis = tuple(_shift_axis(a) for a in axis)
    return [(run_op(op, inputs, dict(op.attrs, axis=axis))[0], True)]


@register_batching_rule("Reshape")
def _reshape(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    if batched[1]:
        raise NoBatchingRule("batched shape")
    dims = _static_list(inputs[1])
    if -1 in dims:
        if n is None:
            raise NoBatchingRule("unknown batch size")
        return [(reshape(inputs[0], [n] + dims), True)]
    return [(reshape(inputs[0], [-1] + dims), True)]


@register_batching_rule("SumToShape")
def _sum_to_shape(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    if batched[1]:
        raise NoBatchingRule("batched shape")
    x = inputs[0]
    dims = _static_list(inputs[1])
    lead = event_rank(x, True) - len(dims)
    if lead > 0:
        x = reduce_sum(x, axis=list(range(1, lead + 1)))
    if n is None:
        raise NoBatchingRule("unknown batch size")
    return [(run_op(op, [x, constant(np.array([n] + dims, np.int32))])[0], True)]


@register_batching_rule("BroadcastTo")
def _broadcast_to(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    if batched[1] or n is None:
        raise NoBatchingRule("batched shape or unknown batch size")
    dims = _static_list(inputs[1])
    x = expand_event(inputs[0], len(dims) - event_rank(inputs[0], True))
    return [(broadcast_to(x, [n] + dims), True)]


@register_batching_rule("Transpose")
def _transpose(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    perm = op.attrs["perm"]
    if perm is None:
        rank = event_rank(inputs[0], True)
        perm = tuple(range(rank - 1, -1, -1))
    return [(transpose(inputs[0], [0] + [p + 1 for p in perm]), True)]


@register_batching_rule("ExpandDims")
def _expand_dims(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    return [(run_op(op, inputs, {"axis": _shift_axis(op.attrs["axis"])})[0], True)]


@register_batching_rule("Squeeze")
def _squeeze(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    axis = op.attrs["axis"]
    if axis is None:
        dims = inputs[0].shape.dims
        if dims is None or None in dims[1:]:
            raise NoBatchingRule("squeeze of unknown dims")
        axis = tuple(i for i, d in enumerate(dims[1:]) if d == 1)
    return [(run_op(op, inputs, {"axis": tuple(_shift_axis(a) for a in axis)})[0], True)]


@register_batching_rule("Shape", "Size", "Rank")
def _shape_of(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    """Unbatched: the (static) shape of one element."""
    dims = inputs[0].shape.dims
    if dims is None or None in dims[1:]:
        raise NoBatchingRule("dynamic element shape")
    event = list(dims[1:])
    if op.type == "Rank":
        return [(constant(np.int32(len(event))), False)]
    dtype = op.attrs["out_type"].as_numpy_dtype
    if op.type == "Size":
        return [(constant(np.array(int(np.prod(event)), dtype)), False)]
    return [(constant(np.array(event, dtype)), False)]


# -- joins ------------------------------------------------------------------------
@register_batching_rule("ConcatV2", "Pack")
def _join(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    args = [t if b else tile(t, n) for t, b in zip(inputs, batched, strict=True)]
    return [(run_op(op, args, dict(op.attrs, axis=_shift_axis(op.attrs["axis"])))[0], True)]


@register_batching_rule("Unpack", "Split", "SplitV")
def _split(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    if any(batched[1:]):
        raise NoBatchingRule("batched split sizes")
    attrs = dict(op.attrs, axis=_shift_axis(op.attrs["axis"]))
    return [(out, True) for out in run_op(op, inputs, attrs)]


@register_batching_rule("Identity", "StopGradient")
def _identity(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    return [(run_op(op, inputs)[0], True)]


# -- matrix products -------------------------------------------------------------
@register_batching_rule("MatMul", "BatchMatMulV2")
def _matmul(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    a, b = inputs
    ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
    ra, rb = event_rank(a, batched[0]), event_rank(b, batched[1])
    matmul = op_defs.lookup("MatMul")
    if batched[1] and not batched[0] and ra == 2 and rb == 2 and not tb and \
            b.shape.dims[-1] == 1 and b.shape.dims[1] is not None:
        # op(a) @ b[i] for column vectors b[i]: one product b2 @ op(a)^T.
        cols = reshape(b, [-1, b.shape.dims[1]])
        out = apply_op(matmul, (cols, a), {"transpose_a": False, "transpose_b": not ta})
        return [(unit_axis(out, 2), True)]
    if batched[0] and not batched[1] and ra == 2 and rb == 2 and not ta:
        # a[i] @ op(b) for all i: one product of the rows stacked.
        p, q = a.shape.dims[1], a.shape.dims[2]
        if p is None or q is None:
            raise NoBatchingRule("unknown matrix dims")
        out = apply_op(matmul, (reshape(a, [-1, q]), b), {"transpose_a": False,
                                                           "transpose_b": tb})
        return [(reshape(out, [-1, p, out.shape.dims[-1] if out.shape.dims[-1] is not None
                                else -1]), True)]
    # General case: broadcasting batch matmul with the event ranks aligned.
    top = max(ra, rb)
    args = [expand_event(t, top - r) if bt else t
            for t, bt, r in ((a, batched[0], ra), (b, batched[1], rb))]
    out = apply_op(op_defs.lookup("BatchMatMulV2"), tuple(args),
                   {"transpose_a": ta, "transpose_b": tb})
    return [(out, True)]


# -- gathers and segments --------------------------------------------------------
@register_batching_rule("GatherV2")
def _gather(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    params, indices = inputs
    if op.attrs.get("batch_dims", 0) or (batched[0] and batched[1]):
        raise NoBatchingRule("gather with batch_dims or both inputs batched")
    axis = op.attrs["axis"]
    if batched[0]:
        rank = event_rank(params, True)
        axis = axis % rank if rank else 0
        return [(run_op(op, inputs, dict(op.attrs, axis=axis + 1))[0], True)]
    out = run_op(op, inputs)[0]
    if axis == 0:
        return [(out, True)]
    rank = out.shape.rank
    if rank is None:
        raise NoBatchingRule("unknown rank")
    perm = [axis] + [i for i in range(rank) if i != axis]
    return [(transpose(out, perm), True)]


@register_batching_rule("UnsortedSegmentSum")
def _segment_sum(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    data, ids, num = inputs
    if batched[1] or batched[2]:
        raise NoBatchingRule("batched segment ids")
    k = event_rank(ids, False)
    rank = event_rank(data, True) + 1
    perm = list(range(1, k + 1)) + [0] + list(range(k + 1, rank))
    out = run_op(op, [transpose(data, perm), ids, num])[0]
    back = [1, 0] + list(range(2, out.shape.rank))
    return [(transpose(out, back), True)]



# -- slicing ----------------------------------------------------------------------
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _with_batch_slice(op: Any, bounds: list) -> Tuple[list, dict]:
    """begin/end/strides and masks with a leading full slice for the batch axis."""
    parts = []
    for t, lead in zip(bounds, (0, 0, 1), strict=True):
        parts.append(constant(np.array([lead] + _static_list(t), t.dtype.as_numpy_dtype)))
    attrs = dict(op.attrs)
    for mask in _MASKS:
        attrs[mask] = int(attrs.get(mask, 0)) << 1
    attrs["begin_mask"] |= 1
    attrs["end_mask"] |= 1
    return parts, attrs


@register_batching_rule("StridedSlice")
def _strided_slice(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    if any(batched[1:]):
        raise NoBatchingRule("batched slice bounds")
    bounds, attrs = _with_batch_slice(op, inputs[1:4])
    return [(run_op(op, [inputs[0]] + bounds, attrs)[0], True)]


@register_batching_rule("StridedSliceGrad")
def _strided_slice_grad(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    if any(batched[:4]) or n is None:
        raise NoBatchingRule("batched shape or bounds, or unknown batch size")
    dims = constant(np.array([n] + _static_list(inputs[0]), inputs[0].dtype.as_numpy_dtype))
    bounds, attrs = _with_batch_slice(op, inputs[1:4])
    return [(run_op(op, [dims] + bounds + [inputs[4]], attrs)[0], True)]


@register_batching_rule("IdentityN")
def _identity_n(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    return list(zip(inputs, batched, strict=True))


# -- ops over trailing axes, axis attrs, padding and tiling ------------------------
@register_batching_rule("Cumsum", "Cumprod", "Sort", "Softmax", "LogSoftmax", "ReverseV2",
                        "OneHot")
def _axis_attr(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    """Ops of one batched input with an `axis` attr (int or tuple): shift it."""
    if any(batched[1:]):
        raise NoBatchingRule("batched secondary input")
    axis = op.attrs["axis"]
    axis = tuple(_shift_axis(a) for a in axis) if isinstance(axis, tuple) else _shift_axis(axis)
    return [(out, True) for out in run_op(op, inputs, dict(op.attrs, axis=axis))]


@register_batching_rule("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky",
                        "SelfAdjointEigV2", "Svd", "MatrixDiag", "MatrixDiagPart",
                        "MatrixBandPart", "BiasAdd")
def _trailing(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    """Ops acting on the trailing axes of their first input, any leading batch."""
    if any(batched[1:]) or op.attrs.get("data_format", "NHWC") != "NHWC":
        raise NoBatchingRule("batched secondary input")
    return [(out, True) for out in run_op(op, inputs)]


@register_batching_rule("Tile", "Slice", "PadV2")
def _leading_bounds(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    """Tile multiples, Slice begin/size and PadV2 paddings get an entry for the batch axis."""
    if any(batched[1:]):
        raise NoBatchingRule("batched bounds")
    args = [inputs[0]]
    if op.type == "Tile":
        args.append(_prepended(inputs[1], [1]))
    elif op.type == "Slice":
        args += [_prepended(inputs[1], [0]), _prepended(inputs[2], [-1])]
    else:
        args += [_prepended(inputs[1], [0, 0]), inputs[2]]
    return [(run_op(op, args)[0], True)]


def _prepended(t: Any, lead: list) -> Any:
    value = constant_value(t)
    if value is None:
        raise NoBatchingRule("dynamic bounds")
    value = np.asarray(value)
    row = np.array(lead, value.dtype).reshape((1,) * (value.ndim - 1) + (-1,))
    return constant(np.concatenate([row, value]) if value.ndim > 1 else
                    np.concatenate([row, value.reshape(-1)]))


@register_batching_rule("Fill")
def _fill(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    if batched[0] or n is None:
        raise NoBatchingRule("batched dims or unknown batch size")
    dims = _static_list(inputs[0])
    value = reshape(inputs[1], [n] + [1] * len(dims))
    return [(broadcast_to(value, [n] + dims), True)]


@register_batching_rule("L2Loss")
def _l2_loss(op: Any, inputs: list, batched: tuple, n: Optional[int]) -> Pairs:
    x = inputs[0]
    rank = event_rank(x, True)
    squares = apply_op(op_defs.lookup("Mul"), (x, x))
    total = reduce_sum(squares, axis=list(range(1, rank + 1))) if rank else squares
    half = constant(np.array(0.5, x.dtype.as_numpy_dtype))
    return [(apply_op(op_defs.lookup("Mul"), (total, half)), True)]
