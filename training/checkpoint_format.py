"""The checkpoint file format (docs/checkpoints.md) and its atomic writes.

A checkpoint `<prefix>` is two files:
- `<prefix>.data.npz`: the values, one array per checkpoint key, plus the
  array `__nonce__`;
- `<prefix>.index`: JSON with the format version, the same nonce, each key's
  dtype and shape, and (object-based checkpoints) the object graph.
The data file is written first and the index last, each through a temporary
file moved into place with `os.replace`, so a checkpoint whose index exists
is complete; the nonce catches an index paired with another save's data.
A directory's `checkpoint` file (JSON) lists its checkpoints, newest last.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import uuid
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ..framework import dtypes
from ..framework.errors import DataLossError, NotFoundError

FORMAT = "duograd-checkpoint"
VERSION = 1
INDEX_SUFFIX = ".index"
DATA_SUFFIX = ".data.npz"
NONCE_KEY = "__nonce__"
STATE_FILENAME = "checkpoint"


@contextlib.contextmanager
def atomic_output(path: str, mode: str = "wb") -> Iterator[Any]:
    """A file object whose contents appear at `path` only if the block completes."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                                    dir=directory)
    try:
        with os.fdopen(handle, mode) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temp)
        raise


def write_checkpoint(prefix: str, values: Dict[str, np.ndarray], dtype_names: Dict[str, str],
                     object_graph: Optional[list] = None) -> str:
    """Writes `values` (checkpoint key -> array) as checkpoint `prefix`; returns `prefix`."""
    nonce = uuid.uuid4().hex
    arrays = {key: _storable(array) for key, array in values.items()}
    with atomic_output(prefix + DATA_SUFFIX) as stream:
        np.savez(stream, **{NONCE_KEY: np.array(nonce)}, **arrays)  # type: ignore[arg-type]  # numpy's stub checks **arrays against its bool keyword too
    index = {
        "format": FORMAT,
        "version": VERSION,
        "nonce": nonce,
        "tensors": {key: {"dtype": dtype_names[key], "shape": list(np.shape(array))}
                    for key, array in values.items()},
        "object_graph": object_graph,
    }
    with atomic_output(prefix + INDEX_SUFFIX, "w") as stream:
        json.dump(index, stream, indent=1)
    return prefix


def _storable(array: Any) -> np.ndarray:
    """Strings (object arrays) are stored as bytes so no pickling is ever needed."""
    array = np.asarray(array)
    if array.dtype == object:
        return np.array([x if isinstance(x, bytes) else str(x).encode() for x in array.ravel()],
                        dtype=bytes).reshape(array.shape)
    return array


def checkpoint_exists(prefix: str) -> bool:
    return os.path.isfile(prefix + INDEX_SUFFIX)


class CheckpointReader:
    """A written checkpoint: its index (keys, dtypes, shapes, object graph) and values."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        try:
            with open(prefix + INDEX_SUFFIX, encoding="utf-8") as stream:
                self.index = json.load(stream)
        except FileNotFoundError:
            raise NotFoundError(None, None, f"Failed to find a checkpoint at {prefix} (no file "
                                f"{prefix + INDEX_SUFFIX}); you may be missing the checkpoint "
                                "number suffix, e.g. '-1'.") from None
        except json.JSONDecodeError as error:
            raise _corrupt(prefix, f"unreadable index ({error})") from None
        if self.index.get("format") != FORMAT:
            raise _corrupt(prefix, "not a duograd checkpoint index")
        try:
            with np.load(prefix + DATA_SUFFIX, allow_pickle=False) as data:
                self._arrays = {key: data[key] for key in data.files}
        except (OSError, ValueError) as error:
            raise _corrupt(prefix, f"unreadable data file ({error})") from None
        if str(self._arrays.pop(NONCE_KEY, "")) != self.index["nonce"]:
            raise _corrupt(prefix, "the data file belongs to another save")

    @property
    def object_graph(self) -> Optional[list]:
        return self.index.get("object_graph")

    def has_tensor(self, key: str) -> bool:
        return key in self.index["tensors"]

    def dtype(self, key: str) -> dtypes.DType:
        return dtypes.as_dtype(self.index["tensors"][key]["dtype"])

    def shape(self, key: str) -> List[int]:
        return list(self.index["tensors"][key]["shape"])

    def get_tensor(self, key: str) -> np.ndarray:
        """The stored value of `key`, with its saved dtype."""
        if key not in self._arrays:
            raise NotFoundError(None, None, f"Key {key} not found in checkpoint {self.prefix}")
        array = self._arrays[key]
        dtype = self.dtype(key)
        if dtype.name == "string":
            out = np.empty(array.shape, dtype=object)
            out.ravel()[:] = list(array.ravel())
            return out
        return array.astype(dtype.as_numpy_dtype, copy=False)

    def variable_shapes(self) -> List[Tuple[str, List[int]]]:
        return sorted((key, self.shape(key)) for key in self.index["tensors"])


def _corrupt(prefix: str, why: str) -> Exception:
    return DataLossError(None, None, f"Checkpoint {prefix} is corrupt: {why}")


# -- the directory's state file ------------------------------------------------------------

def state_path(directory: str, latest_filename: Optional[str] = None) -> str:
    return os.path.join(directory, latest_filename or STATE_FILENAME)


def read_state(directory: str, latest_filename: Optional[str] = None) -> Optional[dict]:
    """The directory's checkpoint state (paths made absolute), or None if there is none."""
    path = state_path(directory, latest_filename)
    try:
        with open(path, encoding="utf-8") as stream:
            state = json.load(stream)
    except FileNotFoundError:
        return None
    except json.JSONDecodeError:
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
    state = {
        "model_checkpoint_path": recorded(latest),
        "all_model_checkpoint_paths": [recorded(p) for p in all_paths],
        "all_model_checkpoint_timestamps": list(timestamps or [time.time()] * len(all_paths)),
        "last_preserved_timestamp": last_preserved if last_preserved is not None else 0.0,
    }
    with atomic_output(state_path(directory, latest_filename), "w") as stream:
        json.dump(state, stream, indent=1)


def delete_checkpoint(prefix: str) -> None:
    """Removes a checkpoint's files, index first (so it is never half-listed as valid)."""
    for suffix in (INDEX_SUFFIX, DATA_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            os.remove(prefix + suffix)
