"""The pipeline's background threads: parallel map, prefetch, parallel interleave.

Every stage that starts threads is a generator whose `finally` block tells its
threads to stop and joins them; closing the consumer's iterator (or losing it)
closes the generators from the outside in, so no thread outlives the
iteration, an error stops every stage cleanly, and nothing hangs: a producer
waits on a full buffer only in short slices, checking the stop flag between
them. Threads never hold the consumer's generator, only the stage below.
"""
from __future__ import annotations

import collections
import concurrent.futures
import queue
import threading
import time
from typing import Any, Callable, Iterator

_END = object()
_POLL_S = 0.05


class _Failure:
    """An exception raised by the producer, delivered at its place in the stream."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def parallel_map(elements: Iterator[tuple], func: Callable[[tuple], tuple], workers: int,
                 deterministic: bool, name: str) -> Iterator[tuple]:
    """func over `elements` on a pool of `workers` threads, `workers` calls in flight.

    Deterministic: results in input order, an error raised at its element's place.
    Otherwise: results as they complete (an error still surfaces, at its completion)."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers,
                                                 thread_name_prefix=f"dg.data.{name}")
    pending: Any = collections.deque()
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < workers:
                try:
                    element = next(elements)
                except StopIteration:
                    exhausted = True
                    break
                pending.append(pool.submit(func, element))
            if not pending:
                return
            if deterministic:
                future = pending.popleft()
            else:
                done, _ = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                future = next(f for f in pending if f in done)
                pending.remove(future)
            yield future.result()
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True)
        close = getattr(elements, "close", None)
        if close is not None:
            close()


class _Producer(threading.Thread):
    """Moves elements from `source` into a bounded queue until told to stop."""

    def __init__(self, source: Iterator[tuple], buffer: "queue.Queue[Any]",
                 stop: threading.Event, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self._source = source
        self._buffer = buffer
        self._halt = stop

    def run(self) -> None:
        source = self._source
        try:
            while not self._halt.is_set():
                try:
                    item: Any = next(source)
                except StopIteration:
                    item = _END
                except BaseException as error:  # noqa: BLE001 - delivered to the consumer
                    item = _Failure(error)
                if not self._put(item) or item is _END or isinstance(item, _Failure):
                    return
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()
            self._source = None  # type: ignore[assignment]

    def _put(self, item: Any) -> bool:
        while not self._halt.is_set():
            try:
                self._buffer.put(item, timeout=_POLL_S)
            except queue.Full:
                continue
            # hand the GIL over now: a consumer woken by this element need not wait for
            # the interpreter's switch interval while this thread makes the next one
            time.sleep(0)
            return True
        return False


def prefetched(elements: Iterator[tuple], buffer_size: int, name: str) -> Iterator[tuple]:
    """`elements` produced ahead on a background thread into a buffer of `buffer_size`."""
    buffer: "queue.Queue[Any]" = queue.Queue(maxsize=max(1, buffer_size))
    stop = threading.Event()
    producer = _Producer(elements, buffer, stop, f"dg.data.{name}")
    producer.start()
    try:
        while True:
            item = buffer.get()
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        stop.set()
        while producer.is_alive():
            try:  # unblock a producer waiting on a full buffer
                buffer.get_nowait()
            except queue.Empty:
                pass
            producer.join(timeout=_POLL_S)


__all__ = ["parallel_map", "prefetched"]
