"""Op-table rows for names added for TF's gradient tests: meshgrid, embedding_lookup,
random.shuffle, norm."""
from __future__ import annotations

import numpy as np

import duograd as dg
from .nn_table import _seeded
from .spec import OpSpec, inputs, normal

_IDS = np.array([[2, 0], [2, 3]], np.int32)


def clipped_rows(table, ids, max_norm):
    rows = table[ids]
    norms = np.sqrt(np.sum(rows * rows, -1, keepdims=True))
    return rows * np.minimum(1.0, max_norm / norms)


ROWS = [
    OpSpec("meshgrid_xy", lambda x, y, z: dg.meshgrid(x, y, z),
           lambda x, y, z: list(np.meshgrid(x, y, z)), inputs(normal(3), normal(2), normal(4))),
    OpSpec("meshgrid_ij", lambda x, y: dg.meshgrid(x, y, indexing="ij"),
           lambda x, y: list(np.meshgrid(x, y, indexing="ij")), inputs(normal(3), normal(2))),
    OpSpec("nn.embedding_lookup", lambda p: dg.nn.embedding_lookup(p, _IDS),
           lambda p: p[_IDS], inputs(normal(4, 3))),
    OpSpec("nn.embedding_lookup_shards",
           lambda a, b: dg.nn.embedding_lookup([a, b], [3, 0, 1]),
           lambda a, b: np.concatenate([a, b])[[3, 0, 1]], inputs(normal(2, 3), normal(2, 3))),
    OpSpec("nn.embedding_lookup_max_norm",
           lambda p: dg.nn.embedding_lookup(p, _IDS, max_norm=1.0),
           lambda p: clipped_rows(p, _IDS, 1.0), inputs(lambda rng: rng.uniform(0.5, 2, (4, 3)))),
    OpSpec("random.shuffle", _seeded(lambda x: dg.random.shuffle(x, seed=4)), None,
           inputs(normal(5, 2)), order=0),
    OpSpec("placeholder_with_default", lambda x: dg.placeholder_with_default(x, [None, 3]) * x,
           np.square, inputs(normal(2, 3))),
    OpSpec("norm", lambda x: dg.norm(x, axis=1), lambda x: np.linalg.norm(x, axis=1),
           inputs(normal(3, 4))),
]


def _bn_ref(x, mean, var, offset, scale):
    return scale * (x - mean) / np.sqrt(var + 1e-3) + offset


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


ROWS += [
    OpSpec("nn.silu", dg.nn.silu, lambda x: x * _sigmoid(x), inputs(normal(3, 2))),
    OpSpec("nn.swish_beta", lambda x: dg.nn.swish(x, beta=2.0), lambda x: x * _sigmoid(2 * x),
           inputs(normal(3, 2))),
    OpSpec("nn.softsign", dg.nn.softsign, lambda x: x / (1 + np.abs(x)),
           inputs(lambda rng: rng.choice([-1.0, 1.0], (3, 2)) * rng.uniform(0.2, 2, (3, 2)))),
    OpSpec("nn.xw_plus_b", dg.nn.xw_plus_b, lambda x, w, b: x @ w + b,
           inputs(normal(2, 3), normal(3, 4), normal(4))),
    OpSpec("nn.l2_normalize", lambda x: dg.nn.l2_normalize(x, axis=1),
           lambda x: x / np.sqrt(np.sum(x * x, 1, keepdims=True)), inputs(normal(3, 4))),
    OpSpec("nn.batch_normalization",
           lambda x, m, v, o, s: dg.nn.batch_normalization(x, m, v, o, s, 1e-3), _bn_ref,
           inputs(normal(4, 3), normal(3), lambda rng: rng.uniform(0.5, 2, 3), normal(3),
                  normal(3))),
    OpSpec("nn.weighted_cross_entropy_with_logits",
           lambda z, x: dg.nn.weighted_cross_entropy_with_logits(z, x, 2.5),
           lambda z, x: 2.5 * z * -np.log(_sigmoid(x)) + (1 - z) * -np.log(1 - _sigmoid(x)),
           inputs(lambda rng: rng.uniform(0, 1, (3, 2)), normal(3, 2))),
    OpSpec("nn.log_poisson_loss", lambda t, x: dg.nn.log_poisson_loss(t, x, True),
           lambda t, x: np.exp(x) - x * t + np.where(
               t > 1, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t), 0.0),
           inputs(lambda rng: np.array([0.5, 3.0, 4.0]), normal(3))),
    OpSpec("roll", lambda x: dg.roll(x, [1, -2], [0, 1]), lambda x: np.roll(x, (1, -2), (0, 1)),
           inputs(normal(3, 4))),
    OpSpec("ensure_shape", lambda x: dg.ensure_shape(x, [None, 4]) * x, np.square,
           inputs(normal(3, 4))),
    OpSpec("repeat", lambda x: dg.repeat(x, [2, 0, 1], axis=0),
           lambda x: np.repeat(x, [2, 0, 1], axis=0), inputs(normal(3, 2))),
    OpSpec("repeat_scalar", lambda x: dg.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1),
           inputs(normal(3, 2))),
    OpSpec("sequence_mask", lambda x: dg.cast(dg.sequence_mask([1, 3], 4), dg.float64) * x,
           lambda x: (np.arange(4) < np.array([[1], [3]])) * x, inputs(normal(2, 4))),
    OpSpec("random.truncated_normal", _seeded(lambda m: dg.random.truncated_normal(
        [3, 2], mean=m, dtype=dg.float64, seed=5)), None, inputs(normal())),
]

ROWS += [
    OpSpec("map_fn", lambda x: dg.map_fn(lambda row: dg.reduce_sum(row * row), x),
           lambda x: np.sum(x * x, 1), inputs(normal(3, 2))),
    OpSpec("map_fn_nested", lambda x, y: dg.map_fn(lambda e: (e[0] * e[1], e[1]), (x, y)),
           lambda x, y: [x * y, y], inputs(normal(3, 2), normal(3, 2))),
    OpSpec("scan", lambda x: dg.scan(lambda a, v: a * v, x), lambda x: np.cumprod(x, 0),
           inputs(normal(4, 2))),
    OpSpec("scan_initializer_reverse",
           lambda x, a: dg.scan(lambda acc, v: acc + v * v, x, initializer=a, reverse=True),
           lambda x, a: a + np.cumsum((x * x)[::-1], 0)[::-1], inputs(normal(3, 2), normal(2))),
    OpSpec("foldl", lambda x: dg.foldl(lambda a, v: a * v + 1.0, x),
           lambda x: (x[0] * x[1] + 1) * x[2] + 1, inputs(normal(3, 2))),
    OpSpec("foldr", lambda x, a: dg.foldr(lambda acc, v: acc * v, x, initializer=a),
           lambda x, a: a * x[2] * x[1] * x[0], inputs(normal(3, 2), normal(2))),
]

_PARTS = np.array([[1, 0], [2, 1], [0, 2]], np.int32)   # two elements per part


def _stitch_ref(a, b):
    out = np.zeros((5, 2))
    out[[4, 0]] = a
    out[[1, 3, 2]] = b
    return out


ROWS += [
    OpSpec("dynamic_partition", lambda x: dg.dynamic_partition(x, _PARTS, 3),
           lambda x: [x[_PARTS == p] for p in range(3)], inputs(normal(3, 2, 2))),
    OpSpec("dynamic_stitch", lambda a, b: dg.dynamic_stitch([[4, 0], [1, 3, 2]], [a, b]),
           _stitch_ref, inputs(normal(2, 2), normal(3, 2))),
    OpSpec("math.invert_permutation",
           lambda x: dg.cast(dg.math.invert_permutation([2, 0, 3, 1]), dg.float64) * x,
           lambda x: np.array([1, 3, 0, 2]) * x, inputs(normal(4)), order=0),
    OpSpec("math.angle", dg.math.angle, np.angle,
           inputs(lambda rng: rng.standard_normal(4) + 1j * rng.standard_normal(4))),
    OpSpec("linalg.cross", dg.linalg.cross, np.cross, inputs(normal(2, 3), normal(3))),
]

def _f32(*shape):
    return lambda rng: rng.standard_normal(shape).astype(np.float32)


_F32_TOLERANCES = {"rtol": 1e-5, "atol": 1e-5, "eps": 1e-2, "grad_rtol": 2e-2}
ROWS += [
    # FusedBatchNormV3 takes float32 (TF's kernels refuse float64): checked in float32.
    OpSpec("nn.fused_batch_norm_training",
           lambda x, s, o: dg.nn.fused_batch_norm(x, s, o, epsilon=1e-3)[0],
           lambda x, s, o: _bn_ref(x, x.mean((0, 1, 2)), x.var((0, 1, 2)), o, s),
           inputs(_f32(2, 2, 3, 2), _f32(2), _f32(2)), **_F32_TOLERANCES),
    # TF's op gives its moment outputs no gradient: forward only.
    OpSpec("nn.fused_batch_norm_batch_moments",
           lambda x, s, o: list(dg.nn.fused_batch_norm(x, s, o)[1:]),
           lambda x, s, o: [x.mean((0, 1, 2)), x.var((0, 1, 2)) * 12 / 11],
           inputs(_f32(2, 2, 3, 2), _f32(2), _f32(2)), order=0, rtol=1e-5, atol=1e-6),
    OpSpec("nn.fused_batch_norm_inference_nchw",
           lambda x, s, o: dg.nn.fused_batch_norm(x, s, o, [0.5, -0.5], [2.0, 3.0],
                                                  data_format="NCHW", is_training=False)[0],
           lambda x, s, o: _bn_ref(x, np.array([0.5, -0.5])[:, None, None],
                                   np.array([2.0, 3.0])[:, None, None], o[:, None, None],
                                   s[:, None, None]),
           inputs(_f32(2, 2, 3, 2), _f32(2), _f32(2)), **_F32_TOLERANCES),
]
