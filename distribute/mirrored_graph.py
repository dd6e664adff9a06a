"""MirroredStrategy.run with several replicas while a graph (a dg.function) is built.

TF's MirroredStrategy traces the replica function once per device into the same
graph. duograd's replicas are threads of one process sharing one engine, and a
trace of the replica function serves every replica (the replica id and the
collectives are ops that ask the engine, when they run, which replica the
thread is: collective_ops.py). So the graph form is one trace of the replica
function and one `MirroredReplicaCall` op that, when it runs, starts a thread
per replica, binds it to its replica and runs the trace on that replica's
inputs, all concurrently (their all-reduces meet in the engine, their
MirroredVariables read and update their own copies): exactly what the eager
`run` does, with the function compiled once. Its outputs are the replicas'
results, regrouped into PerReplica values. If a replica raises, the group is
aborted and the op raises the first replica's error, as eagerly.

`strategy.reduce` of those PerReplica values is graph ops: the replicas' values
summed in replica order (MEAN divided by the count), the bits the eager reduce
gives.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from ..autograph.conversion import convert
from ..framework import dtypes, nest
from ..framework.op_def import declare_op
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops.constant_op import convert_to_tensor
from ..ops.dispatch import apply_op
from ..ops.functions.function import Function
from ..ops.math.math_ops import cast
from .reduce_op import ReduceOp
from .replica_context import ReplicaContext
from .replica_threads import run_replicas
from .values import regroup, select_replica


def _replica_call_kernel(resources: Any, *arrays: Any, function: Any, num_replicas: int,
                         num_args: int, engine: Any, strategy: Any, output_specs: Any) -> list:
    captures = list(arrays[num_replicas * num_args:])

    def replica_step(replica: int) -> Any:
        inputs = list(arrays[replica * num_args:(replica + 1) * num_args]) + captures
        return function.run(resources, inputs)
    results = run_replicas(num_replicas, engine, strategy, replica_step)
    return [value for result in results for value in result]


def _replica_call_outputs(inputs: Sequence[Any], attrs: dict) -> list:
    specs = attrs["output_specs"]
    return [(s.dtype, s.shape) for s in specs] * attrs["num_replicas"]


# stateful: the replicas talk to each other and update variables
MIRRORED_REPLICA_CALL = declare_op("MirroredReplicaCall", _replica_call_kernel,
                                   _replica_call_outputs, num_outputs=-1, stateful=True,
                                   side_effects=True)


def _most_general(specs: Sequence[TensorSpec]) -> TensorSpec:
    """A spec every replica's input fits (dimensions that differ become unknown)."""
    dims: Optional[List[Any]] = None if specs[0].shape.dims is None \
        else list(specs[0].shape.dims)
    for spec in specs[1:]:
        other = spec.shape.dims
        if dims is None or other is None or len(dims) != len(other):
            dims = None
            break
        dims = [a if a == b else None for a, b in zip(dims, other, strict=True)]
    return TensorSpec(TensorShape(dims), specs[0].dtype)


def run_in_graph(strategy: Any, fn: Callable, args: tuple, kwargs: dict) -> Any:
    """`strategy.run(fn, args, kwargs)` as graph ops (see the module doc)."""
    n = strategy.num_replicas_in_sync
    per_replica = [select_replica(i, (tuple(args), dict(kwargs))) for i in range(n)]
    flats = [nest.flatten(p) for p in per_replica]
    is_tensor = [isinstance(leaf, Tensor) for leaf in flats[0]]
    for flat in flats[1:]:
        if [isinstance(leaf, Tensor) for leaf in flat] != is_tensor:
            raise TypeError("strategy.run: the replicas' arguments differ in which are tensors")
    specs = [_most_general([TensorSpec(f[k].shape, f[k].dtype) for f in flats])
             for k, t in enumerate(is_tensor) if t]
    converted = convert(fn)
    out_structure: List[Any] = []

    def replica_function(*tensors: Any) -> list:
        it = iter(tensors)
        leaves = [next(it) if t else leaf for leaf, t in zip(flats[0], is_tensor, strict=True)]
        call_args, call_kwargs = nest.pack_sequence_as(per_replica[0], leaves)
        with ReplicaContext(strategy, 0):   # its id is read when it runs (an op)
            result = converted(*call_args, **call_kwargs)
        out_leaves = nest.flatten(result)
        keep = [isinstance(v, Tensor) or _tensor_like(v) for v in out_leaves]
        out_structure[:] = [result, out_leaves, keep]
        return [convert_to_tensor(v) for v, k in zip(out_leaves, keep, strict=True) if k]

    traced = Function(replica_function, input_signature=specs, autograph=False,
                      name="replica_fn")
    concrete = traced.get_concrete_function()
    result, out_leaves, keep = out_structure
    output_specs = [TensorSpec(t.shape, t.dtype) for t in concrete.outputs]
    inputs: List[Any] = []
    for flat in flats:
        inputs.extend(convert_to_tensor(leaf) for leaf, t in zip(flat, is_tensor, strict=True)
                      if t)
    inputs.extend(concrete.captured_inputs)
    attrs = {"function": concrete.function, "num_replicas": n, "num_args": len(specs),
             "engine": strategy.engine, "strategy": strategy, "output_specs": output_specs}
    outputs = apply_op(MIRRORED_REPLICA_CALL, inputs, attrs, "MirroredReplicaCall")
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    m = len(output_specs)
    replicas = []
    for replica in range(n):
        values = iter(outputs[replica * m:(replica + 1) * m])
        leaves = [next(values) if k else leaf for leaf, k in zip(out_leaves, keep, strict=True)]
        replicas.append(nest.pack_sequence_as(result, leaves) if nest.is_nested(result)
                        else leaves[0])
    return regroup(replicas)


def _tensor_like(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape") and not isinstance(value, type)


def reduce_in_graph(reduce_op: ReduceOp, local_values: list) -> Any:
    """The replicas' values summed in replica order as graph ops (MEAN: divided by the
    count; integers give float64, as the eager reduce)."""
    n = len(local_values)
    flats = [[convert_to_tensor(v) for v in nest.flatten(value)] for value in local_values]
    reduced = []
    for column in zip(*flats, strict=True):
        total = column[0]
        for part in column[1:]:
            total = total + part
        if reduce_op is ReduceOp.MEAN:
            if not (total.dtype.is_floating or total.dtype.is_complex):
                total = cast(total, dtypes.float64)
            total = total / convert_to_tensor(n, dtype=total.dtype)
        reduced.append(total)
    return nest.pack_sequence_as(local_values[0], reduced)


__all__ = ["run_in_graph", "reduce_in_graph", "MIRRORED_REPLICA_CALL"]
