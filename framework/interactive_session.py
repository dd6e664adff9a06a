"""InteractiveSession (tf.compat.v1): a Session that makes itself the default on creation.

For shells and notebooks: `sess = InteractiveSession()` then `t.eval()`
works without a `with` block, until `sess.close()`.
"""
from __future__ import annotations

import contextlib
from typing import Any, Optional

from .graph import Graph
from .session import Session


class InteractiveSession(Session):
    """A Session installed as the default session (and its graph as the default graph)."""

    def __init__(self, target: str = "", graph: Optional[Graph] = None, config: Any = None) -> None:
        super().__init__(target, graph, config)
        self._installed = contextlib.ExitStack()
        self._installed.enter_context(self.graph.as_default())
        self._installed.enter_context(self.as_default())

    def close(self) -> None:
        """Closes the session and stops it being the default."""
        super().close()
        installed, self._installed = self._installed, contextlib.ExitStack()
        installed.close()


__all__ = ["InteractiveSession"]
