"""The collective ops: one fused all-reduce of a list of tensors, and a broadcast.

Their kernels call the strategy's engine (an attr), so the same op runs
eagerly, in a Session and inside `dg.function`: in every mode the replica
that runs the kernel joins the collective. They are stateful (they talk to
other replicas), so graphs never prune, merge or reorder them away.
"""
from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np

from ..framework import dtypes
from ..framework.op_def import declare_op
from ..framework.tensor_shape import TensorShape
from ..ops.constant_op import convert_to_tensor
from ..ops.dispatch import apply_op
from .reduce_op import ReduceOp, as_reduce_op


def _all_reduce_kernel(resources: Any, *arrays: np.ndarray, engine: Any,
                       reduce_op: str) -> List[np.ndarray]:
    return engine.all_reduce(list(arrays), ReduceOp(reduce_op))


def _all_reduce_infer(inputs: Sequence[Any], attrs: dict) -> list:
    mean = attrs["reduce_op"] == ReduceOp.MEAN.value
    return [(dtypes.float64 if mean and not (x.dtype.is_floating or x.dtype.is_complex)
             else x.dtype, x.shape) for x in inputs]


def _broadcast_kernel(resources: Any, *arrays: np.ndarray, engine: Any,
                      root: int) -> List[np.ndarray]:
    return engine.broadcast(list(arrays), root)


def _same_as_inputs(inputs: Sequence[Any], attrs: dict) -> list:
    return [(x.dtype, x.shape) for x in inputs]


def _replica_id_kernel(resources: Any, *, engine: Any) -> np.ndarray:
    return np.int32(engine.replica_id())


def _scalar_int32(inputs: Sequence[Any], attrs: dict) -> list:
    return [(dtypes.int32, TensorShape([]))]


# TF's collective ops are CollectiveReduceV2 / CollectiveBcastSendV2 (one tensor each);
# these take a list, fused into one buffer per dtype by the engine.
ALL_REDUCE = declare_op("CollectiveAllReduce", _all_reduce_kernel, _all_reduce_infer,
                        num_outputs=-1, stateful=True, grad_inputs=(), grad_outputs=())
# The replica id is read when the op runs, so one dg.function trace serves every replica.
REPLICA_ID = declare_op("ReplicaIdInSyncGroup", _replica_id_kernel, _scalar_int32,
                        stateful=True, grad_inputs=(), grad_outputs=())
BROADCAST = declare_op("CollectiveBcast", _broadcast_kernel, _same_as_inputs,
                       num_outputs=-1, stateful=True, grad_inputs=(), grad_outputs=())


def all_reduce_tensors(tensors: Sequence[Any], reduce_op: Any, engine: Any,
                       name: str = "CollectiveAllReduce") -> list:
    """All-reduces `tensors` across the engine's replicas with one collective."""
    inputs: List[Any] = [convert_to_tensor(t) for t in tensors]
    if not inputs:
        return []
    for x in inputs:
        if not (x.dtype.is_floating or x.dtype.is_complex or x.dtype.is_integer):
            raise TypeError(f"all_reduce: cannot reduce a tensor of dtype {x.dtype.name}")
    attrs = {"engine": engine, "reduce_op": as_reduce_op(reduce_op).value}
    return list(apply_op(ALL_REDUCE, inputs, attrs, name))


def replica_id_tensor(engine: Any, name: str = "ReplicaIdInSyncGroup") -> Any:
    """The calling replica's index as an int32 scalar tensor, decided at run time."""
    return apply_op(REPLICA_ID, (), {"engine": engine}, name)


def broadcast_tensors(tensors: Sequence[Any], engine: Any, root: int = 0,
                      name: str = "CollectiveBcast") -> list:
    """Every replica gets replica `root`'s values of `tensors` (one collective)."""
    inputs: List[Any] = [convert_to_tensor(t) for t in tensors]
    if not inputs:
        return []
    return list(apply_op(BROADCAST, inputs, {"engine": engine, "root": int(root)}, name))
