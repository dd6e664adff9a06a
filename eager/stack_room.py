"""Deep nesting limited by memory, not by Python's recursion limit.

Tracing a dg.function that calls a dg.function, building the backward
function of a call whose body holds calls, and running such nested calls
each nest Python calls once per level: the user's Python code calls the
inner function while the outer one is traced, so the nesting cannot be
turned into a loop. Instead, `with_stack_room(fn, *args)` checks how deep
the current thread's Python stack is; when it nears the recursion limit it
runs `fn` on a fresh thread (an empty Python stack, a C stack of
`THREAD_STACK_BYTES` set through `threading.stack_size`) that carries this
thread's duograd context, and waits for it. Each hop costs one waiting
thread, so nesting depth is bounded by memory; the recursion limit itself is
never changed. This is the one place that creates such threads.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Callable, TypeVar

from . import context

T = TypeVar("T")

# A hop leaves this many frames to the work between two guarded calls.
FRAMES_PER_HOP = 400
# The C stack of a hop thread: generous, as C-level recursion (descriptors,
# context managers, __call__) is what a Python frame can still cost in C.
THREAD_STACK_BYTES = 256 * 1024 * 1024
_stack_size_lock = threading.Lock()


def _hop_depth() -> int:
    limit = sys.getrecursionlimit()
    return max(limit // 2, limit - FRAMES_PER_HOP)


def with_stack_room(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)`, on a fresh thread when this one's Python stack is deep."""
    try:
        sys._getframe(_hop_depth())
    except ValueError:
        return fn(*args)  # room enough here: the common case
    return _run_on_fresh_thread(fn, args)


def _run_on_fresh_thread(fn: Callable[..., T], args: tuple) -> T:
    saved = context.snapshot()  # this thread's context and owned states, shallow
    outcome: list = [None, None]

    def run() -> None:
        context.restore(saved)
        try:
            outcome[0] = fn(*args)
        except BaseException as error:  # noqa: B036 - re-raised in the waiting thread
            outcome[1] = error

    with _stack_size_lock:
        try:
            previous = threading.stack_size(THREAD_STACK_BYTES)
        except (ValueError, RuntimeError):  # no stack size control here: default size
            previous = None
        worker = threading.Thread(target=run, name="duograd-deep-nesting", daemon=True)
        started = True
        try:
            worker.start()
        except RuntimeError:  # no thread to be had: go on here, as deep as Python allows
            started = False
        finally:
            if previous is not None:
                threading.stack_size(previous)
    if not started:
        return fn(*args)
    worker.join()
    if outcome[1] is not None:
        error = outcome[1]
        outcome[1] = None
        raise error
    return outcome[0]
