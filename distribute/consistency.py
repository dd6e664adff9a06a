"""A check that replicas never diverge: every mirrored variable hashed on every replica."""
from __future__ import annotations

import hashlib
from typing import Any, List, Sequence

import numpy as np

from ..framework.errors import InternalError
from .mirrored_variable import MirroredVariable
from .strategy import get_strategy


def variable_digest(value: Any) -> np.ndarray:
    """SHA-256 of a value's dtype, shape and bytes, as 32 uint8."""
    array = np.ascontiguousarray(np.asarray(value))
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(array.tobytes())
    return np.frombuffer(digest.digest(), np.uint8)


def assert_replicas_in_sync(variables: Sequence[Any], strategy: Any = None) -> List[str]:
    """Raises InternalError naming each variable whose replicas hold different bits.

    Thread replicas: compares each MirroredVariable's copies. MPI: all-gathers the
    digests (a collective: every rank must call it). Returns the hex digests."""
    strategy = strategy or get_strategy()
    per_variable: List[Any] = []
    for variable in variables:
        if isinstance(variable, MirroredVariable):
            per_variable.append(np.stack([variable_digest(v) for v in variable.values]))
        else:
            per_variable.append(None)
    local = np.stack([variable_digest(np.asarray(v)) for v in variables]) if variables \
        else np.zeros((0, 32), np.uint8)
    if strategy.num_replicas_in_sync > 1 and not any(d is not None for d in per_variable):
        gathered = strategy.engine.all_gather(local)
        per_variable = [np.stack([rows[i] for rows in gathered]) for i in range(len(variables))]
    diverged = [f"{getattr(v, 'name', i)}" for i, (v, d) in enumerate(
                zip(variables, per_variable, strict=True))
                if d is not None and not np.all(d == d[0])]
    if diverged:
        raise InternalError(None, None, "Replicas diverged: these variables differ between "
                            f"replicas: {diverged}")
    return [bytes(row).hex() for row in local]
