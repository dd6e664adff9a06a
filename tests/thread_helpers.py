"""Running one piece of work in many threads at once, for the thread-safety tests
(eager/test_thread_safety.py, ops/functions/test_function_threads.py).

A barrier starts every thread together and a tiny `sys.setswitchinterval` makes the
interpreter switch threads between almost every bytecode, so a race shows up within
a few hundred steps.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Callable, List

THREADS = 8


def hammer(work: Callable[[int], Any], threads: int = THREADS) -> List[Any]:
    """Runs `work(thread_index)` in `threads` threads at once; returns the results and
    raises, in the calling thread, the first error a thread met."""
    results: List[Any] = [None] * threads
    errors: List[BaseException] = []
    start = threading.Barrier(threads)

    def body(k: int) -> None:
        try:
            start.wait()
            results[k] = work(k)
        except BaseException as error:  # reported in the main thread
            errors.append(error)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pool = [threading.Thread(target=body, args=(k,)) for k in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(old)
    if errors:
        raise errors[0]
    return results
