"""dg.compat.v1.data: TF1's iterators over a dataset, run in a Session.

`make_one_shot_iterator(ds).get_next()` and `make_initializable_iterator(ds)`
(run `iterator.initializer`, feeding the placeholders the dataset was built
from, then `get_next()` until OutOfRangeError) build graph ops (graph_ops.py).
"""
from __future__ import annotations

import types
from typing import Any, Optional

from ..eager import context
from ..framework import dtypes
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .graph_ops import GraphIterator
from .ignoring import ignore_errors
from .iterator import OwnedIterator
from .options import Options
from .slicing import assert_cardinality, cardinality


def _check_dataset(dataset: Any, what: str) -> None:
    """TypeError for an argument that is not a dg.data.Dataset (TF leaks an
    AttributeError about `_variant_tensor`, e.g. for a distributed dataset)."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"{what}: expected a dg.data.Dataset, got {type(dataset).__name__} "
                        "(a distributed dataset is iterated with iter() or in a dg.function)")


def make_one_shot_iterator(dataset: Dataset) -> Any:
    """An iterator that starts itself on first use (eagerly: `iter(dataset)`)."""
    _check_dataset(dataset, "make_one_shot_iterator")
    if context.state.graph is None:
        return OwnedIterator(dataset)
    check_capturable_by_value(dataset.graph_tensors())
    return GraphIterator(dataset, one_shot=True, name="OneShotIterator")


def check_capturable_by_value(tensors: list) -> None:
    """TF's check that a one-shot iterator's dataset captures no placeholder and no
    stateful op (a variable), the tensors nor anything they are computed from: a
    one-shot iterator captures its dataset by value. The graph is walked with a
    work list (no recursion on its depth)."""
    seen: set = set()
    pending = [t.op for t in tensors]
    while pending:
        op = pending.pop()
        if op.id in seen:
            continue
        seen.add(op.id)
        if op.type in ("Placeholder", "PlaceholderWithDefault"):
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) "
                             "by value.")
        if op.op_def.stateful or any(t.dtype == dtypes.resource for t in op.outputs):
            raise ValueError(
                f"Cannot capture a stateful node (name:{op.name}, type:{op.type}) by value.: "
                "A likely cause of this error is that the dataset for which you are calling "
                "`make_one_shot_iterator()` captures a stateful object, such as a "
                "`tf.Variable` or `tf.lookup.StaticHashTable`, which is not supported. Use "
                "`make_initializable_iterator()` instead.")
        pending.extend(t.op for t in op.inputs)
        pending.extend(op.control_inputs)


def make_initializable_iterator(dataset: Dataset, shared_name: Optional[str] = None) -> Any:
    """An iterator to start (and restart) by running its `initializer` op."""
    _check_dataset(dataset, "make_initializable_iterator")
    if context.state.graph is None:
        raise RuntimeError("`make_initializable_iterator()` is not supported in eager mode. "
                           "Use `for element in dataset` instead.")
    return GraphIterator(dataset, one_shot=False, name=shared_name or "Iterator")


class DatasetV1(Dataset):
    """tf.compat.v1.data.Dataset: a dataset with TF1's methods besides TF2's
    (`make_one_shot_iterator()`, `make_initializable_iterator()`, `output_types`,
    `output_shapes`); its transformations return DatasetV1s too. It wraps a dataset
    and adds nothing to its iteration."""

    def __init__(self, dataset: Dataset) -> None:
        super().__init__(dataset.element_spec, (dataset,))
        self._dataset = dataset

    @property
    def wraps(self) -> Dataset:
        """The TF2 dataset this one wraps."""
        return self._dataset

    def elements(self, ctx: Any) -> Any:
        return self._dataset.elements(ctx)

    def cardinality_value(self) -> int:
        return self._dataset.cardinality_value()

    def block_reader(self, ctx: Any) -> Any:
        return self._dataset.block_reader(ctx)

    def blocks(self, ctx: Any, size: int) -> Any:
        return self._dataset.blocks(ctx, size)

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def make_one_shot_iterator(self) -> Any:
        return make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name: Optional[str] = None) -> Any:
        return make_initializable_iterator(self, shared_name)

    @property
    def output_types(self) -> Any:
        return get_output_types(self)

    @property
    def output_shapes(self) -> Any:
        return get_output_shapes(self)


def _as_v1(value: Any) -> Any:
    return DatasetV1(value) if isinstance(value, Dataset) and not isinstance(
        value, DatasetV1) else value


def _v1_method(method: Any) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _as_v1(method(self, *args, **kwargs))
    call.__name__, call.__doc__ = method.__name__, method.__doc__
    return call


def _v1_constructor(constructor: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        return _as_v1(constructor(*args, **kwargs))
    call.__name__, call.__doc__ = constructor.__name__, constructor.__doc__
    return staticmethod(call)


for _name in ("from_tensor_slices", "from_tensors", "range", "from_generator", "zip",
              "counter"):
    setattr(DatasetV1, _name, _v1_constructor(getattr(Dataset, _name)))
for _name in ("concatenate", "map", "filter", "batch", "padded_batch", "unbatch", "rebatch",
              "repeat", "take", "skip", "shard", "enumerate", "shuffle", "flat_map",
              "interleave", "window", "scan", "take_while", "unique", "cache", "prefetch",
              "ignore_errors",
              "assert_cardinality", "apply", "with_options"):
    setattr(DatasetV1, _name, _v1_method(getattr(Dataset, _name)))


def get_output_types(dataset_or_iterator: Any) -> Any:
    return _map(dataset_or_iterator, "dtype")


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    return _map(dataset_or_iterator, "shape")


def _map(obj: Any, field: str) -> Any:
    from . import structure
    return structure.map_specs(lambda s: getattr(s, field), obj.element_spec)


NAMES = {
    "Dataset": DatasetV1, "DatasetV1": DatasetV1, "DatasetV2": Dataset, "Options": Options, "AUTOTUNE": AUTOTUNE,
    "INFINITE_CARDINALITY": INFINITE_CARDINALITY, "UNKNOWN_CARDINALITY": UNKNOWN_CARDINALITY,
    "make_one_shot_iterator": make_one_shot_iterator,
    "make_initializable_iterator": make_initializable_iterator,
    "get_output_types": get_output_types, "get_output_shapes": get_output_shapes,
    "Iterator": GraphIterator,
    "experimental": types.SimpleNamespace(
        AUTOTUNE=AUTOTUNE, cardinality=cardinality, assert_cardinality=assert_cardinality,
        ignore_errors=ignore_errors,
        INFINITE_CARDINALITY=INFINITE_CARDINALITY, UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY,
        __name__="duograd.compat.v1.data.experimental"),
}

__all__ = ["DatasetV1", "make_one_shot_iterator", "make_initializable_iterator", "NAMES"]
