"""shuffle: TensorFlow's buffer algorithm under a seeded generator.

A buffer of `buffer_size` elements is filled; each output is a uniformly
chosen buffer slot, refilled from the input; at the end the buffer comes out
in a random order. The order depends only on the seeds and the input's length:
the same (global seed, op seed) gives the same order run after run, and with
`reshuffle_each_iteration` each iteration (epoch) draws from the next stream of
that sequence. Over a source with random access the same algorithm runs on row
indices and the rows are gathered a batch at a time (blocks.py), in the same
order. TF's exact order (its Philox stream) is not reproduced.
"""
from __future__ import annotations

import collections
import itertools
import threading
from typing import Any, Iterator, Optional

import numpy as np

from ..framework import errors
from ..ops.random.random_ops import get_seed
from .dataset import Dataset, ErrorElement, IterationContext
from .slicing import as_int

_DRAWS = 1024   # random slots drawn per NumPy call


def buffer_shuffle(items: Iterator[Any], size: int, rng: np.random.Generator) -> Iterator[Any]:
    """`items` shuffled through a buffer of `size` (the same draws for any item type)."""
    buffer = list(itertools.islice(items, size))
    slots: list = []
    position = 0
    for item in items:
        if position == len(slots):
            slots = (rng.random(_DRAWS) * len(buffer)).astype(np.int64).tolist()
            position = 0
        slot = slots[position]
        position += 1
        yield buffer[slot]
        buffer[slot] = item
    for slot in rng.permutation(len(buffer)).tolist():
        yield buffer[slot]


def shuffled_order(count: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """The order `buffer_shuffle(iter(range(count)), size, rng)` gives, vectorized: the
    same random draws; each output of the streaming phase is the index last written
    to its slot (the item that arrived then), or the slot's first item."""
    size = min(size, count)
    steps = count - size
    if steps > 0:
        chunks = -(-steps // _DRAWS)
        slots = np.concatenate([(rng.random(_DRAWS) * size).astype(np.int64)
                                for _ in range(chunks)])[:steps]
        keys = slots.astype(np.uint16) if size <= 65535 else slots   # (radix sort)
        by_slot = np.argsort(keys, kind="stable")         # times grouped by slot, in order
        sorted_slots = slots[by_slot]
        starts = np.ones(steps, dtype=bool)               # first time of its slot
        starts[1:] = sorted_slots[1:] != sorted_slots[:-1]
        previous = np.empty(steps, dtype=np.int64)        # the last earlier time, same slot
        previous[1:] = by_slot[:-1]
        in_order = np.where(starts, sorted_slots, size + previous)
        out = np.empty(steps, dtype=np.int64)
        out[by_slot] = in_order
        ends = np.ones(steps, dtype=bool)                 # last time of its slot
        ends[:-1] = starts[1:]
        last = np.arange(size, dtype=np.int64)            # the buffer after streaming
        last[sorted_slots[ends]] = size + by_slot[ends]
    else:
        out = np.empty(0, dtype=np.int64)
        last = np.arange(size, dtype=np.int64)
    return np.concatenate([out, last[rng.permutation(size)]])


def _errors_unshuffled(upstream: Iterator[Any], shuffle: Any, size: int) -> Iterator[Any]:
    """`shuffle` of the elements of `upstream` that did not raise; an ErrorElement is
    not buffered but given out where TF raises it: at once while the buffer fills,
    and after the next element once it streams (TF reads the input that replaces an
    element on the call after the one that gave the element out; buffer_shuffle
    reads it before)."""
    failed: collections.deque = collections.deque()   # [error, outputs to wait]
    consumed = 0

    def clean() -> Iterator[Any]:
        nonlocal consumed
        for element in upstream:
            if type(element) is ErrorElement:
                failed.append([element, 0 if consumed < size else 1])
            else:
                consumed += 1
                yield element

    for element in shuffle(clean()):
        while failed and failed[0][1] == 0:
            yield failed.popleft()[0]
        yield element
        for entry in failed:
            entry[1] = 0
    while failed:
        yield failed.popleft()[0]


class ShuffleDataset(Dataset):
    """shuffle(buffer_size, seed, reshuffle_each_iteration)."""

    def __init__(self, source: Dataset, buffer_size: Any, seed: Optional[int],
                 reshuffle_each_iteration: bool) -> None:
        self._buffer_size = as_int(buffer_size, "buffer_size")
        if self._buffer_size <= 0 and self._buffer_size != -1:
            raise errors.InvalidArgumentError(None, None,
                                              "buffer_size must be greater than zero.")
        global_seed, op_seed = get_seed(None if seed is None else as_int(seed, "seed"))
        if global_seed is None or op_seed is None:  # unseeded: a fresh seed, fixed here
            global_seed, op_seed = int(np.random.SeedSequence().generate_state(1)[0]), 0
        self._seeds = (int(global_seed), int(op_seed))
        self._reshuffle = bool(reshuffle_each_iteration)
        self._epochs = itertools.count()
        self._lock = threading.Lock()
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        return self._inputs[0].cardinality_value()

    def epoch_generator(self) -> np.random.Generator:
        """The random stream of the next iteration."""
        with self._lock:
            epoch = next(self._epochs) if self._reshuffle else 0
        return np.random.Generator(np.random.PCG64([self._seeds[0], self._seeds[1], epoch]))

    def _size(self) -> int:
        if self._buffer_size == -1:  # AUTOTUNE: a buffer of the whole input
            return max(1, self._inputs[0].cardinality_value())
        return self._buffer_size

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        rng = self.epoch_generator()
        upstream = self._inputs[0].elements(ctx)
        if not ctx.gives_error_elements(self):
            return buffer_shuffle(upstream, self._size(), rng)
        size = self._size()
        return _errors_unshuffled(upstream, lambda clean: buffer_shuffle(clean, size, rng),
                                  size)

    def blocks(self, ctx: IterationContext, size: int) -> Optional[Iterator[tuple]]:
        reader = self._inputs[0].block_reader(ctx)
        if reader is None:
            return None
        return self._gathered(reader, size)

    def _gathered(self, reader: Any, size: int) -> Iterator[tuple]:
        rng = self.epoch_generator()
        order = shuffled_order(reader.count, self._size(), rng)
        for start in range(0, reader.count, size):
            yield reader.read(order[start:start + size])


__all__ = ["ShuffleDataset", "buffer_shuffle", "shuffled_order"]
