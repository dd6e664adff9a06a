"""MultiWorkerMirroredStrategy: one replica per MPI process.

The process group comes from the launcher (`mpiexec`, `srun`, the
Kubernetes MPI operator) through MPI.COMM_WORLD; run alone, a script is a
group of one. Variables made in `scope()` start from rank 0's initial
values (a broadcast op wraps the initial value, so graph-mode initialisers
broadcast too); every rank then applies the same all-reduced updates.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..ops.constant_op import convert_to_tensor
from .collective_ops import broadcast_tensors
from .communication import CommunicationOptions
from .engine import DEFAULT_TIMEOUT_SECONDS
from .mpi_engine import MPIEngine
from .strategy import Strategy


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data parallelism over the processes of an MPI job."""

    def __init__(self, cluster_resolver: Any = None,
                 communication_options: Optional[CommunicationOptions] = None) -> None:
        options = communication_options or CommunicationOptions()
        super().__init__(MPIEngine(options.timeout_seconds or DEFAULT_TIMEOUT_SECONDS,
                                   deterministic=options.deterministic))
        self._options = options

    @property
    def rank(self) -> int:
        """This process's replica id (its MPI rank)."""
        return self.engine.replica_id()

    @property
    def is_chief(self) -> bool:
        """Rank 0 writes checkpoints and summaries; the others only read them."""
        return self.rank == 0

    def _create_variable(self, next_creator: Callable, **kwargs: Any) -> Any:
        initial = kwargs.get("initial_value")
        if callable(initial):
            initial = initial()
        dtype = kwargs.get("dtype")
        (kwargs["initial_value"],) = broadcast_tensors(
            [convert_to_tensor(initial, dtype=dtype)], self.engine, root=0)
        return next_creator(**kwargs)
