"""Checks before allocating a tensor of a requested shape (TF's runtime errors).

TF rejects a shape with more than 2**63 - 1 elements (InvalidArgumentError) and
fails an allocation larger than memory with ResourceExhaustedError ("OOM when
allocating tensor"). NumPy would raise MemoryError or ValueError instead, or, for a
size the OS overcommits, start filling pages until the process is killed: kernels
that allocate a tensor of a caller-given shape check it here first.
"""
from __future__ import annotations

import functools
import os
from typing import Any, Sequence

import numpy as np

from .errors import InvalidArgumentError, ResourceExhaustedError

MAX_ELEMENTS = 2**63 - 1
# Fewer elements than this fit in memory at any dtype's size (at most 16 bytes):
# 16 MiB, below any machine duograd runs on.
SMALL_ELEMENTS = 2**20


@functools.lru_cache(maxsize=1)
def physical_memory() -> int:
    """Bytes of physical memory (a large bound where the OS does not say); asked once
    per process (two sysconf calls cost ~4 us, and loop bodies allocate often)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 2**46


def check_allocation(op_type: str, dims: Sequence[Any], dtype: Any) -> None:
    """InvalidArgumentError for more than 2**63 - 1 elements, ResourceExhaustedError for
    more bytes than physical memory; `dims` are non-negative ints (Python or NumPy)."""
    count = 1
    for d in dims:
        count *= int(d)   # Python ints: no overflow
    if count <= SMALL_ELEMENTS:
        return  # the common case, decided without the dtype or the memory size
    shape = ",".join(str(int(d)) for d in dims)
    if count > MAX_ELEMENTS:
        raise InvalidArgumentError(None, None, f"{op_type}: Shape [{shape}] would have more "
                                   "than 2**63 - 1 elements")
    np_dtype = np.dtype(getattr(dtype, "as_numpy_dtype", dtype))
    if count * max(np_dtype.itemsize, 1) > physical_memory():
        name = getattr(dtype, "name", np_dtype.name)
        raise ResourceExhaustedError(None, None, f"{op_type}: OOM when allocating tensor with "
                                     f"shape[{shape}] and type {name}")
