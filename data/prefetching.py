"""prefetch(buffer_size): the input produced ahead on a background thread."""
from __future__ import annotations

from typing import Any, Iterator

from ..framework import errors
from .dataset import AUTOTUNE, Dataset, IterationContext
from .slicing import as_int
from .threads import prefetched

AUTOTUNE_BUFFER = 2  # what prefetch(AUTOTUNE) buffers (documented in docs/data.md)


class PrefetchDataset(Dataset):
    """prefetch: at most `buffer_size` elements wait in the buffer (AUTOTUNE: 2)."""

    def __init__(self, source: Dataset, buffer_size: Any) -> None:
        size = as_int(buffer_size, "buffer_size")
        if size < 0 and size != AUTOTUNE:
            raise errors.InvalidArgumentError(
                None, None, f"buffer_size must be >= 0 or AUTOTUNE (-1), got {size}.")
        self.buffer_size = AUTOTUNE_BUFFER if size == AUTOTUNE else size
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        return self._inputs[0].cardinality_value()

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        upstream = self._inputs[0].elements(ctx)
        if self.buffer_size == 0:
            return upstream
        return prefetched(upstream, self.buffer_size, "prefetch")


__all__ = ["PrefetchDataset", "AUTOTUNE_BUFFER"]
