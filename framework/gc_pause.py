"""Pausing Python's cyclic garbage collector around bulk graph construction.

Building thousands of ops allocates millions of objects that all stay alive
(the graph), so every collection walks an ever larger heap for nothing: the
gradients() call on a 20,000-op chain spent over 40% of its time there and
grew superlinearly. Reference counting still frees everything as usual.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Disables the cyclic collector inside the block (if it was enabled)."""
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
