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
import threading
from typing import Any, Callable, Iterator, Optional

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


class Channel:
    """A bounded buffer between one producer thread and one consumer.

    Lighter than queue.Queue: a side is notified only when it is waiting, so a
    buffer that stays neither empty nor full costs one lock per element. The
    producer waits in short slices, checking `halt`; the consumer waits while
    the producer lives."""

    def __init__(self, capacity: int) -> None:
        self._items: Any = collections.deque()
        self._capacity = max(1, capacity)
        lock = threading.Lock()
        self._lock = lock
        self._not_empty = threading.Condition(lock)
        self._not_full = threading.Condition(lock)
        self._consumer_waiting = False
        self._producer_waiting = False

    def put(self, item: Any, halt: threading.Event) -> Optional[bool]:
        """Adds `item` (None: halted first, else whether it woke the consumer)."""
        with self._lock:
            while len(self._items) >= self._capacity:
                if halt.is_set():
                    return None
                self._producer_waiting = True
                self._not_full.wait(_POLL_S)
                self._producer_waiting = False
            if halt.is_set():
                return None
            self._items.append(item)
            woke = self._consumer_waiting
            if woke:
                self._not_empty.notify()
            return woke

    def get(self, producer: threading.Thread) -> Any:
        """The next item; waits for it while the producer lives."""
        with self._lock:
            while not self._items:
                if not producer.is_alive():
                    raise RuntimeError("dg.data: a background thread ended without a result")
                self._consumer_waiting = True
                self._not_empty.wait(_POLL_S)
                self._consumer_waiting = False
            item = self._items.popleft()
            if self._producer_waiting:
                self._not_full.notify()
            return item

    def close(self, halt: threading.Event) -> None:
        """Halts the producer and drops what is buffered."""
        with self._lock:
            halt.set()
            self._items.clear()
            self._not_full.notify_all()


class _Producer(threading.Thread):
    """Moves elements from `source` into a Channel until told to stop."""

    def __init__(self, source: Iterator[tuple], channel: Channel, halt: threading.Event,
                 name: str) -> None:
        super().__init__(name=name, daemon=True)
        self._source = source
        self._channel = channel
        self._halt = halt

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
                if self._channel.put(item, self._halt) is None or item is _END \
                        or isinstance(item, _Failure):
                    return
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()
            self._source = None  # type: ignore[assignment]


def prefetched(elements: Iterator[tuple], buffer_size: int, name: str) -> Iterator[tuple]:
    """`elements` produced ahead on a background thread into a buffer of `buffer_size`."""
    channel = Channel(buffer_size)
    halt = threading.Event()
    producer = _Producer(elements, channel, halt, f"dg.data.{name}")
    producer.start()
    try:
        while True:
            item = channel.get(producer)
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        channel.close(halt)
        producer.join()


__all__ = ["parallel_map", "prefetched"]
