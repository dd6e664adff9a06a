"""Op-table rows for cumulative_logsumexp and the sparse segment reductions (issue 22)."""
from __future__ import annotations

import numpy as np

import duograd as dg
from .spec import OpSpec, inputs, normal


def _clse(x, axis, exclusive=False, reverse=False):
    v = np.flip(x, axis) if reverse else x
    out = np.logaddexp.accumulate(v, axis=axis)
    if exclusive:
        out = np.roll(out, 1, axis=axis)
        index = [slice(None)] * x.ndim
        index[axis] = 0
        out[tuple(index)] = -np.inf
    return np.flip(out, axis) if reverse else out


def _sparse_segment(norm, indices, ids, n=None):
    def ref(d):
        count = (max(ids) + 1) if n is None else n
        out = np.zeros((count,) + d.shape[1:])
        np.add.at(out, ids, d[indices])
        if norm:
            c = np.maximum(np.bincount(ids, minlength=count), 1).astype(float)
            out /= (np.sqrt(c) if norm == "sqrtn" else c)[:, None]
        return out
    return ref


ROWS = [
    OpSpec("math.cumulative_logsumexp", lambda x: dg.math.cumulative_logsumexp(x, axis=1),
           lambda x: _clse(x, 1), inputs(normal(2, 4))),
    OpSpec("math.cumulative_logsumexp_reverse", lambda x: dg.math.cumulative_logsumexp(
        x, axis=0, reverse=True), lambda x: _clse(x, 0, reverse=True), inputs(normal(3, 2))),
    # The exclusive form's first entry is -inf (an empty sum): forward only.
    OpSpec("math.cumulative_logsumexp_exclusive", lambda x: dg.math.cumulative_logsumexp(
        x, axis=0, exclusive=True), lambda x: _clse(x, 0, exclusive=True),
        inputs(normal(3, 2)), order=0),
    OpSpec("sparse.segment_sum", lambda d: dg.sparse.segment_sum(d, [0, 2, 1, 0], [0, 0, 1, 3]),
           _sparse_segment(None, [0, 2, 1, 0], [0, 0, 1, 3]), inputs(normal(4, 2))),
    OpSpec("sparse.segment_mean", lambda d: dg.sparse.segment_mean(d, [0, 2, 1, 0], [0, 0, 1, 3]),
           _sparse_segment("mean", [0, 2, 1, 0], [0, 0, 1, 3]), inputs(normal(4, 2))),
    OpSpec("sparse.segment_sqrt_n", lambda d: dg.sparse.segment_sqrt_n(d, [3, 2, 2], [0, 0, 2]),
           _sparse_segment("sqrtn", [3, 2, 2], [0, 0, 2]), inputs(normal(4, 2))),
    OpSpec("sparse.segment_sum_num_segments", lambda d: dg.sparse.segment_sum(
        d, [0, 1], [1, 1], num_segments=4), _sparse_segment(None, [0, 1], [1, 1], 4),
        inputs(normal(4, 3))),
    OpSpec("sparse.segment_mean_num_segments", lambda d: dg.sparse.segment_mean(
        d, [0, 1, 3], [0, 2, 2], num_segments=3), _sparse_segment("mean", [0, 1, 3], [0, 2, 2], 3),
        inputs(normal(4, 2))),
    OpSpec("sparse.segment_sqrt_n_num_segments", lambda d: dg.sparse.segment_sqrt_n(
        d, [0, 1, 3], [0, 2, 2], num_segments=5),
        _sparse_segment("sqrtn", [0, 1, 3], [0, 2, 2], 5), inputs(normal(4, 2))),
]
