"""cache(): the input's elements kept after the first complete iteration.

In memory (`filename=""`), or in files `<filename>.index` (the element count
and component dtypes, JSON) and `<filename>.data-00000-of-00001` (the arrays,
NumPy's .npy records one after another). A cache is only used once complete:
an iteration stopped early writes nothing, and the next one reads the input
again (TF discards a partial cache the same way).
"""
from __future__ import annotations

import json
import os
import threading
from typing import Iterator, List, Optional

import numpy as np

from ..framework import errors
from . import structure
from .dataset import Dataset, ErrorElement, IterationContext


class CacheDataset(Dataset):
    def __init__(self, source: Dataset, filename: str) -> None:
        if not isinstance(filename, str):
            filename = str(filename.numpy().decode()) if hasattr(filename, "numpy") \
                else str(filename)
        self._filename = filename
        self._memory: Optional[List[tuple]] = None
        self._lock = threading.Lock()
        super().__init__(source.element_spec, (source,))

    def cardinality_value(self) -> int:
        return self._inputs[0].cardinality_value()

    @property
    def index_path(self) -> str:
        return self._filename + ".index"

    @property
    def data_path(self) -> str:
        return self._filename + ".data-00000-of-00001"

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        cached = self._memory if not self._filename else self._read_files()
        if cached is not None:
            yield from cached
            return
        recorded: List[tuple] = []
        for element in self._inputs[0].elements(ctx):
            if type(element) is not ErrorElement:   # an element's error is not cached (TF)
                recorded.append(element)
            yield element
        if self._filename:
            self._write_files(recorded)
        else:
            with self._lock:
                self._memory = recorded

    def _read_files(self) -> Optional[List[tuple]]:
        if not os.path.exists(self.index_path):
            return None
        with open(self.index_path) as f:
            index = json.load(f)
        width = len(structure.flat_specs(self.element_spec))
        if index.get("components") != width:
            raise errors.InvalidArgumentError(
                None, None, f"The cache file {self._filename} holds elements of "
                f"{index.get('components')} components, the dataset has {width}.")
        out = []
        with open(self.data_path, "rb") as f:
            for _ in range(index["count"]):
                out.append(tuple(np.load(f, allow_pickle=False) for _ in range(width)))
        return out

    def _write_files(self, recorded: List[tuple]) -> None:
        folder = os.path.dirname(self._filename)
        if folder and not os.path.isdir(folder):
            raise errors.NotFoundError(None, None, f"Failed to create a directory: {folder}")
        temporary = self.data_path + ".tmp"
        with open(temporary, "wb") as f:
            for element in recorded:
                for array in element:
                    np.save(f, np.asarray(array), allow_pickle=False)
        os.replace(temporary, self.data_path)
        with open(self.index_path, "w") as f:
            json.dump({"count": len(recorded),
                       "components": len(structure.flat_specs(self.element_spec))}, f)


__all__ = ["CacheDataset"]
