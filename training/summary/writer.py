"""Summary writers: an event file in a log directory, and the default-writer stack.

`SummaryWriter` appends TensorBoard `Event` records (summaries, graphs) to
one events file through tensorboard's EventFileWriter. The default writer
and default step are per thread (the context), as in TF.
"""
from __future__ import annotations

import contextlib
import os
import time
from typing import Any, Iterator, List, Optional

from ...eager import context
from .tensorboard_support import tb



class _SummaryState(context.OwnedThreadState):
    """This thread's default-writer stack (`writer.as_default()`) and default step
    (`dg.summary.experimental.set_step`), per thread as in TF."""

    def __init__(self) -> None:
        self.writers: List[Any] = []
        self.step: Any = None


_summary = context.owned_state(_SummaryState)


class SummaryWriter:
    """Writes summaries to an events file in `logdir` (TF's `tf.summary.SummaryWriter`)."""

    def __init__(self, logdir: str, max_queue: int = 10, flush_secs: float = 120.0,
                 filename_suffix: Optional[str] = None) -> None:
        self._logdir = os.fspath(logdir)
        self._events = tb("event_file_writer").EventFileWriter(
            self._logdir, max_queue_size=max_queue, flush_secs=flush_secs,
            filename_suffix=filename_suffix or "")
        self._closed = False

    @property
    def logdir(self) -> str:
        return self._logdir

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def closed(self) -> bool:
        return self._closed

    # -- default writer -------------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator["SummaryWriter"]:
        """Makes this the default writer (and `step` the default step) inside the block;
        flushes on exit."""
        self._check_open()
        old_step = _summary.step
        _summary.writers.append(self)
        if step is not None:
            _summary.step = step
        try:
            yield self
        finally:
            _summary.writers.pop()
            _summary.step = old_step
            if not self._closed:
                self.flush()

    def set_as_default(self, step: Any = None) -> None:
        """Makes this the default writer from now on (the bottom of this thread's stack)."""
        self._check_open()
        writers = _summary.writers
        if writers and writers[0] is not self:
            writers[0] = self
        elif not writers:
            writers.append(self)
        if step is not None:
            _summary.step = step

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def init(self) -> None:
        """Files are opened at construction; kept for TF's API."""

    # -- writing ----------------------------------------------------------------------------
    def add_event(self, event: Any) -> None:
        if self._closed:
            raise ValueError(f"The summary writer for {self._logdir} is closed.")
        self._events.add_event(event)

    def write_summary(self, summary: Any, step: int) -> None:
        """Appends a `Summary` proto at `step`."""
        self.add_event(tb("event_pb2").Event(wall_time=time.time(), step=int(step),
                                             summary=summary))

    def write_graph_def(self, graph_def: Any, step: int = 0) -> None:
        """Appends a `GraphDef` (what TensorBoard's graph dashboard shows)."""
        self.add_event(tb("event_pb2").Event(wall_time=time.time(), step=int(step),
                                             graph_def=graph_def.SerializeToString()))

    def flush(self) -> None:
        if not self._closed:
            self._events.flush()

    def close(self) -> None:
        """Flushes and closes the events file; further writes raise ValueError."""
        if not self._closed:
            self._events.close()
            self._closed = True


def current_writer() -> Optional[SummaryWriter]:
    writers = _summary.writers
    return writers[-1] if writers else None


def current_step() -> Any:
    return _summary.step


def set_step(step: Any) -> None:
    """Sets the default step of summaries written on this thread (None clears it)."""
    _summary.step = step


def get_step() -> Any:
    return _summary.step
