"""dg.distribute.ReduceOp: how values from the replicas are combined (TF's enum)."""
from __future__ import annotations

import enum
from typing import Any


class ReduceOp(enum.Enum):
    """SUM adds the replicas' values; MEAN adds them and divides by the replica count."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> "ReduceOp":
        """The ReduceOp for a VariableAggregation name ("sum" or "mean")."""
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name not in ("SUM", "MEAN"):
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} "
                             "to `tf.distribute.ReduceOp` type")
        return ReduceOp(name)


def as_reduce_op(value: Any) -> ReduceOp:
    """A ReduceOp from a ReduceOp or its name ("SUM", "MEAN"), as TF accepts both."""
    if isinstance(value, ReduceOp):
        return value
    if isinstance(value, str) and value.upper() in ("SUM", "MEAN"):
        return ReduceOp(value.upper())
    raise ValueError(f"{value!r} is not a valid ReduceOp (expected ReduceOp.SUM, "
                     "ReduceOp.MEAN, 'SUM' or 'MEAN')")
