"""1-D int tensors of Python ints (x[t]'s begin, end and strides; a reshape's shape),
converted once per thread when eager.

A loop body slices and reshapes with the same few ints every step; an eager int tensor
is immutable (its array is made read-only), so each thread keeps the tensor of each
list of ints it converted, {(dtype, *ints): tensor}, at most MAX_CACHED_INT_VECTORS."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ..constant_op import constant

_state = context.state
MAX_CACHED_INT_VECTORS = 4096


class _IntVectors(context.OwnedThreadState):
    """This thread's eager int vectors by (dtype, *ints)."""

    def __init__(self) -> None:
        self.by_key: dict = {}


_int_vectors = context.owned_state(_IntVectors)


def only_ints(values: Sequence[Any]) -> bool:
    """True when every value is a Python int (not a bool, not a NumPy integer)."""
    for v in values:   # (a loop: a generator's frame costs more on x[t]'s one value)
        if type(v) is not int:
            return False
    return True


def int_vector(values: Sequence[int], dtype: dtypes.DType) -> Any:
    """Non-empty Python ints (`only_ints`) as a 1-D tensor of `dtype` (int64 when one is
    beyond int32, as TF converts such a list; ValueError beyond int64), checked by min
    and max. Eagerly the same read-only tensor each time on this thread."""
    eager = _state.graph is None
    if eager:
        key = (dtype, *values)
        cached = _int_vectors.by_key.get(key)
        if cached is not None:
            return cached
    low, high = min(values), max(values)
    if low < -2**63 or high >= 2**63:
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    if dtype is dtypes.int32 and (low < -2**31 or high >= 2**31):
        dtype = dtypes.int64
    array = np.array(values, dtype=dtype.as_numpy_dtype)
    if not eager:
        return constant(array)
    array.flags.writeable = False
    vector = EagerTensor(array)
    if len(_int_vectors.by_key) < MAX_CACHED_INT_VECTORS:
        _int_vectors.by_key[key] = vector
    return vector
