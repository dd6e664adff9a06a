"""Clipping by norm: clip_by_norm and clip_by_global_norm (composites, no op of their own)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ...framework.indexed_slices import IndexedSlices
from ..array.array_ops import identity, ones_like, where
from ..constant_op import convert_to_tensor
from .math_ops import cast, maximum, minimum, sqrt
from .reduction_ops import add_n, reduce_sum


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Optional[str] = None):
    """`t * clip_norm / max(l2norm(t, axes), clip_norm)`: rescaled so that its L2 norm over
    `axes` is at most `clip_norm` (unchanged when already within; zero stays zero)."""
    if isinstance(t, IndexedSlices):
        values = clip_by_norm(t.values, clip_norm, axes, name)
        return IndexedSlices(values, t.indices, t.dense_shape)
    t = convert_to_tensor(t)
    # A negative clip_norm counts as zero (TF's rule): everything is clipped to 0.
    if isinstance(clip_norm, (int, float, np.integer, np.floating)) and \
            not isinstance(clip_norm, bool):
        clip_norm = convert_to_tensor(max(clip_norm, 0), dtype=t.dtype)
    else:
        clip_norm = cast(maximum(convert_to_tensor(clip_norm, dtype_hint=t.dtype), 0), t.dtype)
    l2sum = reduce_sum(t * t, axes, keepdims=True)
    positive = l2sum > 0
    # sqrt only where positive, so that the gradient at t = 0 is finite (TF's double where).
    l2norm = where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)
    intermediate = t * clip_norm
    if not t.shape.is_compatible_with(intermediate.shape):
        raise ValueError(f"clip_by_norm: clip_norm of shape {clip_norm.shape} broadcasts the "
                         f"input of shape {t.shape} to {intermediate.shape}")
    return identity(intermediate / maximum(l2norm, clip_norm), name=name)


def global_norm(t_list: Sequence[Any], name: Optional[str] = None):
    """sqrt of the sum of squares of every entry of every tensor (None entries skipped)."""
    squares = []
    for t in t_list:
        if t is None:
            continue
        values = t.values if isinstance(t, IndexedSlices) else convert_to_tensor(t)
        squares.append(reduce_sum(values * values))
    if not squares:
        raise ValueError("global_norm needs at least one tensor")
    return sqrt(add_n(squares), name=name)


def clip_by_global_norm(t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None,
                        name: Optional[str] = None) -> Tuple[List[Any], Any]:
    """Every tensor scaled by clip_norm / max(global_norm, clip_norm); returns
    (clipped list, global norm). None stays None; IndexedSlices stay IndexedSlices; an
    infinite or NaN norm makes every entry NaN, as in TensorFlow."""
    if isinstance(t_list, (str, bytes)) or not isinstance(t_list, (list, tuple)):
        raise TypeError("`t_list` should be a sequence of tensors")
    t_list = list(t_list)
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    clip_norm = cast(convert_to_tensor(clip_norm, dtype_hint=norm.dtype), norm.dtype)
    scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm) + (norm - norm)
    clipped: List[Any] = []
    for t in t_list:
        if t is None:
            clipped.append(None)
        elif isinstance(t, IndexedSlices):
            clipped.append(IndexedSlices(identity(t.values * cast(scale, t.values.dtype)),
                                         t.indices, t.dense_shape))
        else:
            t = convert_to_tensor(t)
            clipped.append(identity(t * cast(scale, t.dtype)))
    return clipped, norm


__all__ = ["clip_by_norm", "clip_by_global_norm", "global_norm"]
