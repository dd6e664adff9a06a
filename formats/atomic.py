"""Files that appear whole or not at all: written to a temporary file, then renamed."""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Any, Iterator


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
