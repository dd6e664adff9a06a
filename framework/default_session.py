"""This thread's default-session stack (`Session.as_default`), read by `Tensor.eval`
and `Operation.run` (framework/graph.py) and pushed by framework/session.py."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional

from ..eager import context


class _SessionStack(context.OwnedThreadState):
    """The sessions made default on this thread, innermost last."""

    def __init__(self) -> None:
        self.sessions: List[Any] = []


_stack = context.owned_state(_SessionStack)


@contextlib.contextmanager
def default_session(session: Any) -> Iterator[Any]:
    """`session` is this thread's default session inside."""
    _stack.sessions.append(session)
    try:
        yield session
    finally:
        _stack.sessions.pop()


def get_default_session() -> Optional[Any]:
    """The innermost default session of this thread, or None."""
    sessions = _stack.sessions
    return sessions[-1] if sessions else None
