"""meshgrid: coordinate grids from 1-D tensors, composed of reshape and broadcast_to."""
from __future__ import annotations

from typing import Any, List

from . import array_ops
from ..constant_op import convert_to_tensor
from .join_ops import stack


def meshgrid(*args: Any, **kwargs: Any) -> List[Any]:
    """N grids of shape (len(args[1]), len(args[0]), ...) for indexing='xy' (the default),
    or (len(args[0]), len(args[1]), ...) for 'ij'; each input is flattened first."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing parameter must be either 'xy' or 'ij', got {indexing!r}")
    vectors = [array_ops.reshape(convert_to_tensor(a), [-1]) for a in args]
    if not vectors:
        return []
    n = len(vectors)
    sizes = [array_ops.size(v) for v in vectors]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    shape = stack(sizes)
    grids = []
    for i, v in enumerate(vectors):
        position = i
        if indexing == "xy" and n > 1 and i < 2:
            position = 1 - i
        view = [1] * n
        view[position] = -1
        grids.append(array_ops.broadcast_to(array_ops.reshape(v, view), shape))
    return grids


__all__ = ["meshgrid"]
