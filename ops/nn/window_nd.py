"""Windows over any number of spatial dims, for the 3-D, depthwise and argmax conv/pool ops:
a strided view of every (dilated) window of a padded [N, S1..Sn, C] array, and its
adjoint, which sums per-offset window contributions back onto the input. TF's padding rule
(window_geometry) is the 2-D ops' (ops/nn/conv_ops.py)."""
from __future__ import annotations

import itertools
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

from .conv_ops import window_geometry

_as_strided = np.lib.stride_tricks.as_strided


def geometry(shape: Sequence[int], ksize: Sequence[int], strides: Sequence[int],
             dilations: Sequence[int], padding: str) -> List[Tuple[int, int, int]]:
    """(out, pad before, pad after) per spatial dim; ksize/strides/dilations are spatial."""
    out = []
    for size, k, s, d in zip(shape, ksize, strides, dilations, strict=True):
        o, before, after = window_geometry(size, k, s, d, padding)
        if o is None:  # sizes are known in a kernel
            raise ValueError(f"window geometry needs known sizes, got {size} and {k}")
        out.append((int(o), before, after))
    return out


def patches(x: np.ndarray, ksize: Sequence[int], strides: Sequence[int],
            dilations: Sequence[int], padding: str, pad_value: Any = 0) -> np.ndarray:
    """A read-only view [N, O1..On, K1..Kn, C] of every window of x [N, S1..Sn, C]."""
    n = x.ndim - 2
    geo = geometry(x.shape[1:1 + n], ksize, strides, dilations, padding)
    pads = [(0, 0)] + [(b, a) for _, b, a in geo] + [(0, 0)]
    if any(b or a for b, a in pads):
        x = np.pad(x, pads, constant_values=pad_value)
    x = np.ascontiguousarray(x)
    st = x.strides
    shape = (x.shape[0],) + tuple(o for o, _, _ in geo) + tuple(ksize) + (x.shape[-1],)
    steps = (st[0],) + tuple(st[1 + i] * strides[i] for i in range(n)) + \
        tuple(st[1 + i] * dilations[i] for i in range(n)) + (st[-1],)
    return _as_strided(x, shape, steps, writeable=False)


def scatter(tap: Callable[[Tuple[int, ...]], np.ndarray], input_shape: Sequence[int],
            ksize: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
            padding: str, dtype: Any) -> np.ndarray:
    """The adjoint of `patches`: tap(offset) ([N, O1..On, C], every window's part at that
    filter offset) summed back onto an array of `input_shape`."""
    n = len(input_shape) - 2
    geo = geometry(input_shape[1:1 + n], ksize, strides, dilations, padding)
    padded = np.zeros((input_shape[0],) + tuple(s + b + a for s, (_, b, a) in
                                                zip(input_shape[1:1 + n], geo, strict=True))
                      + (input_shape[-1],), dtype)
    if all(o for o, _, _ in geo):
        for offset in itertools.product(*[range(k) for k in ksize]):
            index = [slice(None)]
            for i, (o, _, _) in enumerate(geo):
                start = offset[i] * dilations[i]
                index.append(slice(start, start + (o - 1) * strides[i] + 1, strides[i]))
            padded[tuple(index)] += tap(offset)
    crop = [slice(None)] + [slice(b, b + s) for s, (_, b, _) in
                            zip(input_shape[1:1 + n], geo, strict=True)] + [slice(None)]
    return np.ascontiguousarray(padded[tuple(crop)])


def out_shape(shape: Sequence[Any], ksize: Sequence[Any], strides: Sequence[int],
              dilations: Sequence[int], padding: str) -> List[Any]:
    """Static output sizes of the spatial dims (None where unknown)."""
    return [window_geometry(s, k, st, d, padding)[0]
            for s, k, st, d in zip(shape, ksize, strides, dilations, strict=True)]
