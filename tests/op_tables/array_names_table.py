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
