"""Holding off Python's cyclic garbage collector while tapes record and backprop.

Why: recording a tape and building a graph allocate many objects that all
stay alive until the tape or graph is dropped, so every automatic collection
walks an ever larger heap for nothing. On a 50,000-op eager chain the
collector was a quarter of the time; on `gradients()` of a 20,000-op graph
over 40% and super-linear. Reference counting still frees everything as
usual; only reference cycles wait.

The policy (docs/performance.md):
- Holds are counted process-wide under a lock (the collector is global):
  the first hold disables automatic collection, the last release restores
  it, and only if it was enabled at the first hold (a program that turned
  the collector off keeps it off; `gc.collect()` always works).
- A hold is a `GCHold` token, released at most once: `GradientTape.__exit__`,
  the end of `tape.gradient`, the end of `gradients()` and every exception
  path release theirs; a tape abandoned while recording (entered and never
  exited) releases its hold when the tape object is freed (a finalizer).
- Watchdog: if holds have been continuously active for longer than
  `WATCHDOG_SECONDS` (an abandoned tape inside a reference cycle cannot be
  freed while the collector is off), the next hold taken runs one full
  collection first, which frees such tapes and so releases their holds.
"""
from __future__ import annotations

import contextlib
import gc
import threading
import time
from typing import Iterator

WATCHDOG_SECONDS = 5.0


class _Holds:
    """The process-wide count of holds and what to restore at the last release."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.disabled_by_us = False
        self.since = 0.0  # monotonic time of the 0 -> 1 transition


_holds = _Holds()


class GCHold:
    """One counted hold on the cyclic collector; `release()` is idempotent."""

    __slots__ = ("_held", "__weakref__")

    def __init__(self) -> None:
        holds = _holds
        collect = False
        with holds.lock:
            if holds.count == 0:
                holds.since = time.monotonic()
                holds.disabled_by_us = gc.isenabled()
                if holds.disabled_by_us:
                    gc.disable()
            elif time.monotonic() - holds.since > WATCHDOG_SECONDS:
                holds.since = time.monotonic()
                collect = True
            holds.count += 1
        self._held = True
        if collect:  # outside the lock: finalizers of freed tapes release their holds
            gc.collect()

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        holds = _holds
        with holds.lock:
            holds.count -= 1
            if holds.count == 0 and holds.disabled_by_us:
                holds.disabled_by_us = False
                gc.enable()


def hold_gc() -> GCHold:
    """Takes one hold on the cyclic collector (see the module docstring)."""
    return GCHold()


def active_holds() -> int:
    """How many holds are active (tests and diagnostics)."""
    return _holds.count


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """One hold for the duration of the block, released on every exit path."""
    hold = GCHold()
    try:
        yield
    finally:
        hold.release()
