"""foldl and foldr (tf.foldl, tf.foldr): the last accumulator of scan, so they are
differentiable in both modes through the same while_loop."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ...framework import nest
from .functional_ops import scan


def foldl(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """fn(...fn(fn(initializer, x0), x1)...): the last accumulator, left to right (x0 is
    the initializer when there is none)."""
    stacked = scan(fn, elems, initializer, parallel_iterations=parallel_iterations, name=name)
    return nest.map_structure(lambda t: t[-1], stacked)


def foldr(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """As foldl, right to left."""
    stacked = scan(fn, elems, initializer, parallel_iterations=parallel_iterations,
                   reverse=True, name=name)
    return nest.map_structure(lambda t: t[0], stacked)


__all__ = ["foldl", "foldr"]
