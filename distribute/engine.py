"""The one small interface every collective engine implements, and what they share.

An engine connects the replicas of one strategy. It offers four collectives,
each with a timeout (a replica that never arrives makes the others raise
`DeadlineExceededError` instead of hanging):

- `all_reduce(arrays, reduce_op)`: the arrays of one call are fused into one
  flat buffer per dtype, so a list of gradients costs one collective;
- `broadcast(arrays, root)`: the root replica's arrays to every replica;
- `all_gather(array)`: every replica's array, in replica order;
- `barrier()`.

`replica_id()` says which replica the calling thread is. Engines raise
`UnavailableError` once the group is aborted (a replica failed or timed out),
so a job fails fast rather than computing on with missing replicas.
"""
from __future__ import annotations

from typing import Dict, List, Protocol, Sequence, Tuple

import numpy as np

from ..framework.errors import InvalidArgumentError
from .reduce_op import ReduceOp

DEFAULT_TIMEOUT_SECONDS = 300.0


class Engine(Protocol):
    """What strategies and the collective op kernels need from a process group."""

    num_replicas: int
    timeout_seconds: float

    def replica_id(self) -> int: ...

    def all_reduce(self, arrays: Sequence[np.ndarray], reduce_op: ReduceOp) -> List[np.ndarray]:
        ...

    def broadcast(self, arrays: Sequence[np.ndarray], root: int = 0) -> List[np.ndarray]: ...

    def all_gather(self, array: np.ndarray) -> List[np.ndarray]: ...

    def barrier(self) -> None: ...


class OneReplicaEngine:
    """The default strategy's engine: one replica, every collective is the identity."""

    num_replicas = 1
    timeout_seconds = DEFAULT_TIMEOUT_SECONDS

    def replica_id(self) -> int:
        return 0

    def all_reduce(self, arrays: Sequence[np.ndarray], reduce_op: ReduceOp) -> List[np.ndarray]:
        return [finish_reduce(np.array(a), reduce_op, 1) for a in arrays]

    def broadcast(self, arrays: Sequence[np.ndarray], root: int = 0) -> List[np.ndarray]:
        return [np.array(a) for a in arrays]

    def all_gather(self, array: np.ndarray) -> List[np.ndarray]:
        return [np.array(array)]

    def barrier(self) -> None:
        return None


# -- fusing a list of arrays into one buffer per dtype, and back ---------------------
Layout = List[Tuple[np.dtype, Tuple[int, ...]]]


def layout_of(arrays: Sequence[np.ndarray]) -> Layout:
    return [(a.dtype, a.shape) for a in arrays]


def fuse(arrays: Sequence[np.ndarray]) -> Dict[np.dtype, np.ndarray]:
    """One contiguous 1-D buffer per dtype, holding that dtype's arrays in list order."""
    groups: Dict[np.dtype, List[np.ndarray]] = {}
    for array in arrays:
        groups.setdefault(array.dtype, []).append(array.reshape(-1))
    return {dtype: np.concatenate(parts) if len(parts) > 1 else parts[0].copy()
            for dtype, parts in groups.items()}


def unfuse(buffers: Dict[np.dtype, np.ndarray], layout: Layout) -> List[np.ndarray]:
    """The arrays of `layout` cut back out of the fused buffers (views, no copies)."""
    offsets = {dtype: 0 for dtype in buffers}
    out = []
    for dtype, shape in layout:
        size = int(np.prod(shape, dtype=np.int64))
        start = offsets[dtype]
        out.append(buffers[dtype][start:start + size].reshape(shape))
        offsets[dtype] = start + size
    return out


def finish_reduce(summed: np.ndarray, reduce_op: ReduceOp, num_replicas: int) -> np.ndarray:
    """MEAN divides the sum by the replica count (integers give floats, as TF's MEAN)."""
    if reduce_op is ReduceOp.SUM:
        return summed
    if summed.dtype.kind in "iub":
        return summed / np.float64(num_replicas)
    return summed / summed.dtype.type(num_replicas)


def sum_in_order(contributions: Sequence[np.ndarray]) -> np.ndarray:
    """((c0 + c1) + c2) + ...: the deterministic reduction, the same bits on every replica."""
    total = np.array(contributions[0], copy=True)
    for part in contributions[1:]:
        total += part
    return total


def check_same_layout(layouts: Sequence[Layout], what: str) -> None:
    """All replicas passed the same dtypes and shapes (else InvalidArgumentError)."""
    first = layouts[0]
    for replica, layout in enumerate(layouts[1:], start=1):
        if layout != first:
            raise InvalidArgumentError(
                None, None, f"{what}: replica {replica} passed {_describe(layout)} but replica "
                f"0 passed {_describe(first)}; every replica must pass the same shapes and "
                "dtypes in the same order")


def _describe(layout: Layout) -> str:
    return "[" + ", ".join(f"{np.dtype(d).name}{list(s)}" for d, s in layout) + "]"
