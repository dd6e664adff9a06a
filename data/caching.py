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
from typing import Any, Iterator, List, Optional

import numpy as np

from ..framework import dtypes, errors
from . import structure
from .dataset import Dataset, ErrorElement, IterationContext


def _write_array(f: Any, array: np.ndarray) -> None:
    """One component as .npy records: a string tensor (an object array of bytes) as
    its rank, shape and each string's length (int64), then all its bytes (uint8),
    without pickling; any other array as itself."""
    if array.dtype != object:
        np.save(f, array, allow_pickle=False)
        return
    strings = [bytes(s) for s in array.ravel().tolist()]
    header = (array.ndim,) + array.shape + tuple(len(s) for s in strings)
    np.save(f, np.array(header, np.int64), allow_pickle=False)
    np.save(f, np.frombuffer(b"".join(strings), np.uint8), allow_pickle=False)


def _read_array(f: Any, is_string: bool) -> np.ndarray:
    if not is_string:
        return np.load(f, allow_pickle=False)
    header = np.load(f, allow_pickle=False).tolist()
    data = np.load(f, allow_pickle=False).tobytes()
    ndim = header[0]
    shape, lengths = tuple(header[1:1 + ndim]), header[1 + ndim:]
    out = np.empty(len(lengths), dtype=object)
    start = 0
    for k, length in enumerate(lengths):
        out[k] = data[start:start + length]
        start += length
    return out.reshape(shape)


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
        strings = [spec.dtype == dtypes.string for spec in structure.flat_specs(self.element_spec)]
        out = []
        with open(self.data_path, "rb") as f:
            for _ in range(index["count"]):
                out.append(tuple(_read_array(f, s) for s in strings))
        return out

    def _write_files(self, recorded: List[tuple]) -> None:
        folder = os.path.dirname(self._filename)
        if folder and not os.path.isdir(folder):
            raise errors.NotFoundError(None, None, f"Failed to create a directory: {folder}")
        temporary = self.data_path + ".tmp"
        with open(temporary, "wb") as f:
            for element in recorded:
                for array in element:
                    _write_array(f, np.asarray(array))
        os.replace(temporary, self.data_path)
        with open(self.index_path, "w") as f:
            json.dump({"count": len(recorded),
                       "components": len(structure.flat_specs(self.element_spec))}, f)


__all__ = ["CacheDataset"]
