"""Vectorized Jacobians of a tape: the backward pass traced once as a function
of its output gradient, then converted by pfor and run on all one-hot seeds.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from ..framework.func_graph import FuncGraph, tracing
from ..ops.constant_op import constant
from ..ops.pfor import Converter, OneHot, densified, finish
from . import context
from .imperative_grad import imperative_grad

_state = context.state


def vectorized_backward(producers: dict, target: Any, source_ids: Sequence[int],
                        seeds: Any, n: int) -> List[Optional[Any]]:
    """For each source, the gradients of `target` for the n stacked output
    gradients `seeds` (a OneHot or a [n] + target.shape tensor), stacked: [n] +
    source.shape; None for a source the target does not depend on."""
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
