"""The thread engine: the replicas of MirroredStrategy are threads of one process.

Every collective is a rendezvous: each replica deposits its contribution;
the last to arrive combines them (sums in replica order, so the result is
deterministic for any replica count) and wakes the others. A replica that
waits longer than `timeout_seconds` raises `DeadlineExceededError` and aborts
the group; from then on every collective raises `UnavailableError`, so a
replica that failed or skipped a collective never leaves the others hanging.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from ..framework.errors import DeadlineExceededError, InvalidArgumentError, UnavailableError
from .engine import (DEFAULT_TIMEOUT_SECONDS, check_same_layout, finish_reduce, fuse,
                     layout_of, sum_in_order, unfuse)
from .reduce_op import ReduceOp


class ThreadEngine:
    """`num_replicas` threads, each bound to a replica id with `bind_replica`."""

    def __init__(self, num_replicas: int,
                 timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.num_replicas = num_replicas
        self.timeout_seconds = timeout_seconds
        self._local = threading.local()
        self._cond = threading.Condition()
        self._slots: List[Any] = [None] * num_replicas
        self._arrived = 0
        self._generation = 0
        self._results: Dict[int, list] = {}  # generation -> [result, readers left]
        self._aborted: Optional[str] = None

    # -- replica identity ---------------------------------------------------------
    def bind_replica(self, replica_id: Optional[int]) -> None:
        """Marks the calling thread as replica `replica_id` (None: no replica)."""
        self._local.replica = replica_id

    def bound_replica(self) -> Optional[int]:
        """The calling thread's replica, or None outside the replica threads."""
        return getattr(self._local, "replica", None)

    def replica_id(self) -> int:
        replica = self.bound_replica()
        if replica is None:
            raise RuntimeError("A MirroredStrategy collective was called outside "
                               "strategy.run (in cross-replica context): call it from the "
                               "replica function, or use strategy.reduce.")
        return replica

    @property
    def aborted(self) -> Optional[str]:
        return self._aborted

    def abort(self, reason: str) -> None:
        """Fails every pending and future collective of this group with UnavailableError."""
        with self._cond:
            if self._aborted is None:
                self._aborted = reason
            self._cond.notify_all()

    # -- collectives ----------------------------------------------------------------
    def all_reduce(self, arrays: Sequence[np.ndarray], reduce_op: ReduceOp) -> List[np.ndarray]:
        arrays = [np.asarray(a) for a in arrays]
        n = self.num_replicas

        def combine(contributions: List[Any]) -> Any:
            check_same_layout([layout_of(c) for c in contributions], "all_reduce")
            fused = [fuse(c) for c in contributions]
            summed = {dtype: finish_reduce(sum_in_order([f[dtype] for f in fused]), reduce_op, n)
                      for dtype in fused[0]}
            return summed

        summed = self._exchange(f"all_reduce({reduce_op.value})", arrays, combine)
        # Keyed by the input dtype; an integer MEAN's buffer holds float64.
        return unfuse({dtype: buffer.copy() for dtype, buffer in summed.items()},
                      layout_of(arrays))

    def broadcast(self, arrays: Sequence[np.ndarray], root: int = 0) -> List[np.ndarray]:
        arrays = [np.asarray(a) for a in arrays]

        def combine(contributions: List[Any]) -> Any:
            check_same_layout([layout_of(c) for c in contributions], "broadcast")
            return contributions[root]

        return [np.array(a, copy=True) for a in self._exchange("broadcast", arrays, combine)]

    def all_gather(self, array: np.ndarray) -> List[np.ndarray]:
        array = np.asarray(array)
        gathered = self._exchange("all_gather", array, lambda contributions: list(contributions))
        return [np.array(a, copy=True) for a in gathered]

    def barrier(self) -> None:
        self._exchange("barrier", None, lambda contributions: None)

    def _exchange(self, kind: str, payload: Any, combine: Callable[[List[Any]], Any]) -> Any:
        """Deposits `payload`; when all replicas have, one combines; all get the result."""
        n = self.num_replicas
        if n == 1:  # a lone replica needs no rendezvous (nor a bound thread: dg.function)
            self._raise_if_aborted(kind)
            return combine([payload])
        replica = self.replica_id()
        with self._cond:
            self._raise_if_aborted(kind)
            generation = self._generation
            self._slots[replica] = (kind, payload)
            self._arrived += 1
            if self._arrived == n:
                slots, self._slots, self._arrived = self._slots, [None] * n, 0
                self._results[generation] = [_combined(kind, slots, combine), n]
                self._generation += 1
                self._cond.notify_all()
            else:
                deadline = time.monotonic() + self.timeout_seconds
                while self._generation == generation:
                    self._raise_if_aborted(kind)
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        missing = [i for i, s in enumerate(self._slots) if s is None]
                        message = (f"Collective {kind} timed out after {self.timeout_seconds} s "
                                   f"on replica {replica}: replicas {missing} did not join")
                        self._aborted = message
                        self._cond.notify_all()
                        raise DeadlineExceededError(None, None, message)
                    self._cond.wait(remaining)
            entry = self._results[generation]
            entry[1] -= 1
            if entry[1] == 0:
                del self._results[generation]
        result = entry[0]
        if isinstance(result, Exception):
            raise result
        return result

    def _raise_if_aborted(self, kind: str) -> None:
        if self._aborted is not None:
            raise UnavailableError(None, None, f"Collective {kind} cannot run: the collective "
                                   f"group was aborted ({self._aborted})")


def _combined(kind: str, slots: List[Any], combine: Callable[[List[Any]], Any]) -> Any:
    """combine(payloads), or the exception every replica should raise."""
    kinds = {slot[0] for slot in slots}
    if len(kinds) > 1:
        return InvalidArgumentError(None, None, "Replicas called different collectives at the "
                                    f"same step: {[slot[0] for slot in slots]}")
    try:
        return combine([slot[1] for slot in slots])
    except Exception as error:  # noqa: BLE001 - delivered to every replica
        return error
