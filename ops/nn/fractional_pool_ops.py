"""Fractional max / average pooling (`dg.nn.fractional_max_pool`, `fractional_avg_pool`, TF's
FractionalMaxPool / FractionalAvgPool and their gradient ops): each spatial dim of size n is
cut into floor(n / ratio) pooling regions by a random boundary sequence (TF's rule: sizes
n // out or n // out + 1 in random order, or pseudo-random ceil(alpha (i + u)) boundaries);
with `overlapping`, each region also takes the next boundary row / column. The boundaries
come from duograd's own RNG (a ratio that divides the size gives TF's exact sequence).
The gradient ops have no gradient, as in TF."""
from __future__ import annotations

import collections
import math
from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..random.random_ops import generator_of, random_attrs

FractionalPoolResult = collections.namedtuple(
    "FractionalPoolResult", ["output", "row_pooling_sequence", "col_pooling_sequence"])


def pooling_sequence(n: int, out: int, generator: np.random.Generator,
                     pseudo_random: bool) -> np.ndarray:
    """TF's GeneratePoolingSequence: out + 1 boundaries from 0 to n."""
    if out <= 0:
        raise ValueError(f"pooling_ratio is too large for an input dimension of {n}")
    if n % out == 0:
        return np.arange(0, n + 1, n // out, dtype=np.int64)
    if pseudo_random:
        alpha = n / out
        u = generator.random()
        seq = [int(math.ceil(alpha * (i + u)) - math.ceil(alpha * u)) for i in range(out)]
        return np.array(seq + [n], np.int64)
    base, extra = divmod(n, out)
    sizes = np.full(out, base, np.int64)
    sizes[:extra] += 1
    generator.shuffle(sizes)
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def _regions(seq: np.ndarray, n: int, overlapping: bool):
    """(start, stop) of each region along one dim."""
    return [(int(seq[i]), int(min(seq[i + 1] + (1 if overlapping else 0), n)))
            for i in range(len(seq) - 1)]


def _check(x, ratio, op_type: str) -> None:
    if x.ndim != 4:
        raise ValueError(f"{op_type}: input must be 4-dimensional, got shape {list(x.shape)}")
    if ratio[0] != 1.0 or ratio[3] != 1.0:
        raise ValueError(f"{op_type}: pooling_ratio of the batch and depth dimensions must be "
                         f"1.0, got {list(ratio)}")
    if min(ratio) < 1.0:
        raise ValueError(f"{op_type}: pooling_ratio must be >= 1.0, got {list(ratio)}")


def _pool(reduce: str):
    def kernel(resources, x, *, pooling_ratio, pseudo_random, overlapping, deterministic,
               dtype, stream):
        op_type = "FractionalMaxPool" if reduce == "max" else "FractionalAvgPool"
        _check(x, pooling_ratio, op_type)
        generator = generator_of(resources, stream)
        h, w = x.shape[1], x.shape[2]
        rows = pooling_sequence(h, int(h // pooling_ratio[1]), generator, pseudo_random)
        cols = pooling_sequence(w, int(w // pooling_ratio[2]), generator, pseudo_random)
        out = np.empty((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
        for i, (r0, r1) in enumerate(_regions(rows, h, overlapping)):
            for j, (c0, c1) in enumerate(_regions(cols, w, overlapping)):
                window = x[:, r0:r1, c0:c1, :]
                out[:, i, j, :] = window.max(axis=(1, 2)) if reduce == "max" else \
                    window.mean(axis=(1, 2))
        return out, rows, cols
    return kernel


def _pool_infer(inputs, attrs):
    x = inputs[0]
    ratio = attrs["pooling_ratio"]
    if x.shape.rank is None:
        return [(x.dtype, TensorShape((None,) * 4)), (dtypes.int64, TensorShape((None,))),
                (dtypes.int64, TensorShape((None,)))]
    dims = x.shape.as_list()
    out = [dims[0]] + [None if d is None else int(d // r) for d, r in zip(dims[1:3], ratio[1:3], strict=True)] \
        + [dims[3]]
    return [(x.dtype, TensorShape(out)),
            (dtypes.int64, TensorShape((None if out[1] is None else out[1] + 1,))),
            (dtypes.int64, TensorShape((None if out[2] is None else out[2] + 1,)))]


FRACTIONAL_MAX_POOL = declare_op("FractionalMaxPool", _pool("max"), _pool_infer, num_outputs=3,
                                 stateful=True, input_kinds="fiu", grad_inputs=(0,),
                                 grad_outputs=(0, 1, 2))
FRACTIONAL_AVG_POOL = declare_op("FractionalAvgPool", _pool("avg"), _pool_infer, num_outputs=3,
                                 stateful=True, input_kinds="fiu", grad_inputs=(),
                                 grad_outputs=(1, 2))


def _max_pool_grad(x, y, grad, rows, cols, *, overlapping):
    """Each region's gradient to its first maximum (row-major), as TF's kernel."""
    out = np.zeros(x.shape, grad.dtype)
    h, w = x.shape[1], x.shape[2]
    for i, (r0, r1) in enumerate(_regions(rows, h, overlapping)):
        for j, (c0, c1) in enumerate(_regions(cols, w, overlapping)):
            window = x[:, r0:r1, c0:c1, :]
            n, wh, ww, c = window.shape
            best = window.reshape(n, wh * ww, c).argmax(axis=1)           # [N, C]
            by, bx = np.divmod(best, ww)
            b_index, c_index = np.meshgrid(np.arange(n), np.arange(c), indexing="ij")
            np.add.at(out, (b_index, r0 + by, c0 + bx, c_index), grad[:, i, j, :])
    return out


def _avg_pool_grad(orig_input_shape, grad, rows, cols, *, overlapping):
    shape = tuple(int(d) for d in orig_input_shape)
    out = np.zeros(shape, grad.dtype)
    for i, (r0, r1) in enumerate(_regions(rows, shape[1], overlapping)):
        for j, (c0, c1) in enumerate(_regions(cols, shape[2], overlapping)):
            out[:, r0:r1, c0:c1, :] += (grad[:, i, j, :] / ((r1 - r0) * (c1 - c0)))[:, None,
                                                                                    None, :]
    return out


FRACTIONAL_MAX_POOL_GRAD = declare_op(
    "FractionalMaxPoolGrad", _max_pool_grad,
    lambda inputs, attrs: [(inputs[2].dtype, inputs[0].shape)], input_kinds="fiu")
FRACTIONAL_AVG_POOL_GRAD = declare_op(
    "FractionalAvgPoolGrad", _avg_pool_grad,
    lambda inputs, attrs: [(inputs[1].dtype, TensorShape((None,) * 4))])


def _ratio(pooling_ratio: Any) -> list:
    values = [float(pooling_ratio)] * 2 if np.ndim(pooling_ratio) == 0 else \
        [float(r) for r in pooling_ratio]
    if len(values) == 2:
        values = [1.0] + values + [1.0]
    if len(values) != 4:
        raise ValueError(f"pooling_ratio should be a float or a list of 1, 2 or 4 floats, got "
                         f"{pooling_ratio!r}")
    return values


def _fractional(op_def, value, pooling_ratio, pseudo_random, overlapping, seed, name):
    x = convert_to_tensor(value)
    attrs = dict(random_attrs(op_def.type, x.dtype, seed or None),
                 pooling_ratio=_ratio(pooling_ratio), pseudo_random=bool(pseudo_random),
                 overlapping=bool(overlapping), deterministic=bool(seed))
    output, rows, cols = apply_op(op_def, (x,), attrs, name)
    return FractionalPoolResult(output, rows, cols)


def fractional_max_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                        overlapping: bool = False, seed: int = 0, name: Optional[str] = None):
    """(max over each fractional region, row boundaries, column boundaries)."""
    return _fractional(FRACTIONAL_MAX_POOL, value, pooling_ratio, pseudo_random, overlapping,
                       seed, name)


def fractional_avg_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                        overlapping: bool = False, seed: int = 0, name: Optional[str] = None):
    """(mean over each fractional region, row boundaries, column boundaries)."""
    return _fractional(FRACTIONAL_AVG_POOL, value, pooling_ratio, pseudo_random, overlapping,
                       seed, name)


def fractional_pool_grad(op_type: str, first: Any, grad: Any, rows: Any, cols: Any,
                         overlapping: bool, orig_output: Any = None):
    """FractionalMaxPoolGrad(x, y, grad, rows, cols) or FractionalAvgPoolGrad(shape, grad,
    rows, cols): the gradients' entry point (TF's raw ops)."""
    rows = convert_to_tensor(rows, dtype=dtypes.int64)
    cols = convert_to_tensor(cols, dtype=dtypes.int64)
    grad = convert_to_tensor(grad)
    if op_type == "max":
        return apply_op(FRACTIONAL_MAX_POOL_GRAD, (convert_to_tensor(first),
                                                   convert_to_tensor(orig_output), grad, rows,
                                                   cols), {"overlapping": overlapping})
    return apply_op(FRACTIONAL_AVG_POOL_GRAD, (convert_to_tensor(first, dtype_hint=dtypes.int64),
                                               grad, rows, cols), {"overlapping": overlapping})


NN_NAMES = {"fractional_max_pool": fractional_max_pool,
            "fractional_avg_pool": fractional_avg_pool}
