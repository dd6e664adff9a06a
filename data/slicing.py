"""repeat, take, skip, shard, unique, assert_cardinality and with_options."""
from __future__ import annotations

import itertools
from typing import Any, Iterator, Optional

import numpy as np

from ..eager import context
from ..framework import dtypes, errors
from ..framework.func_graph import FuncGraph
from ..framework.graph import SymbolicTensor
from ..ops.tensor_util import constant_value
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from .dataset import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, ErrorElement,
                      IterationContext)
from .options import Options


class SpecTraceGraph(FuncGraph):
    """The graph a dataset-returning function (flat_map, interleave) is traced in, only
    to learn the element_spec of what it returns: its datasets are never iterated."""


class UnknownInt(int):
    """An integer argument with no value while a SpecTraceGraph is traced."""


def as_int(value: Any, what: str) -> int:
    """A Python int from an int, NumPy or eager scalar (TF's int64 arguments)."""
    if isinstance(value, SymbolicTensor):
        static = constant_value(value)
        if static is None:
            if isinstance(context.state.graph, SpecTraceGraph):
                return UnknownInt(1)
            raise TypeError(f"`{what}` must have a value where the dataset is built: got the "
                            f"graph tensor {value!r}. Feed it through the dataset's source "
                            "tensors (make_initializable_iterator) instead.")
        value = static
    elif isinstance(value, Tensor):
        value = value.numpy()
    array = np.asarray(value)
    if array.ndim != 0 or array.dtype.kind not in "iu":
        raise TypeError(f"`{what}` must be a scalar integer, got {value!r}")
    return int(array)


class RepeatDataset(Dataset):
    """repeat(count): the input `count` times (forever for None or -1)."""

    def __init__(self, source: Dataset, count: Optional[Any]) -> None:
        self._count = -1 if count is None else as_int(count, "count")
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        n = self._inputs[0].cardinality_value()
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0:
            return UNKNOWN_CARDINALITY if n == UNKNOWN_CARDINALITY else INFINITE_CARDINALITY
        return n if n < 0 else n * self._count

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        epochs = itertools.count() if self._count < 0 else range(self._count)
        for _ in epochs:
            produced = False
            for element in self._inputs[0].elements(ctx):
                produced = True
                yield element
            if not produced:  # an empty input repeated forever is empty (as TF)
                return


class TakeDataset(Dataset):
    """take(count): the first `count` elements (all for -1)."""

    def __init__(self, source: Dataset, count: Any) -> None:
        self._count = as_int(count, "count")
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        n = self._inputs[0].cardinality_value()
        if self._count < 0:
            return n
        if n == INFINITE_CARDINALITY:
            return self._count
        if n == UNKNOWN_CARDINALITY:
            return UNKNOWN_CARDINALITY
        return min(n, self._count)

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        if self._count == 0:
            return
        upstream = self._inputs[0].elements(ctx)
        if self._count < 0:
            yield from upstream
            return
        taken = 0
        for element in upstream:
            yield element
            if type(element) is not ErrorElement:  # an element's error is not counted (TF)
                taken += 1
                if taken >= self._count:
                    return


class SkipDataset(Dataset):
    """skip(count): all but the first `count` elements (skip(-1) skips everything)."""

    def __init__(self, source: Dataset, count: Any) -> None:
        self._count = as_int(count, "count")
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        n = self._inputs[0].cardinality_value()
        if n < 0:
            return n if self._count >= 0 or n == UNKNOWN_CARDINALITY else UNKNOWN_CARDINALITY
        if self._count < 0:
            return 0
        return max(0, n - self._count)

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        if self._count < 0:   # skips everything without reading it (as TF)
            return
        upstream = self._inputs[0].elements(ctx)
        skipped = 0
        while skipped < self._count:
            run = skip_run(upstream, self._count - skipped)
            if type(run) is ErrorElement:
                yield run
                continue
            if run is None:
                return
            skipped += run
        yield from upstream


def skip_run(upstream: Iterator[Any], count: int) -> Any:
    """Reads `count` elements of `upstream` and drops them: `count`, None at the end,
    or the ErrorElement of one that raised (the elements read before it then do not
    count: TF skips the whole count again after an error)."""
    for _ in range(count):
        try:
            element = next(upstream)
        except StopIteration:
            return None
        if type(element) is ErrorElement:
            return element
    return count


class ShardDataset(Dataset):
    """shard(num_shards, index): every num_shards-th element, starting at `index`."""

    def __init__(self, source: Dataset, num_shards: Any, index: Any) -> None:
        self._num = as_int(num_shards, "num_shards")
        self._index = as_int(index, "index")
        if self._num <= 0:
            raise errors.InvalidArgumentError(None, None,
                                              "Number of shards must be greater than zero "
                                              f"(currently num_shards = {self._num}).")
        if not 0 <= self._index < self._num:
            raise errors.InvalidArgumentError(
                None, None, "Index must be between 0 and "
                f"{self._num - 1} (currently index = {self._index}).")
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        n = self._inputs[0].cardinality_value()
        if n < 0:
            return n
        return n // self._num + (1 if n % self._num > self._index else 0)

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        """TF's order: skip to the next element of this shard, then take it; an error
        while skipping, or the taken element's, is raised and does not move the
        position on (so the shard's phase shifts after it, as TF's does)."""
        upstream = self._inputs[0].elements(ctx)
        position = 0
        while True:
            to_skip = (self._index - position) % self._num
            if to_skip:
                run = skip_run(upstream, to_skip)
                if type(run) is ErrorElement:
                    yield run
                    continue
                if run is None:
                    return
                position += run
            try:
                element = next(upstream)
            except StopIteration:
                return
            if type(element) is not ErrorElement:
                position += 1
            yield element


class UniqueDataset(Dataset):
    """unique(): each distinct scalar element once, in order of first appearance."""

    def __init__(self, source: Dataset) -> None:
        spec = source.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype not in (
                dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError("`dg.data.Dataset.unique` does not support type "
                            f"{getattr(spec, 'dtype', type(spec).__name__)} -- only "
                            "`dg.int32`, `dg.int64`, and `dg.string` are supported.")
        if spec.shape.rank not in (None, 0):
            raise TypeError("`tf.data.Dataset.unique` only supports inputs with a single "
                            f"scalar component, got {spec!r}.")
        super().__init__(spec, (source,))

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        seen = set()
        for element in self._inputs[0].elements(ctx):
            if type(element) is ErrorElement:
                yield element
                continue
            key = element[0].item()
            if key not in seen:
                seen.add(key)
                yield element


class AssertCardinalityDataset(Dataset):
    """assert_cardinality(n): the input, FailedPreconditionError if it has not n elements."""

    def __init__(self, source: Dataset, expected: Any) -> None:
        self._expected = as_int(expected, "expected_cardinality")
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        return self._expected

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        expected, count = self._expected, 0
        for element in self._inputs[0].elements(ctx):
            if type(element) is ErrorElement:   # not counted (as TF)
                yield element
                continue
            count += 1
            if expected != INFINITE_CARDINALITY and count > expected:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {_elements(expected)} "
                    f"but contained at least {_elements(count)}.")
            yield element
        if expected == INFINITE_CARDINALITY:
            raise errors.FailedPreconditionError(
                None, None, "Input dataset was expected to contain an infinite number of "
                f"elements but contained only {_elements(count)}.")
        if count < expected:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {_elements(expected)} but "
                f"contained only {_elements(count)}.")


def _elements(n: int) -> str:
    return f"{n} element" + ("" if n == 1 else "s")


class OptionsDataset(Dataset):
    """with_options(options): the input with these options on top of its own."""

    def __init__(self, source: Dataset, options: Options) -> None:
        super().__init__(source.element_spec, (source,))
        self.set_own_options(options)

    def cardinality_value(self) -> int:
        return self._inputs[0].cardinality_value()

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        return self._inputs[0].elements(ctx)


def assert_cardinality(expected_cardinality: Any) -> Any:
    """tf.data.experimental.assert_cardinality: a function for `Dataset.apply`."""
    return lambda dataset: AssertCardinalityDataset(dataset, expected_cardinality)


def cardinality(dataset: Dataset) -> Any:
    """tf.data.experimental.cardinality."""
    return dataset.cardinality()


__all__ = ["RepeatDataset", "TakeDataset", "SkipDataset", "ShardDataset", "UniqueDataset",
           "AssertCardinalityDataset", "OptionsDataset", "assert_cardinality", "cardinality"]
