"""Distributed input: global NumPy batches split by replica, and InputContext.

A dataset here is any iterable of batches; a batch is a NumPy array (or a
tensor, or a nest of them) whose first dimension is the batch. A global
batch of size B is cut into consecutive per-replica shards of ceil(B / N)
examples (the last ones shorter, possibly empty), the split TF's rebatching
makes (recorded from TF 2.21: 5 examples on 4 replicas give 2, 2, 1, 0).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, List

import numpy as np

from ..eager.context import current_graph
from ..framework import nest
from ..ops.constant_op import convert_to_tensor
from .values import regroup


class InputContext:
    """What an input function needs to shard its input (TF's tf.distribute.InputContext)."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1) -> None:
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """global_batch_size / num_replicas_in_sync; ValueError when it does not divide."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self) -> str:
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")

    __repr__ = __str__


def shard_batch(batch: Any, num_replicas: int) -> List[Any]:
    """The per-replica shards of one global batch (a nest of arrays), TF's split."""
    leaves = [np.asarray(leaf) for leaf in nest.flatten(batch)]
    if not leaves:
        return [batch] * num_replicas
    sizes = {leaf.shape[0] if leaf.ndim else -1 for leaf in leaves}
    if -1 in sizes or len(sizes) != 1:
        raise ValueError("Each element of a distributed dataset must be a batch: every "
                         f"component needs the same first (batch) dimension, got shapes "
                         f"{[leaf.shape for leaf in leaves]}")
    size = leaves[0].shape[0]  # the one batch size (checked above)
    per_replica = -(-size // num_replicas)
    shards = []
    for replica in range(num_replicas):
        start = min(replica * per_replica, size)
        stop = min(start + per_replica, size)
        shards.append(nest.pack_sequence_as(batch, [leaf[start:stop] for leaf in leaves])
                      if nest.is_nested(batch) else leaves[0][start:stop])
    return shards


def _unknown_batch(spec: Any) -> Any:
    dims = spec.shape.dims
    if not dims:
        return spec
    return type(spec)([None] + list(dims[1:]), spec.dtype)


def _empty_like(leaf: Any) -> Any:
    empty = np.asarray(leaf)[:0]
    return convert_to_tensor(empty) if hasattr(leaf, "numpy") else empty


def _graph_shards(batch: Any, num_replicas: int, local: List[int]) -> tuple:
    """The local replicas' shards of one global batch of graph tensors: `shard_batch`'s
    split (ceil(B / N) examples each, the last ones shorter) with tensor ops, so the
    batch size may be known only when the graph runs."""
    from ..ops.array.array_ops import shape
    from ..ops.math.math_ops import minimum
    leaves = nest.flatten(batch)
    size = shape(leaves[0], out_type="int64")[0]
    per_replica = (size + (num_replicas - 1)) // num_replicas
    shards = []
    for replica in local:
        start = minimum(per_replica * replica, size)
        stop = minimum(start + per_replica, size)
        shards.append(nest.pack_sequence_as(batch, [leaf[start:stop] for leaf in leaves]))
    return tuple(shards)


class _ReplicaGraphIterator:
    """A graph iterator whose elements (tuples of the local replicas' shards) come
    out regrouped: a nest of PerReplica, or the shard itself with one replica."""

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator

    def has_next(self) -> Any:
        return self._iterator.has_next()

    def fetched(self) -> Any:
        return regroup(list(self._iterator.fetched()))

    def get_next(self, name: Any = None) -> Any:
        return regroup(list(self._iterator.get_next()))


class DistributedDataset:
    """Iterates a dataset's global batches, giving each replica its shard.

    `local_replicas` are the replica ids this process feeds: all of them for
    MirroredStrategy (the items are nests of PerReplica), only its own rank for MPI
    (the items are that rank's shard)."""

    def __init__(self, dataset: Iterable[Any], num_replicas: int,
                 local_replicas: List[int]) -> None:
        self._dataset = dataset
        self._num_replicas = num_replicas
        self._local = local_replicas

    @property
    def element_spec(self) -> Any:
        """A dg.data dataset's spec with the batch dimension unknown (a replica's share)."""
        spec = getattr(self._dataset, "element_spec", None)
        if spec is None:
            raise AttributeError("element_spec is known for a dg.data.Dataset input only")
        return nest.map_structure(_unknown_batch, spec)

    def graph_iterator(self) -> Any:
        """AutoGraph's `for batch in dist_dataset:` inside dg.function: a loop over the
        dataset's iterator ops, each global batch split into this process's replicas'
        shards in the graph (as TF's distributed iterator inside tf.function)."""
        graph_iterator = getattr(self._dataset, "graph_iterator", None)
        if graph_iterator is None:
            raise RuntimeError("Only a dg.data.Dataset input can be iterated inside "
                               "dg.function; loop over this input eagerly.")
        spec_is_tuple = type(self._dataset.element_spec) is tuple  # type: ignore[attr-defined]
        num_replicas, local = self._num_replicas, self._local

        def split(*parts: Any) -> tuple:
            return _graph_shards(parts if spec_is_tuple else parts[0], num_replicas, local)

        sharded = self._dataset.map(split)  # type: ignore[attr-defined]
        return _ReplicaGraphIterator(sharded.graph_iterator())

    def __iter__(self) -> Iterator[Any]:
        if getattr(current_graph(), "building_function", False):
            # a Python loop in a traced function would bake the data into the graph
            raise RuntimeError("A distributed dataset is iterated eagerly in duograd, or "
                               "by AutoGraph's loop inside dg.function (autograph=True): "
                               "loop over it outside dg.function, or let AutoGraph convert "
                               "the loop.")
        # a dg.data.Dataset's shards are tensors (as TF's); other iterables keep theirs
        as_tensors = hasattr(self._dataset, "element_spec")
        for batch in self._dataset:
            shards = shard_batch(batch, self._num_replicas)
            local = [shards[i] for i in self._local]
            if as_tensors:
                local = [nest.map_structure(convert_to_tensor, shard) for shard in local]
            yield regroup(local)  # a nest of PerReplica, as TF's distributed iterators


class DatasetsFromFunction:
    """Per-replica batches from `dataset_fn(input_context)` (one pipeline per process).

    With several replicas in one process (threads), consecutive batches of the
    pipeline go to consecutive replicas, as TF's MirroredStrategy does."""

    def __init__(self, dataset_fn: Callable[[InputContext], Iterable[Any]],
                 input_context: InputContext, local_replicas: int) -> None:
        self._dataset = dataset_fn(input_context)
        self._local = local_replicas

    def graph_iterator(self) -> Any:
        """AutoGraph's `for batch in datasets:` inside dg.function: a loop over the
        pipeline's iterator ops; with several replicas in one process, each step's
        consecutive batches go to consecutive replicas (data/replica_groups.py)."""
        graph_iterator = getattr(self._dataset, "graph_iterator", None)
        if graph_iterator is None:
            raise RuntimeError("distribute_datasets_from_function's datasets are iterated "
                               "inside dg.function when they are dg.data.Datasets: loop "
                               "over other iterables eagerly.")
        if self._local == 1:
            return graph_iterator()
        from ..data.replica_groups import ReplicaGroupDataset
        grouped = ReplicaGroupDataset(self._dataset, self._local)  # type: ignore[arg-type]
        return _ReplicaGraphIterator(grouped.graph_iterator())

    def __iter__(self) -> Iterator[Any]:
        iterator = iter(self._dataset)
        while True:
            batches = []
            for _ in range(self._local):
                try:
                    batches.append(next(iterator))
                except StopIteration:
                    break
            if not batches:
                return
            # the pipeline ran out part-way through a step: the remaining replicas get
            # empty batches of the same structure (TF 2.21: [[8, 9], []])
            while len(batches) < self._local:
                batches.append(nest.map_structure(_empty_like, batches[0]))
            yield regroup(batches)
