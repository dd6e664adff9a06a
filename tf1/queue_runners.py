"""`train.Coordinator` and `train.start_queue_runners`.

duograd has no input queues (feed NumPy arrays through `feed_dict`), so no
queue runner is ever registered: `start_queue_runners` starts nothing and returns
an empty thread list, and a program's `coord.request_stop(); coord.join(threads)`
ends at once. The Coordinator itself is complete for the threads a program starts.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Any, Iterator, List, Optional, Sequence

from ..framework.default_session import get_default_session


class Coordinator:
    """Coordinates the termination of a set of threads (TF1's train.Coordinator)."""

    def __init__(self, clean_stop_exception_types: Optional[Sequence[type]] = None) -> None:
        self._clean = tuple(clean_stop_exception_types or (StopIteration,))
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._exc_info: Any = None
        self._registered: List[threading.Thread] = []

    def should_stop(self) -> bool:
        return self._stop.is_set()

    def request_stop(self, ex: Any = None) -> None:
        """Asks every thread to stop; remembers the first exception `ex` (not a clean one)."""
        with self._lock:
            if ex is not None and self._exc_info is None:
                if isinstance(ex, tuple):
                    exc_info = ex
                else:
                    exc_info = (type(ex), ex, ex.__traceback__) if isinstance(ex, BaseException) \
                        else sys.exc_info()
                if not issubclass(exc_info[0], self._clean):
                    self._exc_info = exc_info
            self._stop.set()

    def clear_stop(self) -> None:
        with self._lock:
            self._exc_info = None
            self._stop.clear()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        try:
            yield
        except Exception as error:  # noqa: BLE001 - handed to request_stop, as TF
            self.request_stop(error)

    def wait_for_stop(self, timeout: Optional[float] = None) -> bool:
        return self._stop.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        with self._lock:
            self._registered.append(thread)

    def join(self, threads: Optional[Sequence[threading.Thread]] = None,
             stop_grace_period_secs: float = 120, ignore_live_threads: bool = False) -> None:
        """Waits for `threads` (and the registered ones) once a stop was requested;
        re-raises the exception passed to request_stop, as TF."""
        threads = list(self._registered) + list(threads or ())
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.05):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        stragglers = [t.name for t in threads if t.is_alive()]
        if self._exc_info is not None:
            raise self._exc_info[1].with_traceback(self._exc_info[2])
        if stragglers and not ignore_live_threads:
            raise RuntimeError("Coordinator stopped with threads still running: "
                               + " ".join(stragglers))

    @property
    def joined(self) -> bool:
        return self._stop.is_set()

    def raise_requested_exception(self) -> None:
        if self._exc_info is not None:
            raise self._exc_info[1].with_traceback(self._exc_info[2])


def start_queue_runners(sess: Any = None, coord: Optional[Coordinator] = None,
                        daemon: bool = True, start: bool = True,
                        collection: str = "queue_runners") -> List[threading.Thread]:
    """Starts the graph's queue runners: there are none in duograd, so [] (ValueError
    without a session, as TF)."""
    if sess is None and get_default_session() is None:
        raise ValueError("Cannot start queue runners: No default session is registered. Use "
                         "`with sess.as_default()` or pass an explicit session to "
                         "tf.start_queue_runners(sess=sess)")
    return []


NAMES = {"Coordinator": Coordinator, "start_queue_runners": start_queue_runners}
