"""Op-table rows for dg.distribute's collectives, run under the default (one-replica)
strategy, where an all-reduce or a broadcast returns its inputs; distribute/test_distribute.py and
test_distribute_mpi.py check them with 2 to 4 replicas."""
from __future__ import annotations

import numpy as np

import duograd as dg
from duograd.distribute.collective_ops import broadcast_tensors
from .spec import OpSpec, inputs, normal


def _all_reduce(reduce_op):
    def fn(x, y):
        return dg.distribute.get_replica_context().all_reduce(reduce_op, [x * y, dg.sin(x)])
    return fn


def _broadcast(x, y):
    """What MultiWorkerMirroredStrategy.scope() wraps initial values in."""
    return broadcast_tensors([x, y], dg.distribute.get_strategy().engine, root=0)


def _plus_replica_id(x):
    """Under the default strategy the replica id is 0."""
    return x + dg.cast(dg.distribute.get_replica_context().replica_id_in_sync_group, x.dtype)


ROWS = [
    OpSpec("all_reduce_sum", _all_reduce("SUM"), lambda x, y: [x * y, np.sin(x)],
           inputs(normal(3, 2), normal(3, 2))),
    OpSpec("all_reduce_mean", _all_reduce(dg.distribute.ReduceOp.MEAN),
           lambda x, y: [x * y, np.sin(x)], inputs(normal(4), normal(4))),
    OpSpec("collective_broadcast", _broadcast, lambda x, y: [x, y],
           inputs(normal(2, 3), normal(2, 3, dtype=np.float32)), order=0),
    OpSpec("replica_id_in_sync_group", _plus_replica_id, lambda x: x, inputs(normal(3))),
]
