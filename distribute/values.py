"""PerReplica: one value per replica, what MirroredStrategy's run and datasets return."""
from __future__ import annotations

from typing import Any, Sequence, Tuple

from ..framework import nest


class PerReplica:
    """A value that differs per replica; `values[i]` is replica i's (TF's PerReplica)."""

    def __init__(self, values: Sequence[Any]) -> None:
        self._values = tuple(values)

    @property
    def values(self) -> Tuple[Any, ...]:
        return self._values

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        body = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return "PerReplica:{\n" + body + "\n}"


def select_replica(replica_id: int, structure: Any) -> Any:
    """`structure` with every PerReplica leaf replaced by replica `replica_id`'s value."""
    return nest.map_structure(
        lambda v: v.values[replica_id] if isinstance(v, PerReplica) else v, structure)


def regroup(per_replica_results: Sequence[Any]) -> Any:
    """[structure of replica 0, structure of replica 1, ...] -> one structure of PerReplica.

    With a single replica the value itself comes back, as in TF."""
    if len(per_replica_results) == 1:
        return per_replica_results[0]
    first = per_replica_results[0]
    columns = zip(*[nest.flatten(r) for r in per_replica_results], strict=True)
    leaves = [PerReplica(column) for column in columns]
    return nest.pack_sequence_as(first, leaves) if nest.is_nested(first) else leaves[0]
