"""map, filter and take_while: a traced function per element."""
from __future__ import annotations

from typing import Any, Callable, Iterator, Optional

from ..framework import errors
from .blocks import BlockReader, VectorizedFunction
from .dataset import AUTOTUNE, Dataset, ErrorElement, IterationContext, failed_element
from .functions import StructuredFunction, scalar_bool_check
from .threads import parallel_map


def _check_parallel_calls(value: Optional[int]) -> None:
    if value is not None and value != AUTOTUNE and value <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_parallel_calls must be greater than zero, got {value}.")


def errors_as_elements(run: Callable[[Any, Any], Any], resources: Any) -> Callable:
    """`run(element, resources)` giving an OpError back as an ErrorElement, and passing
    an ErrorElement from upstream on (for stages whose consumer handles them)."""
    def call(element: Any) -> Any:
        if type(element) is ErrorElement:
            return element
        try:
            return run(element, resources)
        except errors.OpError as error:
            return ErrorElement(error)
    return call


def _plain(run: Callable[[Any, Any], Any], resources: Any) -> Callable:
    return lambda element: run(element, resources)


class MapDataset(Dataset):
    """map(func): func's results; with num_parallel_calls, on a thread pool."""

    def __init__(self, source: Dataset, func: Callable, num_parallel_calls: Optional[int],
                 deterministic: Optional[bool]) -> None:
        _check_parallel_calls(num_parallel_calls)
        self.function = StructuredFunction(func, source.element_spec, "map")
        self._vectorized = VectorizedFunction(self.function)
        self._parallel = num_parallel_calls
        self._deterministic = deterministic
        super().__init__(self.function.output_spec, (source,))

    @property
    def source(self) -> Dataset:
        return self._inputs[0]

    def cardinality_value(self) -> int:
        return self.source.cardinality_value()

    def workers(self, ctx: IterationContext) -> int:
        """Threads this map runs on (1: in the consumer's thread)."""
        if self._parallel is None:
            return 1
        if self._parallel == AUTOTUNE:
            return ctx.options.pool_size()
        return min(int(self._parallel), max(ctx.options.pool_size(), int(self._parallel)))

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def vectorized(self, ctx: IterationContext) -> Any:
        """The function over blocks, or None (see blocks.py)."""
        if ctx.options.experimental_optimization.map_vectorization is False:
            return None
        return self._vectorized.get()

    def block_reader(self, ctx: IterationContext) -> Any:
        run = self.vectorized(ctx)
        reader = self.source.block_reader(ctx) if run is not None else None
        if reader is None:
            return None
        resources = ctx.resources
        return BlockReader(reader.count, lambda rows: run(reader.read(rows), resources))

    def blocks(self, ctx: IterationContext, size: int) -> Optional[Iterator[tuple]]:
        run = self.vectorized(ctx)
        upstream = self.source.blocks(ctx, size) if run is not None else None
        if upstream is None:
            return None
        call = (errors_as_elements if ctx.gives_error_elements(self) else _plain)(
            run, ctx.resources)
        workers = self.workers(ctx)
        if workers <= 1:
            return (call(block) for block in upstream)
        deterministic = self._deterministic if self._deterministic is not None \
            else ctx.options.is_deterministic()
        return parallel_map(upstream, call, workers, deterministic, "map")

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        call = (errors_as_elements if ctx.gives_error_elements(self) else _plain)(
            self.function, ctx.resources)
        upstream = self.source.elements(ctx)
        workers = self.workers(ctx)
        if workers <= 1:
            for element in upstream:
                yield call(element)
            return
        deterministic = self._deterministic if self._deterministic is not None \
            else ctx.options.is_deterministic()
        yield from parallel_map(upstream, call, workers, deterministic, "map")


class FilterDataset(Dataset):
    """filter(predicate): the elements for which predicate is True."""

    def __init__(self, source: Dataset, predicate: Callable) -> None:
        self.function = StructuredFunction(predicate, source.element_spec, "filter")
        scalar_bool_check(self.function, "predicate")
        super().__init__(source.element_spec, (source,))

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        predicate, resources = self.function, ctx.resources
        if not ctx.gives_error_elements(self):
            for element in self._inputs[0].elements(ctx):
                if predicate(element, resources)[0]:
                    yield element
            return
        test = errors_as_elements(predicate, resources)
        for element in self._inputs[0].elements(ctx):
            keep = test(element)
            if type(keep) is ErrorElement:
                yield keep
            elif keep[0]:
                yield element


class TakeWhileDataset(Dataset):
    """take_while(predicate): elements until predicate is first False."""

    def __init__(self, source: Dataset, predicate: Callable) -> None:
        self.function = StructuredFunction(predicate, source.element_spec, "take_while")
        scalar_bool_check(self.function, "predicate")
        super().__init__(source.element_spec, (source,))

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        predicate, resources = self.function, ctx.resources
        for element in self._inputs[0].elements(ctx):
            if type(element) is ErrorElement:
                yield element
                continue
            try:
                keep = predicate(element, resources)[0]
            except errors.OpError as error:
                yield failed_element(ctx, self, error)
                continue
            if not keep:
                return
            yield element


__all__ = ["MapDataset", "FilterDataset", "TakeWhileDataset"]
