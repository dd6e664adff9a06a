"""dg.distribute: data-parallel training with TensorFlow's tf.distribute names.

- `MirroredStrategy`: replicas as threads of one process (thread engine);
- `MultiWorkerMirroredStrategy`: one replica per MPI process (mpi4py, imported
  only when such a strategy is made: `pip install duograd[mpi]`);
- the default one-replica strategy (`get_strategy()` outside any scope).

Collectives (`get_replica_context().all_reduce`) are ops, so they run eagerly,
in a Session and inside `dg.function`, and they are differentiable.
"""
from __future__ import annotations

import types

from . import collective_grad  # noqa: F401 (registers the gradients of the collectives)
from .communication import CommunicationImplementation, CommunicationOptions
from .consistency import assert_replicas_in_sync
from .input_lib import InputContext
from .mirrored_strategy import MirroredStrategy
from .mirrored_variable import MirroredVariable
from .multi_worker_strategy import MultiWorkerMirroredStrategy
from .reduce_op import ReduceOp
from .replica_context import ReplicaContext
from .strategy import (Strategy, get_replica_context, get_strategy, has_strategy,
                       in_cross_replica_context)
from .values import PerReplica

experimental = types.SimpleNamespace(
    CommunicationOptions=CommunicationOptions,
    CommunicationImplementation=CommunicationImplementation,
    assert_replicas_in_sync=assert_replicas_in_sync,
    __name__="duograd.distribute.experimental")

__all__ = ["MirroredStrategy", "MultiWorkerMirroredStrategy", "Strategy", "ReduceOp",
           "InputContext", "ReplicaContext", "PerReplica", "MirroredVariable",
           "get_strategy", "has_strategy", "in_cross_replica_context", "get_replica_context",
           "experimental"]


def __dir__() -> list:
    """The public names only (the implementation modules stay importable)."""
    return sorted(__all__)
