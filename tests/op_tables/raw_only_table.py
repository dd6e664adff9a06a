"""Op-table rows for the ops TF reaches through tf.raw_ops only (ops/array/raw_only_ops.py)."""
from __future__ import annotations

import numpy as np

import duograd as dg
from duograd.ops.array import raw_only_ops as raw
from .spec import OpSpec, inputs, normal


def _scatter_ref(x, u):
    out = x.copy()
    np.add.at(out, ([0, 2, 0],), u)
    return out


def _stitch_ref(a, b):
    out = np.zeros((4, 2))
    out[[0, 2]] = a
    out[[1, 3]] = b
    return out


def _conj_transpose(re, im):
    t = raw.conjugate_transpose(dg.complex(re, im), [1, 2, 0])
    return dg.math.real(t) + 3.0 * dg.math.imag(t)


ROWS = [
    OpSpec("raw_ops.ApproximateEqual", lambda x, y: raw.approximate_equal(x, y, 0.5),
           lambda x, y: np.abs(x - y) < 0.5, inputs(normal(3, 2), normal(3, 2)), order=0),
    OpSpec("raw_ops.ScatterNdNonAliasingAdd", lambda x, u: raw.scatter_nd_non_aliasing_add(
        x, [[0], [2], [0]], u), _scatter_ref, inputs(normal(3, 2), normal(3, 2))),
    OpSpec("raw_ops.BroadcastGradientArgs", lambda s0, s1: list(raw.broadcast_gradient_args(
        s0, s1)), lambda s0, s1: [np.array([1]), np.array([0])],
        inputs(lambda r: np.array([2, 1, 3], np.int32), lambda r: np.array([4, 3], np.int32)),
        order=0),
    OpSpec("raw_ops.ConcatOffset", lambda a, b: raw.concat_offset(1, [a, b]),
           lambda a, b: [np.array([0, 0, 0]), np.array([0, 3, 0])],
           inputs(lambda r: np.array([2, 3, 5], np.int32), lambda r: np.array([2, 7, 5],
                                                                              np.int32)),
           order=0),
    OpSpec("raw_ops.CheckNumericsV2", lambda x: raw.check_numerics_v2(x, "m") * x,
           lambda x: x * x, inputs(normal(3, 2))),
    OpSpec("raw_ops.ConjugateTranspose", _conj_transpose,
           lambda re, im: np.transpose(re, (1, 2, 0)) - 3.0 * np.transpose(im, (1, 2, 0)),
           inputs(normal(2, 3, 1), normal(2, 3, 1))),
    OpSpec("raw_ops.ParallelDynamicStitch", lambda a, b: raw.parallel_dynamic_stitch(
        [[0, 2], [1, 3]], [a, b]), _stitch_ref, inputs(normal(2, 2), normal(2, 2))),
    OpSpec("raw_ops.PreventGradient", lambda x: raw.prevent_gradient(x, "no"), lambda x: x,
           inputs(normal(3)), order=0),
]
