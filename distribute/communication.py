"""dg.distribute.experimental.CommunicationOptions: how collectives run."""
from __future__ import annotations

import enum
from typing import Optional


class CommunicationImplementation(enum.Enum):
    """TF's names; the MPI engine picks its algorithms itself (AUTO)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CommunicationOptions:
    """TF's options, plus `deterministic`.

    timeout_seconds: every collective raises DeadlineExceededError after this long
        (default: engine.DEFAULT_TIMEOUT_SECONDS; TF's default waits forever).
    deterministic: sum all contributions in rank order on every rank (an all-gather
        then a local sum), so results are the same bits for any number of replicas
        as a single process adding the replicas' values in order. MPI's own
        reduction is used otherwise (bit-identical to that for 2 replicas, since
        a + b == b + a exactly; its tree order may differ from 3 replicas on).
    """

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: Optional[float] = None,
                 implementation: CommunicationImplementation = CommunicationImplementation.AUTO,
                 deterministic: bool = False) -> None:
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}")
        if timeout_seconds is not None and timeout_seconds <= 0:
            raise ValueError(f"timeout_seconds must be positive, got {timeout_seconds}")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation
        self.deterministic = deterministic
