"""tf.distribute.Strategy's interface, and the default one-replica strategy.

A strategy owns an engine (engine.py) and says how variables made in its
`scope()` are created, how `run` calls the replica function, and how values
are reduced across replicas. Strategies with one replica per process (the
default and MultiWorkerMirroredStrategy) share this class's `run`: the
process is the replica.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterable, Iterator, Optional

from ..framework import nest
from ..ops.array.array_ops import shape
from ..ops.constant_op import convert_to_tensor
from ..ops.math.math_ops import cast
from ..ops.math.reduction_ops import reduce_sum
from ..ops.state.variables import variable_creator_scope
from .collective_ops import all_reduce_tensors
from .engine import OneReplicaEngine
from .input_lib import DatasetsFromFunction, DistributedDataset, InputContext
from .reduce_op import ReduceOp, as_reduce_op
from .replica_context import ReplicaContext, current_strategy, state
from .values import PerReplica, select_replica


class Strategy:
    """Distributes a training step over `num_replicas_in_sync` replicas."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    @property
    def engine(self) -> Any:
        """The collective engine connecting the replicas (threads, MPI, or one replica)."""
        return self._engine

    @property
    def num_replicas_in_sync(self) -> int:
        return self._engine.num_replicas

    @property
    def local_replica_ids(self) -> list:
        """The replicas this process runs (one per process unless they are threads)."""
        return [self._engine.replica_id()]

    # -- scope ------------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self) -> Iterator["Strategy"]:
        """Makes this the current strategy; variables made inside are mirrored."""
        active = current_strategy()
        if active is not None and active is not self:
            raise ValueError("Mixing different tf.distribute.Strategy objects: "
                             f"{self!r} is not {active!r}")
        state.strategies.append(self)
        try:
            with variable_creator_scope(self._create_variable):
                yield self
        finally:
            state.strategies.pop()

    def _create_variable(self, next_creator: Callable, **kwargs: Any) -> Any:
        return next_creator(**kwargs)

    # -- running the replica function ------------------------------------------------------
    def run(self, fn: Callable, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        """Calls `fn(*args, **kwargs)` in this process's replica context."""
        with ReplicaContext(self, self._engine.replica_id()):
            return fn(*args, **(kwargs or {}))

    # -- reducing -----------------------------------------------------------------------
    def reduce(self, reduce_op: Any, value: Any, axis: Optional[int] = None) -> Any:
        """Reduces per-replica `value` across replicas (and along `axis` first, if given).

        MEAN with an axis is the mean over all replicas' examples along that axis,
        as in TF (the sum over replicas divided by the total length)."""
        reduce_op = as_reduce_op(reduce_op)
        local = [select_replica(i, value) for i in range(len(self.local_replica_ids))]
        if axis is None:
            return self._cross_replica(reduce_op, local)
        local = [convert_to_tensor(v) for v in local]
        sums = self._cross_replica(ReduceOp.SUM, [reduce_sum(v, axis=axis) for v in local])
        if reduce_op is ReduceOp.SUM:
            return sums
        counts = self._cross_replica(
            ReduceOp.SUM, [cast(shape(v)[axis], sums.dtype) for v in local])
        return sums / counts

    def _cross_replica(self, reduce_op: ReduceOp, local_values: list) -> Any:
        """One process's values (one per local replica) reduced over all replicas:
        the collective op, so this works eagerly and while building a graph."""
        (value,) = local_values
        reduced = all_reduce_tensors(nest.flatten(value), reduce_op, self._engine)
        return nest.pack_sequence_as(value, reduced)

    def experimental_local_results(self, value: Any) -> tuple:
        """This process's per-replica components of `value`."""
        return value.values if isinstance(value, PerReplica) else (value,)

    # -- input ------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset: Iterable[Any],
                                        options: Any = None) -> DistributedDataset:
        """Each global batch of `dataset` cut into per-replica shards (see input_lib)."""
        return DistributedDataset(dataset, self.num_replicas_in_sync, self.local_replica_ids)

    def distribute_datasets_from_function(self, dataset_fn: Callable[[InputContext], Any],
                                          options: Any = None) -> DatasetsFromFunction:
        """`dataset_fn(InputContext)` per process, yielding per-replica batches."""
        context = InputContext(num_input_pipelines=self._num_input_pipelines(),
                               input_pipeline_id=self._input_pipeline_id(),
                               num_replicas_in_sync=self.num_replicas_in_sync)
        return DatasetsFromFunction(dataset_fn, context, len(self.local_replica_ids))

    def _num_input_pipelines(self) -> int:
        return self.num_replicas_in_sync

    def _input_pipeline_id(self) -> int:
        return self._engine.replica_id()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} with {self.num_replicas_in_sync} replica(s)>"


class DefaultStrategy(Strategy):
    """The strategy in effect when none is: one replica, collectives are the identity."""

    def __init__(self) -> None:
        super().__init__(OneReplicaEngine())


DEFAULT_STRATEGY = DefaultStrategy()


def get_strategy() -> Strategy:
    """The strategy of the innermost `scope()` (or replica context), else the default."""
    return current_strategy() or DEFAULT_STRATEGY


def has_strategy() -> bool:
    """True inside a non-default strategy's scope (or replica context)."""
    return current_strategy() is not None


def in_cross_replica_context() -> bool:
    """Inside a strategy's scope() but not inside its run()."""
    return bool(state.strategies) and not state.replica_contexts


def get_replica_context() -> Optional[ReplicaContext]:
    """The replica context inside `run`; None in cross-replica context; else the default's."""
    if state.replica_contexts:
        return state.replica_contexts[-1]
    if state.strategies:
        return None
    return ReplicaContext(DEFAULT_STRATEGY, 0)
