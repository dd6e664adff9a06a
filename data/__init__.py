"""dg.data: TensorFlow's input pipelines (tf.data) on NumPy, eager and in graphs.

`Dataset.from_tensor_slices(...).shuffle(...).map(...).batch(...).prefetch(...)`
with TensorFlow's element structures, cardinalities and errors; map functions
are traced once into a graph; parallel stages run on threads that stop with
their iterator. See docs/data.md.
"""
from __future__ import annotations

import types

from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, DatasetV2
from .ignoring import ignore_errors
from .iterator import OwnedIterator as Iterator
from .options import AutoShardPolicy, DistributeOptions, Options, ThreadingOptions
from .options import OptimizationOptions
from .slicing import assert_cardinality, cardinality
from .structure import DatasetSpec

experimental = types.SimpleNamespace(
    AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY, cardinality=cardinality,
    assert_cardinality=assert_cardinality, AutoShardPolicy=AutoShardPolicy,
    DistributeOptions=DistributeOptions, OptimizationOptions=OptimizationOptions,
    ThreadingOptions=ThreadingOptions, DatasetSpec=DatasetSpec, ignore_errors=ignore_errors,
    __name__="duograd.data.experimental")

__all__ = ["Dataset", "DatasetV2", "Iterator", "Options", "ThreadingOptions", "DatasetSpec",
           "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental"]


def __dir__() -> list:
    """The public names only (the implementation modules stay importable)."""
    return sorted(__all__)
