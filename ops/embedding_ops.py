"""embedding_lookup: rows of an embedding table (gather, so its gradient is an
IndexedSlices as in TF), with TF2's "div" sharding and optional max_norm clipping."""
from __future__ import annotations

from typing import Any, Optional

from .clip_norm_ops import clip_by_norm
from .constant_op import convert_to_tensor
from .indexed_slices_ops import gather
from .join_ops import concat


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: Optional[str] = None):
    """params[ids] along axis 0; a list of shards is the table split in order ("div").

    With `max_norm`, each looked-up row is rescaled to an l2 norm of at most max_norm.
    """
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Need at least one param")
        shards = [convert_to_tensor(p) for p in params]
        table = shards[0] if len(shards) == 1 else concat(shards, 0)
    else:
        table = convert_to_tensor(params)
    rows = gather(table, ids, name=name)
    if max_norm is None:
        return rows
    ids_rank = convert_to_tensor(ids).shape.rank
    row_rank = rows.shape.rank
    if ids_rank is None or row_rank is None:
        raise ValueError("embedding_lookup with max_norm needs ids and params of known rank")
    axes = list(range(ids_rank, row_rank))
    return clip_by_norm(rows, max_norm, axes=axes) if axes else rows


__all__ = ["embedding_lookup"]
