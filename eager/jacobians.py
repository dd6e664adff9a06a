"""Vectorized Jacobians of a tape: the backward pass traced once as a function
of its output gradient, then converted by pfor and run on all one-hot seeds.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from ..framework.func_graph import FuncGraph, tracing
from ..ops.constant_op import constant
from ..ops.parallel_for.pfor import Converter, OneHot, densified, finish
from . import context
from .imperative_grad import imperative_grad
from .jacobian_plans import plan_cache, plans_allowed

_state = context.state


def vectorized_backward(producers: dict, target: Any, source_ids: Sequence[int],
                        seeds: Any, n: int, seed_key: Optional[tuple] = None
                        ) -> List[Optional[Any]]:
    """For each source, the gradients of `target` for the n stacked output
    gradients `seeds` (a OneHot or a [n] + target.shape tensor), stacked: [n] +
    source.shape; None for a source the target does not depend on.

    `seed_key` says what a dense `seeds` is (a function of the target's shape and
    dtype, e.g. ("columns", batch, inner)); with it, or with plain one-hot seeds, a
    repeated call of the same tape structure runs a compiled plan (jacobian_plans).
    """
    if seed_key is None and isinstance(seeds, OneHot) and seeds.scale is None:
        seed_key = ("one-hot", seeds.n, seeds.event)
    if seed_key is not None and plans_allowed(target):
        grads = plan_cache().vectorized_backward(producers, target, source_ids, seeds, n,
                                                 seed_key)
        if grads is not None:
            return grads
    graph = FuncGraph("jacobian", _state.graph)
    with tracing(graph):
        seed = graph.add_input(target.dtype, target.shape, "seed")
        grads = imperative_grad(producers, [target], [target.tensor_id], list(source_ids),
                                [seed], release=False)
        grads = [None if g is None else densified(g) for g in grads]
    converter = Converter(graph, 0, n)
    converter.bind(seed, seeds)
    wanted = [g for g in grads if g is not None]
    pairs = iter(converter.convert(wanted))
    result: List[Optional[Any]] = []
    for g in grads:
        if g is None:
            result.append(None)
            continue
        value, is_batched = next(pairs)
        result.append(finish(value, is_batched, n))
    return result


def one_hot_seeds(target: Any) -> OneHot:
    """Row j is the one-hot output gradient selecting target element j."""
    return OneHot(target.shape.num_elements(), target.shape.as_list(), target.dtype)


def column_seeds(target: Any, batch: int, inner: int) -> Any:
    """Seed j selects element j of every example: shape [inner] + target.shape."""
    seed = np.zeros((inner, batch, inner), dtype=target.dtype.as_numpy_dtype)
    seed[np.arange(inner), :, np.arange(inner)] = 1
    return constant(seed.reshape([inner] + target.shape.as_list()))
