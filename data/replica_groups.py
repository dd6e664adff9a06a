"""Consecutive elements grouped for the replicas of one process: what
`distribute_datasets_from_function` gives a MirroredStrategy with several replicas
inside dg.function (consecutive batches of the pipeline to consecutive replicas,
as TF's MirroredStrategy does; when the pipeline ends part-way through a step, the
remaining replicas get empty batches of the same structure, TF 2.21's [[8, 9], [ ]])."""
from __future__ import annotations

from typing import Any, Iterator, List

from . import structure
from .dataset import Dataset, ErrorElement, IterationContext


def _any_batch(spec: Any) -> Any:
    dims = spec.shape.dims
    if not dims:
        raise ValueError("distribute_datasets_from_function: a replica's element must be a "
                         f"batch (rank >= 1), got {spec!r}")
    return type(spec)([None] + list(dims[1:]), spec.dtype)


class ReplicaGroupDataset(Dataset):
    """Elements: tuples of `replicas` consecutive elements of `source` (each with an
    unknown batch dimension), the last one padded with empty batches."""

    def __init__(self, source: Dataset, replicas: int) -> None:
        one = structure.map_specs(_any_batch, source.element_spec)
        self._replicas = replicas
        super().__init__(tuple([one] * replicas), (source,))

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        upstream = self._inputs[0].elements(ctx)
        while True:
            group: List[tuple] = []
            for element in upstream:
                if type(element) is ErrorElement:   # that step's result
                    group = []
                    yield element
                    break
                group.append(element)
                if len(group) == self._replicas:
                    break
            else:
                if not group:
                    return
            if not group:
                continue
            while len(group) < self._replicas:
                group.append(tuple(part[:0] for part in group[0]))
            yield tuple(part for element in group for part in element)


__all__ = ["ReplicaGroupDataset"]
