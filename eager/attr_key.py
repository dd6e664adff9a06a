"""The one key of an op's attrs, for the caches of traced gradients.

An adjoint program (eager/adjoint_programs.py) and a Jacobian plan or replayed
gradient (eager/jacobian_plans.py) are reused only for records whose attrs are
equal: the key holds every attr by value *and type* (1, 1.0 and True differ,
as a gradient function may branch on the type), in the order recorded
(another order is only a miss). Values that are not plain data (functions,
graphs, large arrays) cannot be keyed: `Unkeyable`, and the caller runs the
gradient as Python instead.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..framework.dtypes import DType
from ..framework.tensor_shape import TensorShape

# Array attrs up to this many elements are keyed by value.
MAX_KEYED_ELEMENTS = 64
_PLAIN = frozenset([bool, int, float, str, bytes, type(None)])


class Unkeyable(Exception):
    """An attr value that is not plain data (the message names its type)."""


def attrs_key(attrs: dict) -> Optional[tuple]:
    """A hashable key of `attrs` (None when there are none); Unkeyable for a value
    that is not plain data."""
    if not attrs:
        return None
    types = tuple(map(type, attrs.values()))
    if _PLAIN.issuperset(types):
        return (tuple(attrs.items()), types)
    return tuple([(name, _static(value)) for name, value in attrs.items()])


def _static(value: Any) -> Any:
    """A hashable, value-equal stand-in for one attr value."""
    if value is None or type(value) in _PLAIN:
        return (type(value), value)
    if isinstance(value, (list, tuple)):
        return (type(value), tuple([_static(v) for v in value]))
    if isinstance(value, (DType, TensorShape, np.dtype)):
        return (type(value), value)
    if isinstance(value, (np.ndarray, np.generic)) and value.size <= MAX_KEYED_ELEMENTS \
            and value.dtype.kind in "biufc":
        return (np.ndarray, value.shape, value.dtype, value.tobytes())
    raise Unkeyable(f"attr value {type(value).__name__}")
