"""Parallel map, prefetch and parallel interleave: order, errors at their element, and
threads that stop with their iterator (no hang, no leaked thread)."""
import gc
import threading
import time

import numpy as np
import pytest

import duograd as dg

D = dg.data.Dataset


def data_threads():
    return [t for t in threading.enumerate() if t.name.startswith("dg.data")]


def wait_for_no_data_threads(timeout=5.0):
    deadline = time.monotonic() + timeout
    while data_threads() and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    return data_threads()


def slow_identity(x):
    """A py_function that sleeps a little, longer for small values (reorders results)."""
    def work(v):
        time.sleep(0.002 * (10 - int(v) % 10))
        return v
    return dg.py_function(work, [x], dg.int64)


def test_parallel_map_keeps_order_when_deterministic():
    out = [int(x) for x in D.range(30).map(slow_identity, num_parallel_calls=4)]
    assert out == list(range(30))
    assert not wait_for_no_data_threads()


def test_parallel_map_not_deterministic_gives_the_same_multiset():
    dataset = D.range(30).map(slow_identity, num_parallel_calls=4, deterministic=False)
    assert sorted(int(x) for x in dataset) == list(range(30))
    options = dg.data.Options()
    options.deterministic = False
    dataset = D.range(30).map(slow_identity, num_parallel_calls=4).with_options(options)
    assert sorted(int(x) for x in dataset) == list(range(30))


def test_parallel_map_runs_calls_concurrently():
    running, peak, lock = [0], [0], threading.Lock()

    def work(v):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return v

    dataset = D.range(12).map(lambda x: dg.py_function(work, [x], dg.int64),
                              num_parallel_calls=3)
    assert [int(x) for x in dataset] == list(range(12))
    assert peak[0] == 3


def test_error_in_map_surfaces_at_its_element():
    def check(x):
        return dg.debugging.check_numerics(dg.math.log(x), "bad value")

    for parallel in (None, 3):
        iterator = iter(D.from_tensor_slices([1.0, 2.0, -1.0, 4.0, 5.0]).map(
            check, num_parallel_calls=parallel).prefetch(2))
        assert float(next(iterator)) == 0.0
        assert float(next(iterator)) == pytest.approx(np.log(2.0))
        with pytest.raises(dg.errors.InvalidArgumentError, match="bad value"):
            next(iterator)
        # as TF's iterator, the iteration goes on after the element that raised
        assert [float(v) for v in iterator] == pytest.approx([np.log(4.0), np.log(5.0)])
        with pytest.raises(StopIteration):
            next(iterator)
        assert not wait_for_no_data_threads()


def test_python_exception_in_a_generator_under_prefetch():
    def gen():
        yield 1
        yield 2
        raise KeyError("broken source")

    iterator = iter(D.from_generator(gen, output_signature=dg.TensorSpec([], dg.int32))
                    .prefetch(4))
    assert [int(next(iterator)), int(next(iterator))] == [1, 2]
    # TF 2.21: UnknownError "... KeyError: 'broken source'" (ValueError would be
    # InvalidArgumentError), then the end of the iteration
    with pytest.raises(dg.errors.UnknownError, match="KeyError: 'broken source'"):
        next(iterator)
    with pytest.raises(StopIteration):
        next(iterator)
    assert not wait_for_no_data_threads()


@pytest.mark.parametrize("make", [
    lambda: D.range(10 ** 6).prefetch(3),
    lambda: D.range(10 ** 6).map(lambda x: x + 1, num_parallel_calls=3),
    lambda: D.range(10 ** 6).map(lambda x: x * 2, num_parallel_calls=2).prefetch(2),
    lambda: D.range(10 ** 3).interleave(lambda x: D.range(10 ** 3), cycle_length=3,
                                        num_parallel_calls=3).prefetch(1),
], ids=["prefetch", "parallel_map", "map_then_prefetch", "parallel_interleave"])
def test_threads_stop_when_the_iterator_is_abandoned(make):
    iterator = iter(make())
    for _ in range(5):
        next(iterator)
    assert data_threads()
    del iterator
    assert not wait_for_no_data_threads()


def test_close_stops_the_threads_at_once():
    iterator = iter(D.range(10 ** 6).prefetch(2))
    next(iterator)
    iterator.close()
    assert not data_threads()
    with pytest.raises(StopIteration):
        next(iterator)


def test_breaking_out_of_a_for_loop_leaks_nothing():
    dataset = D.range(10 ** 6).map(lambda x: x, num_parallel_calls=2).prefetch(2)
    for k, _ in enumerate(dataset):
        if k == 3:
            break
    assert not wait_for_no_data_threads()


def test_prefetch_buffer_is_bounded():
    produced = []

    def gen():
        for i in range(100):
            produced.append(i)
            yield i

    iterator = iter(D.from_generator(gen, output_signature=dg.TensorSpec([], dg.int64))
                    .prefetch(3))
    next(iterator)
    time.sleep(0.2)
    # one taken, three waiting in the buffer, one in the producer's hands
    assert len(produced) <= 1 + 3 + 1
    iterator.close()


def test_parallel_interleave_keeps_the_sequential_order():
    def make(x):
        return D.range(x * 10, x * 10 + 4).map(slow_identity)

    sequential = [int(v) for v in D.range(5).interleave(make, cycle_length=3, block_length=2)]
    parallel = [int(v) for v in D.range(5).interleave(make, cycle_length=3, block_length=2,
                                                      num_parallel_calls=3)]
    assert parallel == sequential
    assert not wait_for_no_data_threads()


def _graph_pipeline(graph):
    with graph.as_default():
        dataset = dg.compat.v1.data.Dataset.range(10_000).map(
            lambda x: x * 2, num_parallel_calls=2).prefetch(4)
        one_shot = dg.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        initializable = dg.compat.v1.data.make_initializable_iterator(dataset.repeat())
        return one_shot, initializable, initializable.get_next()


@pytest.mark.parametrize("closing", ["close", "with"])
def test_session_close_stops_the_threads_of_the_iterators_it_ran(closing):
    assert wait_for_no_data_threads() == []
    graph = dg.Graph()
    one_shot, initializable, next_value = _graph_pipeline(graph)
    with graph.as_default():
        sess = dg.compat.v1.Session()
        if closing == "with":
            with sess:
                assert [sess.run(one_shot) for _ in range(3)] == [0, 2, 4]
                sess.run(initializable.initializer)
                assert sess.run(next_value) == 0
                assert data_threads()          # the pipelines are running
        else:
            assert [sess.run(one_shot) for _ in range(3)] == [0, 2, 4]
            sess.run(initializable.initializer)
            assert sess.run(next_value) == 0
            assert data_threads()
            sess.close()
    # joined by close itself: no garbage collection, no waiting
    assert data_threads() == []
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(one_shot)
    assert graph is not None and sess is not None      # both still referenced
