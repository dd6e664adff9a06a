"""Variable updates are atomic under threads, eagerly, in Session.run and in functions.

TensorFlow's promise: concurrent `assign_add` calls on one variable never lose
an update, and one Session run from many threads gives the results of some
serial order. A tiny `sys.setswitchinterval` makes the interpreter switch
threads between almost every bytecode, so a read-modify-write without a lock
loses updates here within a few hundred steps.
"""
from __future__ import annotations

from typing import Any, Callable, List

import numpy as np

import duograd as dg
from thread_helpers import THREADS, hammer

UPDATES = 300


def repeat(fn: Callable[[], Any], times: int = UPDATES) -> Callable[[int], None]:
    def work(_: int) -> None:
        for _ in range(times):
            fn()
    return work


def test_eager_assign_add_loses_nothing():
    v = dg.Variable(0.0, dtype=dg.float64)
    hammer(repeat(lambda: v.assign_add(1.0)))
    assert v.numpy() == THREADS * UPDATES


def test_eager_assign_add_and_sub_cancel():
    v = dg.Variable(np.zeros(3), dtype=dg.float64)
    hammer(lambda k: repeat(lambda: v.assign_add([1.0, 2.0, 3.0]) if k % 2
                            else v.assign_sub([1.0, 2.0, 3.0]))(k))
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0, 0.0])


def test_eager_scatter_add_loses_nothing():
    v = dg.Variable(np.zeros(4), dtype=dg.float64)
    delta = dg.IndexedSlices(dg.constant([1.0, 1.0], dtype=dg.float64), dg.constant([0, 3]))
    hammer(repeat(lambda: v.scatter_add(delta)))
    np.testing.assert_array_equal(v.numpy(), [2400.0, 0.0, 0.0, 2400.0])


def test_assign_is_atomic_against_assign_add():
    # Each thread alternates assign(0) and assign_add(1): whatever the order,
    # the value is always 0 or a count of increments since the last assign,
    # so it never exceeds the number of threads (another thread's assign(0) may
    # land between an increment and its read, so 0 can be seen).
    v = dg.Variable(0.0, dtype=dg.float64)
    seen: List[float] = []

    def work(_: int) -> None:
        for _ in range(100):
            v.assign(0.0)
            v.assign_add(1.0)
            seen.append(float(v.numpy()))
    hammer(work)
    assert 0.0 <= min(seen) and max(seen) <= THREADS
    assert all(s == int(s) for s in seen)


def test_session_run_assign_add_loses_nothing():
    graph = dg.Graph()
    with graph.as_default():
        v = dg.Variable(0.0, dtype=dg.float64)
        update = v.assign_add(1.0, read_value=False)
        sess = dg.Session()
        sess.run(dg.global_variables_initializer())
    hammer(repeat(lambda: sess.run(update)))
    assert sess.run(v) == THREADS * UPDATES


def test_session_scatter_sub_loses_nothing():
    graph = dg.Graph()
    with graph.as_default():
        v = dg.Variable(np.zeros(2), dtype=dg.float64)
        update = v.scatter_sub(dg.IndexedSlices(dg.constant([1.0], dtype=dg.float64),
                                                dg.constant([1])))
        sess = dg.Session()
        sess.run(dg.global_variables_initializer())
    hammer(repeat(lambda: sess.run(update)))
    np.testing.assert_array_equal(sess.run(v), [0.0, -2400.0])


def test_function_assign_add_loses_nothing():
    v = dg.Variable(0.0, dtype=dg.float64)
    step = dg.function(lambda: v.assign_add(1.0))
    step()
    v.assign(0.0)
    hammer(repeat(step))
    assert v.numpy() == THREADS * UPDATES


def test_function_first_runs_concurrently_return_their_outputs():
    # The plan of a traced function is compiled by its first run; threads
    # racing on that first run must all see the plan and its effect count
    # together (the effect, an assignment, is not among the outputs).
    for _ in range(5):
        v = dg.Variable(0.0, dtype=dg.float64)

        def body(x):
            v.assign_add(1.0)
            return x * 2.0
        concrete = dg.function(body).get_concrete_function(dg.TensorSpec([], dg.float64))
        results = hammer(lambda k: concrete(dg.constant(float(k), dtype=dg.float64)).numpy())
        assert results == [2.0 * k for k in range(THREADS)]
        assert v.numpy() == THREADS


def test_one_session_from_many_threads_gives_each_thread_its_own_result():
    # A fresh plan is compiled by several threads at once and then replayed
    # concurrently with different feeds: no state is shared between runs.
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float64, [None])
        y = dg.reduce_sum(dg.sin(x) * x)
        (grad,) = dg.gradients(y, [x])
        sess = dg.Session()

    def work(k: int) -> bool:
        for i in range(50):
            feed = np.arange(3.0) + k + i
            value, g = sess.run([y, grad], {x: feed})
            if value != np.sum(np.sin(feed) * feed) or \
                    not np.array_equal(g, np.cos(feed) * feed + np.sin(feed)):
                return False
        return True
    assert hammer(work) == [True] * THREADS


def test_tapes_in_threads_are_independent():
    v = dg.Variable(2.0, dtype=dg.float64)

    def work(k: int) -> float:
        total = 0.0
        for _ in range(50):
            with dg.GradientTape() as tape:
                y = v * float(k)
            total += float(tape.gradient(y, v).numpy())
        return total
    assert hammer(work) == [50.0 * k for k in range(THREADS)]
