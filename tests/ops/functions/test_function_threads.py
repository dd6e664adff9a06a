"""A dg.function's first call from many threads traces once (TF: once), and
tracing that re-enters the same function (recursion by Python value, or a
trace continued on a helper thread for deep nesting) does not deadlock."""
import threading

import numpy as np

import duograd as dg
from thread_helpers import THREADS, hammer


def test_first_call_from_many_threads_traces_once():
    traces = []

    @dg.function
    def f(x):
        traces.append(threading.get_ident())
        y = x
        for _ in range(20):     # a trace long enough for the threads to overlap
            y = dg.sin(y) + x
        return y

    results = [None] * THREADS
    hammer(lambda k: results.__setitem__(k, f(dg.constant([1.0, 2.0])).numpy()))
    assert f.experimental_get_tracing_count() == 1 and len(traces) == 1
    for r in results:
        np.testing.assert_allclose(r, results[0])


def test_threads_with_different_signatures_each_get_their_trace():
    @dg.function
    def f(x):
        return dg.reduce_sum(x)

    out = {}
    hammer(lambda k: out.__setitem__(k, f(dg.ones([k % 4 + 1])).numpy()))
    assert f.experimental_get_tracing_count() == 4
    assert all(out[k] == k % 4 + 1 for k in range(THREADS))


def test_recursive_tracing_of_one_function_does_not_deadlock():
    @dg.function
    def power(x, n):
        return x if n == 0 else x * power(x, n - 1)   # traces power for n-1 inside

    assert power(dg.constant(2.0), 5).numpy() == 64.0
    assert power.experimental_get_tracing_count() == 6


def test_deep_recursive_tracing_on_helper_threads_does_not_deadlock():
    @dg.function
    def count(x, n):
        return x if n == 0 else count(x, n - 1) + 1.0

    assert count(dg.constant(0.0), 400).numpy() == 400.0   # deeper than one thread's stack
