"""Sparse segment reductions (`dg.sparse.segment_sum/mean/sqrt_n`, TF 1's
`sparse_segment_*`): out[segment_ids[i]] reduces data[indices[i]], segment_ids sorted, as TF's
SparseSegmentSum/Mean/SqrtN and their WithNumSegments forms. A segment with no entries is 0.
Gradients: grad_registry/sparse_segment_grad.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..tensor_util import constant_value


def _reduce(op_type: str, norm: Optional[str]):
    def kernel(data, indices, segment_ids, num_segments=None):
        indices = np.asarray(indices).astype(np.int64)
        ids = np.asarray(segment_ids).astype(np.int64)
        if indices.ndim != 1 or ids.shape != indices.shape:
            raise ValueError(f"{op_type}: segment_ids and indices should have the same size, "
                             f"got {list(ids.shape)} and {list(indices.shape)}")
        if data.ndim < 1:
            raise ValueError(f"{op_type}: data must be at least 1-D")
        bad = (indices < 0) | (indices >= data.shape[0])
        if np.any(bad):
            i = int(np.argmax(bad))
            raise ValueError(f"{op_type}: indices[{i}] == {indices[i]} out of range "
                             f"[0, {data.shape[0]})")
        if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
            raise ValueError(f"{op_type}: segment ids are not increasing")
        if num_segments is None:
            n = int(ids[-1]) + 1 if ids.size else 0
        else:
            n = int(num_segments)
            if ids.size and ids[-1] >= n:
                raise ValueError(f"{op_type}: segment id {ids[-1]} out of range [0, {n}), "
                                 f"possibly because 'segment_ids' input is not sorted")
        out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
        np.add.at(out, ids, data[indices])
        if norm is not None:
            counts = np.bincount(ids, minlength=n).astype(data.dtype)
            scale = np.maximum(counts, 1)
            scale = np.sqrt(scale) if norm == "sqrtn" else scale
            out /= scale.reshape((n,) + (1,) * (data.ndim - 1))
        return out
    return kernel


def _infer(inputs, attrs):
    data, indices, ids = inputs[:3]
    for t, what in ((indices, "indices"), (ids, "segment_ids")):
        if not t.dtype.is_integer:
            raise TypeError(f"{what} must be int32 or int64, got {t.dtype.name}")
        if t.shape.rank is not None and t.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {t.shape.rank} for {what}")
    if data.shape.rank is None:
        return [(data.dtype, TensorShape(None))]
    if data.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for data")
    n = None
    if len(inputs) == 4:
        value = constant_value(inputs[3])
        n = None if value is None else int(value)
    return [(data.dtype, TensorShape((n,) + tuple(data.shape.dims[1:])))]


def _declare(op_type: str, norm: Optional[str]):
    return declare_op(op_type, _reduce(op_type, norm), _infer, input_kinds="f",
                      grad_inputs=(1, 2))


SPARSE_SEGMENT_SUM = _declare("SparseSegmentSum", None)
SPARSE_SEGMENT_MEAN = _declare("SparseSegmentMean", "mean")
SPARSE_SEGMENT_SQRT_N = _declare("SparseSegmentSqrtN", "sqrtn")
SPARSE_SEGMENT_SUM_N = _declare("SparseSegmentSumWithNumSegments", None)
SPARSE_SEGMENT_MEAN_N = _declare("SparseSegmentMeanWithNumSegments", "mean")
SPARSE_SEGMENT_SQRT_N_N = _declare("SparseSegmentSqrtNWithNumSegments", "sqrtn")
_OPS = {None: (SPARSE_SEGMENT_SUM, SPARSE_SEGMENT_SUM_N),
        "mean": (SPARSE_SEGMENT_MEAN, SPARSE_SEGMENT_MEAN_N),
        "sqrtn": (SPARSE_SEGMENT_SQRT_N, SPARSE_SEGMENT_SQRT_N_N)}


def _int(value: Any) -> Any:
    t = convert_to_tensor(value)
    if not t.dtype.is_integer:
        raise TypeError(f"indices, segment_ids and num_segments must be integers, got "
                        f"{t.dtype.name}")
    return t


def sparse_segment(norm: Optional[str], data: Any, indices: Any, segment_ids: Any,
                   num_segments: Any = None, name: Optional[str] = None):
    """The sparse segment reduction `norm` (None: sum, 'mean', 'sqrtn')."""
    plain, with_n = _OPS[norm]
    inputs = [convert_to_tensor(data), _int(indices), _int(segment_ids)]
    if num_segments is None:
        return apply_op(plain, inputs, name=name)
    return apply_op(with_n, inputs + [_int(num_segments)], name=name)


def segment_sum(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                name: Optional[str] = None, sparse_gradient: bool = False):
    """Sums of data[indices] over runs of sorted segment_ids (tf.sparse.segment_sum)."""
    return sparse_segment(None, data, indices, segment_ids, num_segments, name)


def segment_mean(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                 name: Optional[str] = None, sparse_gradient: bool = False):
    """Means of data[indices] over runs of sorted segment_ids (tf.sparse.segment_mean)."""
    return sparse_segment("mean", data, indices, segment_ids, num_segments, name)


def segment_sqrt_n(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                   name: Optional[str] = None, sparse_gradient: bool = False):
    """Sums divided by sqrt(count) (tf.sparse.segment_sqrt_n)."""
    return sparse_segment("sqrtn", data, indices, segment_ids, num_segments, name)


def _v1(norm: Optional[str]):
    def function(data: Any, indices: Any, segment_ids: Any, name: Optional[str] = None,
                 num_segments: Any = None, sparse_gradient: bool = False):
        return sparse_segment(norm, data, indices, segment_ids, num_segments, name)
    return function


SPARSE_NAMES = {"segment_sum": segment_sum, "segment_mean": segment_mean,
                "segment_sqrt_n": segment_sqrt_n}
V1_NAMES = {"sparse_segment_sum": _v1(None), "sparse_segment_mean": _v1("mean"),
            "sparse_segment_sqrt_n": _v1("sqrtn")}
