"""flat_map and interleave: a dataset per input element, their elements merged.

The function returns a dataset, so it cannot be one graph here: it is traced
once (with placeholders) to learn the element_spec of what it returns, then
called eagerly on each input element to build that element's dataset. The
merge follows TensorFlow's order: `cycle_length` datasets open at once, taken
`block_length` elements at a time, round robin, an exhausted one replaced by
the next input element's dataset. With `num_parallel_calls` the open datasets
produce ahead on threads (each into a buffer of `block_length`), in the same
order.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional

from ..framework import errors, nest
from ..framework.func_graph import FuncGraph, tracing
from .slicing import SpecTraceGraph
from . import structure
from .dataset import (AUTOTUNE, Dataset, ErrorElement, IterationContext, error_aware_datasets,
                      failed_element)
from .functions import call_with_element
from .threads import prefetched


class SpecOnlyDataset(Dataset):
    """A dataset that has a spec but no elements: stands for a `window` element
    while a function of it is traced."""

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        raise RuntimeError("A traced placeholder dataset cannot be iterated.")


def _placeholder_element(spec: Any, graph: FuncGraph) -> Any:
    leaves: List[Any] = []
    for leaf in structure.flat_specs(spec):
        if isinstance(leaf, structure.DatasetSpec):
            leaves.append(SpecOnlyDataset(leaf.element_spec))
        else:
            leaves.append(graph.add_input(leaf.dtype, leaf.shape, "args"))
    return leaves[0] if not structure.is_structure(spec) else nest.pack_sequence_as(spec, leaves)


def dataset_function_spec(func: Callable, input_spec: Any, what: str) -> Any:
    """The element_spec of the datasets `func` returns (traced once with placeholders)."""
    graph = SpecTraceGraph(f"{what}_trace")
    with tracing(graph):
        result = call_with_element(func, _placeholder_element(input_spec, graph))
    if not isinstance(result, Dataset):
        raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                        f"{type(result)!r}.")
    return result.element_spec


class InterleaveDataset(Dataset):
    """interleave / flat_map (cycle_length=block_length=1)."""

    def __init__(self, source: Dataset, func: Callable, cycle_length: Optional[int],
                 block_length: Optional[int], num_parallel_calls: Optional[int],
                 deterministic: Optional[bool]) -> None:
        if not callable(func):
            raise TypeError(f"`map_func` must be callable, got {func!r}")
        self._func = func
        self._cycle = cycle_length
        self._block = 1 if block_length is None else int(block_length)
        if self._block <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than "
                                              "zero.")
        self._parallel = num_parallel_calls
        spec = dataset_function_spec(func, source.element_spec, "interleave")
        super().__init__(spec, (source,))

    def cycle_length(self, ctx: IterationContext) -> int:
        if self._cycle is None or self._cycle == AUTOTUNE:
            return ctx.options.pool_size()
        return max(1, int(self._cycle))

    def _open(self, element: tuple, ctx: IterationContext) -> Iterator[Any]:
        value = structure.pack(self._inputs[0].element_spec, element)
        dataset = call_with_element(self._func, value)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                            f"{type(dataset)!r}.")
        if ctx.gives_error_elements(self):
            # the element's dataset was made now: its map/filter stages learn here that
            # their errors travel as ErrorElements (the caller handles them)
            ctx = ctx.with_error_aware(error_aware_datasets(dataset, True))
        elements = dataset.elements(ctx)
        if self._parallel is not None:
            return prefetched(elements, self._block, "interleave")
        return elements

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        """TF's cycle: `cycle_length` slots visited in turn, `block_length` elements
        from each; an empty slot opens the next input element's dataset when its turn
        comes; an ended one passes the turn on. An element's error is raised in its
        place; it does not count in the block (the slot goes on), except with
        num_parallel_calls, where it takes an element's place (as TF's parallel
        interleave). An input element's error is raised when a slot would open it."""
        inputs = self._inputs[0].elements(ctx)
        cycle = self.cycle_length(ctx)
        block, error_counts = self._block, self._parallel is not None
        slots: List[Optional[Iterator[Any]]] = [None] * cycle
        input_ended = False
        index = produced = 0
        try:
            while not input_ended or any(s is not None for s in slots):
                current = slots[index]
                if current is None:
                    if input_ended:
                        index, produced = (index + 1) % cycle, 0
                        continue
                    try:
                        element = next(inputs)
                    except StopIteration:
                        input_ended = True
                        continue
                    if type(element) is ErrorElement:
                        yield element
                        continue
                    try:
                        slots[index] = self._open(element, ctx)
                    except errors.OpError as error:   # the function's, at this element
                        yield failed_element(ctx, self, error)
                    continue
                try:
                    item = next(current)
                except StopIteration:
                    slots[index] = None
                    index, produced = (index + 1) % cycle, 0
                    continue
                if type(item) is not ErrorElement or error_counts:
                    produced += 1
                    if produced == block:
                        index, produced = (index + 1) % cycle, 0
                yield item
        finally:
            for slot in slots:
                if slot is not None and hasattr(slot, "close"):
                    slot.close()


__all__ = ["InterleaveDataset", "SpecOnlyDataset"]
