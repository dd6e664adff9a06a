"""MirroredVariable: a variable with one value per replica thread (MirroredStrategy).

It is one dg.Variable (one handle, so tapes and functions treat it as usual)
whose eager value is looked up by the calling thread's replica: replica i
reads and updates copy i. Outside `strategy.run` (cross-replica context) a
read sees replica 0's copy and an assignment sets every copy, as in TF.
"""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..ops.state.variables import Variable


class MirroredVariable(Variable):
    """A variable mirrored over the replicas of a thread engine."""

    def __init__(self, *args: Any, engine: Any = None, **kwargs: Any) -> None:
        if engine is not None:  # (a re-entrant __init__ keeps the binding)
            self._engine = engine
            self._copies: List[Optional[np.ndarray]] = [None] * engine.num_replicas
        super().__init__(*args, **kwargs)

    @property
    def _value(self) -> Any:
        replica = self._engine.bound_replica()
        return self._copies[0 if replica is None else replica]

    @_value.setter
    def _value(self, value: np.ndarray) -> None:
        replica = self._engine.bound_replica()
        if replica is None:
            self._copies = [value] * len(self._copies)
        else:
            self._copies[replica] = value

    @property
    def values(self) -> tuple:
        """Each replica's current value (NumPy arrays), in replica order."""
        return tuple(np.array(copy) for copy in self._copies)
