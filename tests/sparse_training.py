"""Shared by the optimizer tests: a trajectory trained with IndexedSlices gradients."""
from __future__ import annotations

from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

import duograd as dg


def train_with_slices(make: Callable[[], Any], mode: str, steps: Sequence[Tuple[Any, Any]],
                      table: np.ndarray) -> List[np.ndarray]:
    """The table after each (ids, values) step of `make()`'s optimizer, eagerly, inside
    dg.function or in a Session ("eager", "function", "graph")."""
    dense_shape = list(table.shape)
    if mode == "graph":
        with dg.Graph().as_default():
            e = dg.Variable(table)
            ids, values = dg.placeholder(dg.int32, (None,)), dg.placeholder(dg.float32)
            train = make().apply_gradients([(dg.IndexedSlices(values, ids,
                                                              dg.constant(dense_shape)), e)])
            with dg.Session() as sess:
                sess.run(dg.global_variables_initializer())
                out = []
                for i, x in steps:
                    sess.run(train, {ids: i, values: x})
                    out.append(sess.run(e))
                return out
    e = dg.Variable(table)
    opt = make()

    def apply(i: Any, x: Any) -> Any:
        return opt.apply_gradients([(dg.IndexedSlices(x, i, dg.constant(dense_shape)), e)])

    step = dg.function(apply)
    out = []
    for i, x in steps:
        i, x = dg.constant(i, dg.int32), dg.constant(x, dg.float32)
        (apply if mode == "eager" else step)(i, x)
        out.append(e.numpy())
    return out
