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

from ..framework import nest
from ..framework.func_graph import FuncGraph, tracing
from .slicing import SpecTraceGraph
from ..framework.tensor_spec import TensorSpec
from . import structure
from .dataset import AUTOTUNE, Dataset, IterationContext
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
            from ..framework import errors
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than "
                                              "zero.")
        self._parallel = num_parallel_calls
        spec = dataset_function_spec(func, source.element_spec, "interleave")
        super().__init__(spec, (source,))

    def cycle_length(self, ctx: IterationContext) -> int:
        if self._cycle is None or self._cycle == AUTOTUNE:
            return ctx.options.pool_size()
        return max(1, int(self._cycle))

    def _open(self, element: tuple, ctx: IterationContext) -> Iterator[tuple]:
        value = structure.pack(self._inputs[0].element_spec, element)
        dataset = call_with_element(self._func, value)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                            f"{type(dataset)!r}.")
        elements = dataset.elements(ctx)
        if self._parallel is not None:
            return prefetched(elements, self._block, "interleave")
        return elements

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        inputs = self._inputs[0].elements(ctx)
        cycle = self.cycle_length(ctx)
        slots: List[Optional[Iterator[tuple]]] = []
        try:
            for element in inputs:
                slots.append(self._open(element, ctx))
                if len(slots) == cycle:
                    break
            index = 0
            while any(s is not None for s in slots):
                current = slots[index]
                if current is not None:
                    for _ in range(self._block):
                        try:
                            item = next(current)
                        except StopIteration:  # refilled; the turn passes on (as TF)
                            slots[index] = self._next_open(inputs, ctx)
                            break
                        yield item
                index = (index + 1) % len(slots)
        finally:
            for slot in slots:
                if slot is not None and hasattr(slot, "close"):
                    slot.close()

    def _next_open(self, inputs: Iterator[tuple], ctx: IterationContext
                   ) -> Optional[Iterator[tuple]]:
        for element in inputs:
            return self._open(element, ctx)
        return None


__all__ = ["InterleaveDataset", "SpecOnlyDataset", "TensorSpec"]
