"""zip and concatenate: datasets combined element by element or end to end."""
from __future__ import annotations

from typing import Any, Iterator

from ..framework import nest
from .dataset import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, ErrorElement,
                      IterationContext)
from . import structure


class ZipDataset(Dataset):
    """zip(datasets): tuples (or dicts, nests) of the datasets' elements, to the shortest."""

    def __init__(self, datasets: Any) -> None:
        if isinstance(datasets, list) or (isinstance(datasets, tuple) and any(
                isinstance(d, list) for d in datasets)):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) "
                            "structures of `dg.data.Dataset` objects. Python `list` is not "
                            "supported and you should use `tuple` instead.")
        members = nest.flatten(datasets)
        for member in members:
            if not isinstance(member, Dataset):
                raise TypeError(f"Invalid `datasets`. `datasets` is expected to be a (nested) "
                                f"structure of `dg.data.Dataset` objects. Encountered object "
                                f"with type {type(member)}.")
        spec = nest.pack_sequence_as(datasets, [m.element_spec for m in members]) \
            if nest.is_nested(datasets) else members[0].element_spec
        self._widths = [len(structure.flat_specs(m.element_spec)) for m in members]
        super().__init__(spec, tuple(members))

    def cardinality_value(self) -> int:
        sizes = [d.cardinality_value() for d in self._inputs]
        finite = [n for n in sizes if n >= 0]
        if finite:
            return min(finite)
        return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in sizes else INFINITE_CARDINALITY

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        """Each input's next element, in order. An input's error (an ErrorElement) is
        the zipped element's result, after the other inputs have given theirs (they
        move on too); an input's end ends the zip at once, the error of an earlier
        input in that round first (as TF)."""
        iterators = [d.elements(ctx) for d in self._inputs]
        try:
            while True:
                parts: tuple = ()
                failed = None
                for iterator in iterators:
                    try:
                        part = next(iterator)
                    except StopIteration:
                        if failed is not None:
                            yield failed
                        return
                    if type(part) is ErrorElement:
                        failed = failed or part
                    elif failed is None:
                        parts += part
                yield parts if failed is None else failed
        finally:
            for iterator in iterators:
                iterator.close()


class ConcatenateDataset(Dataset):
    """a.concatenate(b): a's elements, then b's (specs must be compatible)."""

    def __init__(self, first: Dataset, second: Dataset) -> None:
        if not isinstance(second, Dataset):
            raise TypeError(f"`dataset` must be a `tf.data.Dataset`, got {type(second)}")
        a, b = first.element_spec, second.element_spec
        a_flat, b_flat = structure.flat_specs(a), structure.flat_specs(b)
        if not structure.same_structure(a, b) or len(a_flat) != len(b_flat) or any(
                x.dtype != y.dtype for x, y in zip(a_flat, b_flat, strict=True)):
            raise TypeError(f"Incompatible dataset elements:\n  {a!r} vs. \n  {b!r}")
        merged = [structure.most_specific_compatible(x, y)
                  for x, y in zip(a_flat, b_flat, strict=True)]
        spec = nest.pack_sequence_as(a, merged) if structure.is_structure(a) else merged[0]
        super().__init__(spec, (first, second))

    def cardinality_value(self) -> int:
        x, y = (d.cardinality_value() for d in self._inputs)
        if INFINITE_CARDINALITY in (x, y):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (x, y):
            return UNKNOWN_CARDINALITY
        return x + y

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        for dataset in self._inputs:
            yield from dataset.elements(ctx)


__all__ = ["ZipDataset", "ConcatenateDataset"]
