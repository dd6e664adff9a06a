"""embedding_lookup: rows of an embedding table (gather, so its gradient is an
IndexedSlices as in TF), with TF2's "div" sharding and optional max_norm clipping.
A list of shards is looked up shard by shard, as TF does, so each shard's gradient
is its own IndexedSlices of the rows it served."""
from __future__ import annotations

from typing import Any, List, Optional

from ...framework import dtypes
from ..array import array_ops
from ..math import math_ops
from ..math.clip_norm_ops import clip_by_norm
from ..constant_op import convert_to_tensor
from ..array.creation_ops import range as range_op
from ..array.indexed_slices_ops import gather
from ..array.join_ops import concat
from ..array.partition_ops import dynamic_partition, dynamic_stitch


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: Optional[str] = None):
    """params[ids] along axis 0; a list of shards is the table split in order ("div":
    shard k holds the rows after those of shards 0..k-1).

    With `max_norm`, each looked-up row is rescaled to an l2 norm of at most max_norm.
    """
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Need at least one param")
        shards = [convert_to_tensor(p) for p in params]
        ids = convert_to_tensor(ids, dtype_hint=dtypes.int32)
        rows = gather(shards[0], ids, name=name) if len(shards) == 1 \
            else _lookup_in_shards(shards, ids, name)
    else:
        rows = gather(convert_to_tensor(params), ids, name=name)
    if max_norm is None:
        return rows
    ids_rank = convert_to_tensor(ids).shape.rank
    row_rank = rows.shape.rank
    if ids_rank is None or row_rank is None:
        raise ValueError("embedding_lookup with max_norm needs ids and params of known rank")
    axes = list(range(ids_rank, row_rank))
    return clip_by_norm(rows, max_norm, axes=axes) if axes else rows


def _lookup_in_shards(shards: List[Any], ids: Any, name: Optional[str]):
    """Partitions the ids by shard, gathers each shard's rows (local ids, in order of
    appearance) and stitches them back into the ids' order."""
    flat_ids = array_ops.reshape(ids, [-1])
    assignment = None   # which shard serves each id (int32)
    local_ids = flat_ids   # the id's row within its shard
    start = None   # first global row id of the next shard
    for previous in shards[:-1]:
        rows = previous.shape.dims[0] if previous.shape.rank else None
        size = array_ops.shape(previous, out_type=ids.dtype)[0] if rows is None \
            else convert_to_tensor(rows, dtype=ids.dtype)
        start = size if start is None else start + size
        beyond = math_ops.greater_equal(flat_ids, start)
        step = math_ops.cast(beyond, dtypes.int32)
        assignment = step if assignment is None else assignment + step
        local_ids = local_ids - math_ops.cast(beyond, ids.dtype) * size
    count = len(shards)
    positions = range_op(array_ops.size(flat_ids))
    local_parts = dynamic_partition(local_ids, assignment, count)
    position_parts = dynamic_partition(positions, assignment, count)
    gathered = [gather(shard, part) for shard, part in zip(shards, local_parts, strict=True)]
    merged = dynamic_stitch(position_parts, gathered)
    row_shape = array_ops.shape(shards[0])[1:]
    return array_ops.reshape(merged, concat([array_ops.shape(ids), row_shape], 0), name=name)


__all__ = ["embedding_lookup"]
