"""Which strategy is current, and in which replica the calling thread runs.

Per thread (like the execution context in eager/context.py): the stack of
strategies whose `scope()` is entered, and the stack of replica contexts
that `strategy.run` pushes. This module's `threading.local` is the only
state of dg.distribute; a replica thread of MirroredStrategy starts with
its strategy and replica context pushed.
"""
from __future__ import annotations

import threading
from typing import Any, List, Optional

from ..framework import nest
from ..framework.indexed_slices import IndexedSlices
from ..ops.array.indexed_slices_ops import densify
from .collective_ops import all_reduce_tensors, replica_id_tensor
from .reduce_op import as_reduce_op


class _DistributeState(threading.local):
    def __init__(self) -> None:
        self.strategies: List[Any] = []         # entered strategy.scope()s, innermost last
        self.replica_contexts: List[Any] = []   # strategy.run's replica contexts


state = _DistributeState()


class ReplicaContext:
    """The view of one replica while `strategy.run` calls the replica function."""

    def __init__(self, strategy: Any, replica_id_in_sync_group: int) -> None:
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self) -> Any:
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        """This replica's index, 0 .. num_replicas_in_sync - 1 (an int32 tensor, as TF).

        Eagerly the value; in a graph or dg.function an op that reads it when it runs."""
        return replica_id_tensor(self._strategy.engine)

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """Reduces `value` (a nest of tensors) across replicas with one fused collective.

        Every replica must call it with the same structure, shapes and dtypes.
        Differentiable: the gradient all-reduces the upstream gradients."""
        flat = [densify(v) if isinstance(v, IndexedSlices) else v for v in nest.flatten(value)]
        reduced = all_reduce_tensors(flat, as_reduce_op(reduce_op), self._strategy.engine)
        return nest.pack_sequence_as(value, reduced)

    def __enter__(self) -> "ReplicaContext":
        state.replica_contexts.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        state.replica_contexts.pop()

    def __repr__(self) -> str:
        return (f"<ReplicaContext replica {self._replica_id} of "
                f"{self.num_replicas_in_sync} ({type(self._strategy).__name__})>")


def current_strategy() -> Optional[Any]:
    """The strategy of the innermost scope() or replica context; None for the default."""
    if state.replica_contexts:
        return state.replica_contexts[-1].strategy
    return state.strategies[-1] if state.strategies else None


def current_replica_context() -> Optional[ReplicaContext]:
    return state.replica_contexts[-1] if state.replica_contexts else None
