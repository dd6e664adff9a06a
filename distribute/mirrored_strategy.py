"""MirroredStrategy: synchronous data parallelism with the replicas as threads.

`run(fn)` starts one thread per replica; each runs `fn` on its slice of the
per-replica arguments, inside its replica context, and meets the others in
the thread engine's collectives. If a replica raises, the group is aborted
so the others stop at their next collective (UnavailableError) instead of
waiting; `run` then raises the first replica's error.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..eager import context
from ..framework import nest
from ..framework.errors import UnimplementedError
from ..ops.constant_op import convert_to_tensor
from .engine import DEFAULT_TIMEOUT_SECONDS, finish_reduce, sum_in_order
from .mirrored_graph import reduce_in_graph, run_in_graph
from .mirrored_variable import MirroredVariable
from .reduce_op import ReduceOp
from .replica_context import ReplicaContext
from .replica_threads import run_replicas
from .strategy import Strategy
from .thread_engine import ThreadEngine
from .values import regroup, select_replica


class MirroredStrategy(Strategy):
    """One replica per entry of `devices` (all on this CPU: the names only count replicas)."""

    def __init__(self, devices: Optional[Sequence[str]] = None, cross_device_ops: Any = None,
                 communication_options: Any = None) -> None:
        devices = list(devices) if devices is not None else ["/cpu:0"]
        if len(set(devices)) != len(devices):
            raise ValueError(f"No duplicates allowed in `devices` argument: {devices}")
        timeout = getattr(communication_options, "timeout_seconds", None)
        super().__init__(ThreadEngine(len(devices), timeout or DEFAULT_TIMEOUT_SECONDS))

    @property
    def local_replica_ids(self) -> list:
        return list(range(self.num_replicas_in_sync))

    def _create_variable(self, next_creator: Callable, **kwargs: Any) -> Any:
        if context.current_graph() is not None:
            return next_creator(**kwargs)  # a graph's variables live in each replica's Session
        return MirroredVariable(engine=self.engine, **kwargs)

    def run(self, fn: Callable, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        """Calls `fn` once per replica, concurrently; returns PerReplica results."""
        if context.current_graph() is not None:
            if self.num_replicas_in_sync == 1:  # one replica: fn is traced into the graph
                with ReplicaContext(self, 0):
                    return fn(*args, **(kwargs or {}))
            if not getattr(context.current_graph(), "building_function", False):
                raise UnimplementedError(
                    None, None, "MirroredStrategy.run with several replicas in a TF1 graph: "
                    "its replicas are threads; call it inside a dg.function (or eagerly).")
            return run_in_graph(self, fn, args, kwargs or {})
        kwargs = kwargs or {}

        def replica_step(replica: int) -> Any:
            with ReplicaContext(self, replica):
                return fn(*select_replica(replica, args), **select_replica(replica, kwargs))
        return regroup(run_replicas(self.num_replicas_in_sync, self.engine, self,
                                    replica_step))

    def _cross_replica(self, reduce_op: ReduceOp, local_values: list) -> Any:
        """Sums the replicas' values in replica order (MEAN divides by the count)."""
        if len(local_values) == 1 and context.current_graph() is not None:
            return local_values[0]  # one replica, in a graph: SUM and MEAN are the value
        if context.current_graph() is not None:
            return reduce_in_graph(reduce_op, local_values)
        flats = [[np.asarray(convert_to_tensor(v)) for v in nest.flatten(value)]
                 for value in local_values]
        reduced = [finish_reduce(sum_in_order(list(column)), reduce_op, len(flats))
                   for column in zip(*flats, strict=True)]
        return nest.pack_sequence_as(local_values[0], [convert_to_tensor(r) for r in reduced])

    def _num_input_pipelines(self) -> int:
        return 1

    def _input_pipeline_id(self) -> int:
        return 0
