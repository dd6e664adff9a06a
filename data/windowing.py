"""window(size, shift, stride, drop_remainder): elements that are datasets."""
from __future__ import annotations

import collections
from typing import Any, Iterator, Optional

from ..framework import errors
from . import structure
from .dataset import INFINITE_CARDINALITY, Dataset, ErrorElement, IterationContext
from .slicing import as_int


class WindowSource(Dataset):
    """One window: a finite dataset of the given flat elements."""

    def __init__(self, element_spec: Any, items: list) -> None:
        self._items = items
        super().__init__(element_spec)

    def cardinality_value(self) -> int:
        return len(self._items)

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        yield from self._items


class WindowDataset(Dataset):
    """Windows of `size` elements every `shift` inputs, `stride` apart inside."""

    def __init__(self, source: Dataset, size: Any, shift: Optional[Any], stride: Any,
                 drop_remainder: bool) -> None:
        self._size = as_int(size, "size")
        self._shift = self._size if shift is None else as_int(shift, "shift")
        self._stride = as_int(stride, "stride")
        for what, value in (("size", self._size), ("shift", self._shift),
                            ("stride", self._stride)):
            if value <= 0:
                raise errors.InvalidArgumentError(None, None,
                                                  f"Window {what} must be greater than zero, "
                                                  f"but got {value}.")
        self._drop = bool(drop_remainder)
        spec = structure.map_specs(structure.DatasetSpec, source.element_spec)
        super().__init__(spec, (source,))

    def cardinality_value(self) -> int:
        n = self._inputs[0].cardinality_value()
        if n < 0:
            return n if n == INFINITE_CARDINALITY else n
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        span = (self._size - 1) * self._stride + 1
        buffer: Any = collections.deque()
        upstream = self._inputs[0].elements(ctx)
        exhausted = False
        specs = structure.flat_specs(self._inputs[0].element_spec)
        while True:
            while not exhausted and len(buffer) < span:
                try:
                    buffer.append(next(upstream))
                except StopIteration:
                    exhausted = True
            if not buffer:
                return
            picked = list(buffer)[::self._stride][:self._size]
            if self._drop and len(picked) < self._size:
                return
            failed = next((e for e in picked if type(e) is ErrorElement), None)
            if failed is not None:   # a window holding an element's error is that error
                yield failed
            else:
                yield tuple(WindowSource(spec, [(e[k],) for e in picked])
                            for k, spec in enumerate(specs))
            for _ in range(self._shift):
                if buffer:
                    buffer.popleft()
                elif not exhausted:
                    try:
                        next(upstream)
                    except StopIteration:
                        exhausted = True
            if exhausted and not buffer:
                return


__all__ = ["WindowDataset", "WindowSource"]
