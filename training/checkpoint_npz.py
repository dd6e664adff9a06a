"""Reading checkpoints in duograd's former format (npz values + JSON index), for a release.

Such a checkpoint `<prefix>` is `<prefix>.data.npz` (one array per key and a
`__nonce__`) and `<prefix>.index` (JSON: format "duograd-checkpoint", the
same nonce, each key's dtype and shape, and the object graph). New
checkpoints are written in TensorFlow's format (formats.bundle); see
docs/checkpoints.md.
"""
from __future__ import annotations

import json
import zipfile
from typing import Dict, List, Optional

import numpy as np

from ..framework import dtypes
from ..framework.errors import DataLossError, NotFoundError

FORMAT = "duograd-checkpoint"
INDEX_SUFFIX = ".index"
DATA_SUFFIX = ".data.npz"
NONCE_KEY = "__nonce__"


def is_npz_checkpoint(prefix: str) -> bool:
    """Whether `<prefix>.index` is a JSON index of the former format."""
    try:
        with open(prefix + INDEX_SUFFIX, "rb") as stream:
            return stream.read(1) == b"{"
    except OSError:
        return False


class NpzCheckpoint:
    """A checkpoint of the former format: index, keys, dtypes, shapes and values."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        try:
            with open(prefix + INDEX_SUFFIX, encoding="utf-8") as stream:
                self.index = json.load(stream)
        except FileNotFoundError:
            raise NotFoundError(None, None, f"Failed to find a checkpoint at {prefix}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise _corrupt(prefix, f"unreadable index ({error})") from None
        if not isinstance(self.index, dict) or self.index.get("format") != FORMAT:
            raise _corrupt(prefix, "not a duograd checkpoint index")
        try:
            with np.load(prefix + DATA_SUFFIX, allow_pickle=False) as data:
                self._arrays: Dict[str, np.ndarray] = {key: data[key] for key in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
            raise _corrupt(prefix, f"unreadable data file ({error})") from None
        if str(self._arrays.pop(NONCE_KEY, "")) != self.index.get("nonce"):
            raise _corrupt(prefix, "the data file belongs to another save")

    @property
    def object_graph(self) -> Optional[list]:
        return self.index.get("object_graph")

    def keys(self) -> List[str]:
        return sorted(self.index["tensors"])

    def dtype(self, key: str) -> dtypes.DType:
        return dtypes.as_dtype(self.index["tensors"][key]["dtype"])

    def shape(self, key: str) -> List[int]:
        return list(self.index["tensors"][key]["shape"])

    def get_tensor(self, key: str) -> np.ndarray:
        if key not in self._arrays:
            raise NotFoundError(None, None, f"Key {key} not found in checkpoint {self.prefix}")
        array = self._arrays[key]
        dtype = self.dtype(key)
        if dtype.name == "string":
            out = np.empty(array.shape, dtype=object)
            out.ravel()[:] = list(array.ravel())
            return out
        return array.astype(dtype.as_numpy_dtype, copy=False)


def _corrupt(prefix: str, why: str) -> Exception:
    return DataLossError(None, None, f"Checkpoint {prefix} is corrupt: {why}")
