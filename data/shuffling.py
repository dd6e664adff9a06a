"""shuffle: TensorFlow's buffer algorithm under a seeded generator.

A buffer of `buffer_size` elements is filled; each output is a uniformly
chosen buffer slot, refilled from the input. The order depends only on the
seeds: the same (global seed, op seed) gives the same order run after run,
and with `reshuffle_each_iteration` each iteration (epoch) of the dataset
draws from the next stream of that sequence. TF's exact order (its Philox
stream) is not reproduced.
"""
from __future__ import annotations

import itertools
import threading
from typing import Any, Iterator, Optional

import numpy as np

from ..ops.random_ops import get_seed
from .dataset import Dataset, IterationContext
from .slicing import as_int


class ShuffleDataset(Dataset):
    """shuffle(buffer_size, seed, reshuffle_each_iteration)."""

    def __init__(self, source: Dataset, buffer_size: Any, seed: Optional[int],
                 reshuffle_each_iteration: bool) -> None:
        from ..framework import errors
        self._buffer_size = as_int(buffer_size, "buffer_size")
        if self._buffer_size <= 0 and self._buffer_size != -1:
            raise errors.InvalidArgumentError(None, None,
                                              "buffer_size must be greater than zero.")
        seed_pair = get_seed(None if seed is None else as_int(seed, "seed"))
        if seed_pair == (None, None):  # unseeded: a fresh seed, fixed for this dataset
            seed_pair = (int(np.random.SeedSequence().entropy % (2 ** 63)), 0)
        self._seeds = seed_pair
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

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        rng = self.epoch_generator()
        size = self._buffer_size
        upstream = self._inputs[0].elements(ctx)
        if size == -1:  # AUTOTUNE: a buffer of the whole input, as a shuffle of all
            size = max(1, self._inputs[0].cardinality_value())
        buffer = list(itertools.islice(upstream, size))
        # random slots drawn in blocks (one NumPy call per block, not per element)
        draws = iter(())
        block = 1024
        for element in upstream:
            try:
                u = next(draws)
            except StopIteration:
                draws = iter(rng.random(block).tolist())
                u = next(draws)
            slot = int(u * len(buffer))
            yield buffer[slot]
            buffer[slot] = element
        while buffer:
            slot = int(rng.integers(len(buffer)))
            buffer[slot], buffer[-1] = buffer[-1], buffer[slot]
            yield buffer.pop()


__all__ = ["ShuffleDataset"]
