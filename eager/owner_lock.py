"""A reentrant lock owned by a logical thread of duograd work.

dg.function traces under one lock per function so that a first call from
many threads traces once. A trace may call the same function again (a
recursive Python function traced for another signature), and a deep trace
may continue on a helper thread (eager/stack_room.py): both must re-enter
the lock instead of deadlocking. So the owner is this module's
per-thread `token`, which stack_room's helper threads carry (an owned state
of the context), not the OS thread.
"""
from __future__ import annotations

import threading
from typing import Any, Optional

from . import context


class _OwnerState(context.OwnedThreadState):
    """Who this thread works for: its own token, or the one of the thread whose deep
    trace it continues (copied with the context by eager/stack_room.py)."""

    def __init__(self) -> None:
        self.token: object = object()


_owner = context.owned_state(_OwnerState)


class OwnerLock:
    """Reentrant for the same owner token (`_owner.token`), exclusive otherwise."""

    __slots__ = ("_condition", "_owner", "_count")

    def __init__(self) -> None:
        self._condition = threading.Condition(threading.Lock())
        self._owner: Optional[object] = None
        self._count = 0

    def __enter__(self) -> "OwnerLock":
        me = _owner.token
        with self._condition:
            while self._owner is not None and self._owner is not me:
                self._condition.wait()
            self._owner = me
            self._count += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        with self._condition:
            self._count -= 1
            if not self._count:
                self._owner = None
                self._condition.notify_all()
