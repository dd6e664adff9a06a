"""dg.data.Options: the settings a pipeline runs with (TF's tf.data.Options).

Only the settings duograd acts on are kept: `deterministic` (whether parallel
`map`/`interleave` must keep the input order), `threading` (the size of the
private thread pool the parallel transformations use) and
`experimental_distribute.auto_shard_policy` (how a multi-worker strategy shards
the dataset). Setting an unknown option is an AttributeError, as in TF.
"""
from __future__ import annotations

import enum
import os
from typing import Any, Optional


class AutoShardPolicy(enum.IntEnum):
    """tf.data.experimental.AutoShardPolicy (duograd shards by DATA; see docs/data.md)."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _OptionGroup:
    _fields: tuple = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self._fields)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f) for f in self._fields))

    def merged_with(self, other: "_OptionGroup") -> "_OptionGroup":
        """`self` with the settings `other` has set (not None) taking over."""
        merged = type(self)()
        for field in self._fields:
            mine, theirs = getattr(self, field), getattr(other, field)
            if isinstance(mine, _OptionGroup):
                object.__setattr__(merged, field, mine.merged_with(theirs))
            else:
                object.__setattr__(merged, field, mine if theirs is None else theirs)
        return merged


class ThreadingOptions(_OptionGroup):
    """tf.data.ThreadingOptions: `private_threadpool_size` (0 or None: the CPU count)."""
    _fields = ("private_threadpool_size", "max_intra_op_parallelism")

    def __init__(self) -> None:
        self.private_threadpool_size: Optional[int] = None
        self.max_intra_op_parallelism: Optional[int] = None


class DistributeOptions(_OptionGroup):
    """tf.data.experimental.DistributeOptions."""
    _fields = ("auto_shard_policy", "num_devices")

    def __init__(self) -> None:
        self.auto_shard_policy: Optional[AutoShardPolicy] = None
        self.num_devices: Optional[int] = None


class OptimizationOptions(_OptionGroup):
    """tf.data.experimental.OptimizationOptions: `map_vectorization=False` turns off
    the block execution of map + batch (data/blocks.py); the others are accepted."""
    _fields = ("apply_default_optimizations", "map_parallelization", "parallel_batch",
               "map_and_batch_fusion", "map_vectorization")

    def __init__(self) -> None:
        self.apply_default_optimizations: Optional[bool] = None
        self.map_parallelization: Optional[bool] = None
        self.parallel_batch: Optional[bool] = None
        self.map_and_batch_fusion: Optional[bool] = None
        # False: never run a map's function on blocks (see blocks.py)
        self.map_vectorization: Optional[bool] = None


class Options(_OptionGroup):
    """tf.data.Options; attach with `dataset.with_options(options)`."""
    _fields = ("deterministic", "threading", "experimental_distribute",
               "experimental_optimization", "experimental_deterministic",
               "experimental_slack", "experimental_external_state_policy")

    def __init__(self) -> None:
        self.deterministic: Optional[bool] = None
        self.threading = ThreadingOptions()
        self.experimental_distribute = DistributeOptions()
        self.experimental_optimization = OptimizationOptions()
        self.experimental_deterministic: Optional[bool] = None
        self.experimental_slack: Optional[bool] = None
        self.experimental_external_state_policy: Any = None

    def merge(self, options: "Options") -> "Options":
        """A new Options: these settings, overridden by those `options` sets."""
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be tf.data.Options, got {type(options).__name__}")
        merged = self.merged_with(options)
        assert isinstance(merged, Options)
        return merged

    def is_deterministic(self) -> bool:
        for value in (self.deterministic, self.experimental_deterministic):
            if value is not None:
                return bool(value)
        return True

    def pool_size(self) -> int:
        size = self.threading.private_threadpool_size
        return int(size) if size else (os.cpu_count() or 1)


__all__ = ["Options", "ThreadingOptions", "DistributeOptions", "OptimizationOptions",
           "AutoShardPolicy"]
