"""Checkpoint files (docs/checkpoints.md): TensorFlow's tensor bundle, and the state file.

A checkpoint `<prefix>` is TF's bundle (formats.bundle): `<prefix>.index`
and `<prefix>.data-00000-of-00001`, the data written first and the index
last, each through a temporary file renamed into place, so a checkpoint
whose index exists is complete. An object-based checkpoint also holds its
object graph as TF's `_CHECKPOINTABLE_OBJECT_GRAPH` string tensor. Checkpoints
of duograd's former npz+JSON format are still read (training.checkpoint_npz).
A directory's `checkpoint` file is TF's CheckpointState in text format.
"""
from __future__ import annotations

import contextlib
import os
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..formats import bundle, checkpoint_state
from ..formats import object_graph as graph_codec
from ..formats.atomic import atomic_output
from ..formats.wire import WireError
from ..framework import dtypes
from . import checkpoint_npz

INDEX_SUFFIX = bundle.INDEX_SUFFIX
DATA_SUFFIX = bundle.data_path("")
OBJECT_GRAPH_KEY = graph_codec.OBJECT_GRAPH_KEY
STATE_FILENAME = "checkpoint"


def write_checkpoint(prefix: str, values: Dict[str, np.ndarray], dtype_names: Dict[str, str],
                     object_graph: Optional[list] = None) -> str:
    """Writes `values` (checkpoint key -> array, in data-file order) and the object graph
    (if any, last, as TF does) as checkpoint `prefix`; returns `prefix`."""
    tensors = [(key, value, dtypes.as_dtype(dtype_names[key])) for key, value in values.items()]
    if object_graph is not None:
        encoded = np.array(graph_codec.encode(object_graph), dtype=object)
        tensors.append((OBJECT_GRAPH_KEY, encoded, dtypes.string))
    return bundle.write_bundle(prefix, tensors)


def checkpoint_exists(prefix: str) -> bool:
    return os.path.isfile(prefix + INDEX_SUFFIX)


class CheckpointReader:
    """A written checkpoint (TF's format or the former npz one): keys, dtypes, shapes,
    values and object graph. TF's `CheckpointReader` methods are here too."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        if checkpoint_npz.is_npz_checkpoint(prefix):
            self._source: object = checkpoint_npz.NpzCheckpoint(prefix)
        else:
            self._source = bundle.BundleReader(prefix)
        self._object_graph: Optional[list] = None

    @property
    def object_graph(self) -> Optional[list]:
        """The saved object graph's nodes, or None for a name-based (Saver) checkpoint."""
        source = self._source
        if isinstance(source, checkpoint_npz.NpzCheckpoint):
            return source.object_graph
        assert isinstance(source, bundle.BundleReader)
        if self._object_graph is None and self.has_tensor(OBJECT_GRAPH_KEY):
            try:
                self._object_graph = graph_codec.decode(bytes(
                    self.get_tensor(OBJECT_GRAPH_KEY)[()]))
            except (WireError, TypeError, IndexError) as error:
                raise source.corrupt(f"its object graph is malformed ({error})") from None
        return self._object_graph

    def keys(self) -> List[str]:
        return self._source.keys()  # type: ignore[attr-defined]

    def has_tensor(self, key: str) -> bool:
        return key in self.keys()

    def dtype(self, key: str) -> dtypes.DType:
        return self._source.dtype(key)  # type: ignore[attr-defined]

    def shape(self, key: str) -> List[int]:
        return self._source.shape(key)  # type: ignore[attr-defined]

    def get_tensor(self, key: str) -> np.ndarray:
        """The stored value of `key`, with its saved dtype (a scalar as a 0-d array)."""
        return self._source.get_tensor(key)  # type: ignore[attr-defined]

    def verify(self, keys: List[str]) -> None:
        """Checks the stored checksums of `keys` (streamed; values are not kept)."""
        if isinstance(self._source, bundle.BundleReader):
            self._source.verify(keys)

    def variable_shapes(self) -> List[Tuple[str, List[int]]]:
        return [(key, self.shape(key)) for key in self.keys()]

    def get_variable_to_shape_map(self) -> Dict[str, List[int]]:
        return dict(self.variable_shapes())

    def get_variable_to_dtype_map(self) -> Dict[str, dtypes.DType]:
        return {key: self.dtype(key) for key in self.keys()}


# -- the directory's state file ------------------------------------------------------------

def state_path(directory: str, latest_filename: Optional[str] = None) -> str:
    return os.path.join(directory, latest_filename or STATE_FILENAME)


def read_state(directory: str, latest_filename: Optional[str] = None) -> Optional[dict]:
    """The directory's checkpoint state (paths made absolute), or None if there is none."""
    path = state_path(directory, latest_filename)
    try:
        with open(path, encoding="utf-8") as stream:
            state = checkpoint_state.parse(stream.read())
    except (FileNotFoundError, IsADirectoryError):
        return None
    except (ValueError, UnicodeDecodeError):
        return None

    def absolute(p: str) -> str:
        return p if os.path.isabs(p) else os.path.join(directory, p)
    state["model_checkpoint_path"] = absolute(state["model_checkpoint_path"])
    state["all_model_checkpoint_paths"] = [absolute(p) for p in
                                           state.get("all_model_checkpoint_paths", [])]
    return state


def write_state(directory: str, latest: str, all_paths: List[str],
                timestamps: Optional[List[float]] = None, last_preserved: Optional[float] = None,
                relative: bool = True, latest_filename: Optional[str] = None) -> None:
    """Atomically records `latest` and `all_paths` (oldest first) in the state file.

    As TF: with a relative `directory`, relative paths are recorded relative to it
    (`latest_checkpoint(directory)` joins them back); `relative` also records an
    absolute path inside `directory` by its base name."""
    def recorded(p: str) -> str:
        if not os.path.isabs(p) and not os.path.isabs(directory):
            return os.path.relpath(p, directory)
        if relative and os.path.dirname(os.path.abspath(p)) == os.path.abspath(directory):
            return os.path.basename(p)
        return p
    text = checkpoint_state.format_state(
        recorded(latest), [recorded(p) for p in all_paths],
        list(timestamps) if timestamps is not None else [time.time()] * len(all_paths),
        last_preserved)
    with atomic_output(state_path(directory, latest_filename), "w") as stream:
        stream.write(text)


def delete_checkpoint(prefix: str) -> None:
    """Removes a checkpoint's files, index first (so it is never half-listed as valid)."""
    for suffix in (INDEX_SUFFIX, DATA_SUFFIX, checkpoint_npz.DATA_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            os.remove(prefix + suffix)


__all__ = ["atomic_output", "write_checkpoint", "CheckpointReader", "checkpoint_exists"]
