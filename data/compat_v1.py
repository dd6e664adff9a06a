"""dg.compat.v1.data: TF1's iterators over a dataset, run in a Session.

`make_one_shot_iterator(ds).get_next()` and `make_initializable_iterator(ds)`
(run `iterator.initializer`, feeding the placeholders the dataset was built
from, then `get_next()` until OutOfRangeError) build graph ops (graph_ops.py).
"""
from __future__ import annotations

import types
from typing import Any, Optional

from ..eager import context
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .graph_ops import GraphIterator
from .iterator import OwnedIterator
from .options import Options
from .slicing import assert_cardinality, cardinality


def make_one_shot_iterator(dataset: Dataset) -> Any:
    """An iterator that starts itself on first use (eagerly: `iter(dataset)`)."""
    if context.state.graph is None:
        return OwnedIterator(dataset)
    tensors = dataset.graph_tensors()
    if tensors:
        raise ValueError(f"Failed to create a one-shot iterator for a dataset built from the "
                         f"graph tensors {tensors}: `make_one_shot_iterator()` does not support "
                         "datasets that capture stateful objects or placeholders; use "
                         "`make_initializable_iterator()`.")
    return GraphIterator(dataset, one_shot=True, name="OneShotIterator")


def make_initializable_iterator(dataset: Dataset, shared_name: Optional[str] = None) -> Any:
    """An iterator to start (and restart) by running its `initializer` op."""
    if context.state.graph is None:
        raise RuntimeError("`make_initializable_iterator()` is not supported in eager mode. "
                           "Use `for element in dataset` instead.")
    return GraphIterator(dataset, one_shot=False, name=shared_name or "Iterator")


def get_output_types(dataset_or_iterator: Any) -> Any:
    return _map(dataset_or_iterator, "dtype")


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    return _map(dataset_or_iterator, "shape")


def _map(obj: Any, field: str) -> Any:
    from . import structure
    return structure.map_specs(lambda s: getattr(s, field), obj.element_spec)


NAMES = {
    "Dataset": Dataset, "Options": Options, "AUTOTUNE": AUTOTUNE,
    "INFINITE_CARDINALITY": INFINITE_CARDINALITY, "UNKNOWN_CARDINALITY": UNKNOWN_CARDINALITY,
    "make_one_shot_iterator": make_one_shot_iterator,
    "make_initializable_iterator": make_initializable_iterator,
    "get_output_types": get_output_types, "get_output_shapes": get_output_shapes,
    "Iterator": GraphIterator,
    "experimental": types.SimpleNamespace(
        AUTOTUNE=AUTOTUNE, cardinality=cardinality, assert_cardinality=assert_cardinality,
        INFINITE_CARDINALITY=INFINITE_CARDINALITY, UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY,
        __name__="duograd.compat.v1.data.experimental"),
}

__all__ = ["make_one_shot_iterator", "make_initializable_iterator", "NAMES"]
