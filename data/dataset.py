"""dg.data.Dataset: the base of every dataset, and its transformation methods.

A dataset knows its `element_spec` (a nest of TensorSpecs) and its cardinality
without running, and produces its elements with `elements(context)`: a
generator of flat tuples of NumPy arrays (see structure.py). The methods here
only build the next dataset; each transformation lives in its own module.
Iteration packs the flat tuples into EagerTensors (iterator.py).
"""
from __future__ import annotations

import abc
from typing import Any, Callable, Dict, Iterator, Optional

import numpy as np

from ..eager import context
from ..eager.execute import EAGER_RESOURCES
from ..framework import errors
from . import structure
from .options import Options

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

_state = context.state


class ErrorElement:
    """An element whose computation raised an OpError (a map or filter function's
    error), carried down the pipeline in the element's place: the iterator raises
    it at that element and the iteration goes on (as TF's iterator does), and
    `ignore_errors()` drops it. Only stages that know it are sent one (see
    `error_aware_datasets`); elsewhere the error is raised where it happens."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def failed_element(ctx: "IterationContext", dataset: "Dataset",
                   error: BaseException) -> "ErrorElement":
    """A stage's own error at an element (its function, or its work on the element:
    a batch of mismatched shapes) as an ErrorElement where its consumer handles them,
    so that the iteration goes on after it as TF's does; raised otherwise."""
    if not ctx.gives_error_elements(dataset):
        raise error
    return ErrorElement(error)


def error_aware_datasets(top: "Dataset", consumer_aware: bool) -> set:
    """The ids of the datasets whose consumer handles ErrorElements: `top`'s when its
    consumer (an iterator) does, and the inputs of each dataset that passes them on
    (its `error_elements_to_inputs`). A work list: no recursion on the depth."""
    aware: set = set()
    pending = [(top, consumer_aware)]
    while pending:
        dataset, is_aware = pending.pop()
        if is_aware:
            aware.add(id(dataset))
        to_inputs = dataset.error_elements_to_inputs(is_aware)
        pending.extend((source, to_inputs) for source in dataset.input_datasets())
    return aware


class BoundResources:
    """A resource store (a Session's, or eager mode's) with the values bound to the
    graph tensors the pipeline captured: what the pipeline's functions run with in
    a TF1 iterator (their captured placeholders, constants and variable handles)."""

    def __init__(self, store: Any, bindings: Dict[int, Any]) -> None:
        self.store = EAGER_RESOURCES if store is None else store
        self.bindings = bindings

    def read(self, variable: Any) -> Any:
        return self.store.read(variable)

    def write(self, variable: Any, value: Any) -> None:
        self.store.write(variable, value)

    def __getattr__(self, name: str) -> Any:  # the store's optional methods
        return getattr(self.store, name)


class IterationContext:
    """What one iteration of a pipeline runs with: values of the graph tensors the
    pipeline was built from (a TF1 initializable iterator's feeds), the resource
    store its functions read variables from, and the pipeline's options."""

    def __init__(self, bindings: Optional[Dict[int, Any]] = None, resources: Any = None,
                 options: Optional[Options] = None) -> None:
        self.bindings = bindings or {}
        self.resources = BoundResources(resources, self.bindings) if bindings else resources
        self.options = options or Options()
        self.error_aware: set = set()   # see error_aware_datasets

    def with_bindings(self, more: Dict[int, Any]) -> "IterationContext":
        """This context with more graph tensors bound (those of a dataset made in a
        graph and passed to a dg.function, see data/arguments.py)."""
        child = IterationContext(options=self.options)
        child.bindings = dict(self.bindings)
        child.bindings.update(more)
        store = self.resources.store if isinstance(self.resources, BoundResources) \
            else self.resources
        child.resources = BoundResources(store, child.bindings)
        child.error_aware = self.error_aware
        return child

    def with_error_aware(self, more: set) -> "IterationContext":
        """This context with `more` datasets sending ErrorElements (an interleave's
        element datasets, made while iterating)."""
        child = IterationContext(options=self.options)
        child.bindings, child.resources = self.bindings, self.resources
        child.error_aware = self.error_aware | more
        return child

    def gives_error_elements(self, dataset: "Dataset") -> bool:
        """Whether `dataset` sends an element's error on as an ErrorElement."""
        return id(dataset) in self.error_aware

    def value_of(self, leaf: Any) -> Any:
        """A source's leaf as an array: graph tensors take their bound value."""
        if isinstance(leaf, np.ndarray):
            return leaf
        try:
            return self.bindings[id(leaf)]
        except KeyError:
            raise errors.InvalidArgumentError(
                None, None, f"The dataset was built from the graph tensor {leaf!r}: iterate it "
                "with dg.compat.v1.data.make_initializable_iterator (or one-shot) in a Session, "
                "or build it from eager values.") from None


class Dataset(abc.ABC):
    """A sequence of elements of one structure (TensorFlow's tf.data.Dataset)."""

    def __init__(self, element_spec: Any, inputs: tuple = ()) -> None:
        self._element_spec = element_spec
        self._inputs = tuple(inputs)
        self._own_options: Optional[Options] = None

    # -- what every dataset implements --------------------------------------
    @abc.abstractmethod
    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        """The elements, as flat tuples of arrays (every kind of dataset defines it)."""

    def cardinality_value(self) -> int:
        """The number of elements, INFINITE_CARDINALITY or UNKNOWN_CARDINALITY."""
        return UNKNOWN_CARDINALITY

    def block_reader(self, ctx: IterationContext) -> Any:
        """Random access to the elements (a blocks.BlockReader), or None (override)."""
        return None

    def blocks(self, ctx: IterationContext, size: int) -> Optional[Iterator[tuple]]:
        """The elements `size` at a time as blocks of arrays (see blocks.py), or None
        where this dataset cannot give them so."""
        reader = self.block_reader(ctx)
        if reader is None:
            return None
        from .blocks import sequential_blocks
        return sequential_blocks(reader, size)

    def input_datasets(self) -> tuple:
        return self._inputs

    def error_elements_to_inputs(self, aware: bool) -> bool:
        """Whether this dataset's inputs may send it ErrorElements, given whether its
        consumer handles them (`aware`); a stage that passes them on returns `aware`."""
        return False

    def graph_tensors(self) -> list:
        """The graph tensors the pipeline's sources hold and its functions capture
        (bound when iterated), each once."""
        found = list(getattr(getattr(self, "function", None), "graph_captures", ()))
        for dataset in self._inputs:
            found.extend(dataset.graph_tensors())
        return list({id(t): t for t in found}.values())

    def function_argument_spec(self) -> Any:
        """The trace key of this dataset as a dg.function argument: its DatasetSpec
        (TF traces once per element_spec, whatever the dataset)."""
        return structure.DatasetSpec(self._element_spec)

    def eager_argument_value(self) -> Any:
        """What an eager dg.function call passes for this dataset argument."""
        from .arguments import VariantHandle
        return VariantHandle(self)

    def graph_argument_value(self) -> Any:
        """What a dg.function call in a graph being built passes for this dataset
        argument: a variant tensor of that graph (see data/arguments.py)."""
        from .arguments import dataset_variant
        return dataset_variant(self)

    # -- structure ------------------------------------------------------------
    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def options(self) -> Options:
        merged = Options()
        for dataset in self._inputs:
            merged = merged.merge(dataset.options())
        if self._own_options is not None:
            merged = merged.merge(self._own_options)
        return merged

    def cardinality(self) -> Any:
        """The cardinality as an int64 scalar tensor (-1 infinite, -2 unknown)."""
        from ..ops.constant_op import constant
        return constant(np.int64(self.cardinality_value()))

    def __len__(self) -> int:
        n = self.cardinality_value()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} element_spec={self._element_spec!r}>"

    # -- iteration ------------------------------------------------------------
    def __iter__(self) -> Any:
        from .iterator import OwnedIterator
        if _state.graph is not None and getattr(_state.graph, "building_function", False):
            return self.graph_iterator()   # inside dg.function: iterator ops (next() = get_next)
        if _state.graph is not None:
            raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager "
                               "mode or within tf.function.")
        return OwnedIterator(self)

    def as_numpy_iterator(self) -> Any:
        """Iterates the elements as NumPy values (scalars as NumPy scalars)."""
        from .iterator import NumpyIterator
        if _state.graph is not None:
            raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in "
                               "eager mode.")
        for spec in structure.flat_specs(self._element_spec):
            if isinstance(spec, structure.DatasetSpec):
                raise TypeError(f"Dataset.as_numpy_iterator() is not supported for datasets "
                                f"that produce values of type {structure.DatasetSpec.__name__}")
        return NumpyIterator(self)

    def graph_iterator(self) -> Any:
        """An iterator's ops in the graph being built, started afresh each time the
        graph runs (what AutoGraph's `for x in dataset` loops over)."""
        from .graph_ops import GraphIterator
        return GraphIterator(self, one_shot=False)

    def get_single_element(self, name: Optional[str] = None) -> Any:
        """The one element of a one-element dataset (InvalidArgumentError otherwise)."""
        from .iterator import OwnedIterator
        if _state.graph is not None:
            raise RuntimeError("`get_single_element()` runs eagerly here; in a graph, use "
                               "an iterator's get_next().")
        iterator = OwnedIterator(self)
        first = iterator.next_flat()
        if first is None:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty.")
        if iterator.next_flat() is not None:
            iterator.close()
            raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
        return structure.pack(self._element_spec, first)

    def run_eagerly(self, resources: Any = None, bindings: Optional[dict] = None,
                    error_elements: bool = False) -> Iterator[tuple]:
        """The flat elements for one iteration (used by every iterator); with
        `error_elements`, an element's error may come as an ErrorElement."""
        ctx = IterationContext(bindings, resources, self.options())
        ctx.error_aware = error_aware_datasets(self, error_elements)
        return self.elements(ctx)

    # -- sources ----------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: Optional[str] = None) -> "Dataset":
        from .sources import TensorSliceDataset
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: Optional[str] = None) -> "Dataset":
        from .sources import TensorDataset
        return TensorDataset(tensors)

    @staticmethod
    def range(*args: Any, output_type: Any = None, name: Optional[str] = None  # noqa: A003
              ) -> "Dataset":
        from ..framework import dtypes
        from .sources import RangeDataset
        return RangeDataset(*args, dtype=dtypes.int64 if output_type is None else output_type)

    @staticmethod
    def from_generator(generator: Callable, output_types: Any = None, output_shapes: Any = None,
                       args: Any = None, output_signature: Any = None,
                       name: Optional[str] = None) -> "Dataset":
        from .sources import GeneratorDataset
        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: Optional[str] = None) -> "Dataset":  # noqa: A003
        from .combine import ZipDataset
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        return ZipDataset(datasets)

    @staticmethod
    def counter(start: int = 0, step: int = 1, dtype: Any = None) -> "Dataset":
        from ..framework import dtypes
        from .sources import RangeDataset
        return RangeDataset(start, np.iinfo(np.int64).max, step,
                            dtype=dtypes.int64 if dtype is None else dtype, infinite=True)

    # -- transformations --------------------------------------------------------
    def concatenate(self, dataset: "Dataset", name: Optional[str] = None) -> "Dataset":
        from .combine import ConcatenateDataset
        return ConcatenateDataset(self, dataset)

    def map(self, map_func: Callable, num_parallel_calls: Optional[int] = None,  # noqa: A003
            deterministic: Optional[bool] = None, name: Optional[str] = None) -> "Dataset":
        from .mapping import MapDataset
        return MapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate: Callable, name: Optional[str] = None) -> "Dataset":  # noqa: A003
        from .mapping import FilterDataset
        return FilterDataset(self, predicate)

    def batch(self, batch_size: int, drop_remainder: bool = False,
              num_parallel_calls: Optional[int] = None, deterministic: Optional[bool] = None,
              name: Optional[str] = None) -> "Dataset":
        from .batching import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size: int, padded_shapes: Any = None,
                     padding_values: Any = None, drop_remainder: bool = False,
                     name: Optional[str] = None) -> "Dataset":
        from .batching import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values,
                                  drop_remainder)

    def unbatch(self, name: Optional[str] = None) -> "Dataset":
        from .batching import UnbatchDataset
        return UnbatchDataset(self)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False,
                name: Optional[str] = None) -> "Dataset":
        from .batching import RebatchDataset
        return RebatchDataset(self, batch_size, drop_remainder)

    def repeat(self, count: Optional[int] = None, name: Optional[str] = None) -> "Dataset":
        from .slicing import RepeatDataset
        return RepeatDataset(self, count)

    def take(self, count: int, name: Optional[str] = None) -> "Dataset":
        from .slicing import TakeDataset
        return TakeDataset(self, count)

    def skip(self, count: int, name: Optional[str] = None) -> "Dataset":
        from .slicing import SkipDataset
        return SkipDataset(self, count)

    def shard(self, num_shards: int, index: int, name: Optional[str] = None) -> "Dataset":
        from .slicing import ShardDataset
        return ShardDataset(self, num_shards, index)

    def enumerate(self, start: int = 0, name: Optional[str] = None) -> "Dataset":  # noqa: A003
        from .combine import ZipDataset
        from .sources import RangeDataset
        counter = RangeDataset(start, np.iinfo(np.int64).max, infinite=True)
        return ZipDataset((counter, self))

    def shuffle(self, buffer_size: int, seed: Optional[int] = None,
                reshuffle_each_iteration: Optional[bool] = None,
                name: Optional[str] = None) -> "Dataset":
        from .shuffling import ShuffleDataset
        return ShuffleDataset(self, buffer_size, seed,
                              True if reshuffle_each_iteration is None
                              else reshuffle_each_iteration)

    def flat_map(self, map_func: Callable, name: Optional[str] = None) -> "Dataset":
        from .interleaving import InterleaveDataset
        return InterleaveDataset(self, map_func, 1, 1, None, None)

    def interleave(self, map_func: Callable, cycle_length: Optional[int] = None,
                   block_length: Optional[int] = None, num_parallel_calls: Optional[int] = None,
                   deterministic: Optional[bool] = None, name: Optional[str] = None) -> "Dataset":
        from .interleaving import InterleaveDataset
        return InterleaveDataset(self, map_func, cycle_length, block_length,
                                 num_parallel_calls, deterministic)

    def window(self, size: int, shift: Optional[int] = None, stride: int = 1,
               drop_remainder: bool = False, name: Optional[str] = None) -> "Dataset":
        from .windowing import WindowDataset
        return WindowDataset(self, size, shift, stride, drop_remainder)

    def reduce(self, initial_state: Any, reduce_func: Callable, name: Optional[str] = None) -> Any:
        from .scanning import reduce_dataset
        return reduce_dataset(self, initial_state, reduce_func)

    def scan(self, initial_state: Any, scan_func: Callable, name: Optional[str] = None) -> "Dataset":
        from .scanning import ScanDataset
        return ScanDataset(self, initial_state, scan_func)

    def take_while(self, predicate: Callable, name: Optional[str] = None) -> "Dataset":
        from .mapping import TakeWhileDataset
        return TakeWhileDataset(self, predicate)

    def unique(self, name: Optional[str] = None) -> "Dataset":
        from .slicing import UniqueDataset
        return UniqueDataset(self)

    def cache(self, filename: str = "", name: Optional[str] = None) -> "Dataset":
        from .caching import CacheDataset
        return CacheDataset(self, filename)

    def ignore_errors(self, log_warning: bool = False, name: Optional[str] = None
                      ) -> "Dataset":
        """The elements whose computation did not raise (see ignoring.py)."""
        from .ignoring import IgnoreErrorsDataset
        return IgnoreErrorsDataset(self, log_warning)

    def prefetch(self, buffer_size: int, name: Optional[str] = None) -> "Dataset":
        from .prefetching import PrefetchDataset
        return PrefetchDataset(self, buffer_size)

    def assert_cardinality(self, expected_cardinality: Any, name: Optional[str] = None
                           ) -> "Dataset":
        from .slicing import AssertCardinalityDataset
        return AssertCardinalityDataset(self, expected_cardinality)

    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"`transformation_func` must return a `dg.data.Dataset` object. "
                            f"Got {type(dataset)}.")
        return dataset

    def with_options(self, options: Options, name: Optional[str] = None) -> "Dataset":
        from .slicing import OptionsDataset
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be tf.data.Options, got {type(options).__name__}")
        return OptionsDataset(self, options)

    def set_own_options(self, options: Options) -> None:
        """Used by `with_options`: the options this node adds to its inputs'."""
        self._own_options = options


DatasetV2 = Dataset

__all__ = ["Dataset", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
           "IterationContext"]
