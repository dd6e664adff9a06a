"""Datasets where TF runs them besides eager iteration: TF1 iterators in a Session
(until OutOfRangeError) and `for x in dataset` inside dg.function (AutoGraph's loop,
traced once), against the element sequences recorded from TF 2.21."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from pipelines import ELEMENT_CASES  # noqa: E402
from reference import TF, build, encode  # noqa: E402

import duograd as dg  # noqa: E402

D = dg.data.Dataset
v1 = dg.compat.v1

# pipelines whose elements are tensors (not datasets) and whose build needs no eager value
GRAPH_CASES = sorted(name for name in ELEMENT_CASES if "eager_tensor" not in name)


def session_elements(dataset_source):
    graph = dg.Graph()
    with graph.as_default():
        iterator = v1.data.make_one_shot_iterator(build(dataset_source))
        next_element = iterator.get_next()
        out = []
        with dg.Session() as sess:
            with pytest.raises(dg.errors.OutOfRangeError, match="End of sequence"):
                while True:
                    out.append(sess.run(next_element))
                    assert len(out) < 1000
    return out


@pytest.mark.parametrize("name", GRAPH_CASES)
def test_one_shot_iterator_in_a_session_matches_tf(name):
    got = [encode(e) for e in session_elements(ELEMENT_CASES[name])]
    assert got == TF["elements"][name]["elements"]


def test_get_next_tensors_carry_the_element_spec():
    graph = dg.Graph()
    with graph.as_default():
        dataset = D.from_tensor_slices((np.zeros((6, 3), np.float32), np.arange(6))) \
            .batch(4, drop_remainder=True)
        x, y = v1.data.make_one_shot_iterator(dataset).get_next()
        assert x.shape.as_list() == [4, 3] and x.dtype == dg.float32
        assert y.shape.as_list() == [4] and y.dtype == dg.int64
        assert x.op.type == "IteratorGetNext"


def test_initializable_iterator_with_fed_placeholders_and_reinitialization():
    graph = dg.Graph()
    with graph.as_default():
        values = v1.placeholder(dg.float32, [None])
        dataset = D.from_tensor_slices(values).map(lambda x: x * 10.0).batch(2)
        iterator = v1.data.make_initializable_iterator(dataset)
        next_element = iterator.get_next()
        with dg.Session() as sess:
            with pytest.raises(dg.errors.FailedPreconditionError, match="not been initialized"):
                sess.run(next_element)
            for feed, expected in (([1., 2., 3.], [[10., 20.], [30.]]), ([4.], [[40.]])):
                sess.run(iterator.initializer, feed_dict={values: feed})
                got = []
                try:
                    while True:
                        got.append(sess.run(next_element).tolist())
                except dg.errors.OutOfRangeError:
                    pass
                assert got == expected
            # re-initializing mid-way starts over
            sess.run(iterator.initializer, feed_dict={values: [7., 8., 9.]})
            assert sess.run(next_element).tolist() == [70., 80.]
            sess.run(iterator.initializer, feed_dict={values: [7., 8., 9.]})
            assert sess.run(next_element).tolist() == [70., 80.]


def test_each_session_has_its_own_iterator():
    graph = dg.Graph()
    with graph.as_default():
        next_element = v1.data.make_one_shot_iterator(D.range(3)).get_next()
        with dg.Session() as a, dg.Session() as b:
            assert [a.run(next_element), a.run(next_element), b.run(next_element)] == [0, 1, 0]


def test_tf1_errors():
    with pytest.raises(RuntimeError):
        v1.data.make_initializable_iterator(D.range(3))   # eager mode
    assert int(next(v1.data.make_one_shot_iterator(D.range(3)))) == 0  # eager: an iterator
    graph = dg.Graph()
    with graph.as_default():
        ph = v1.placeholder(dg.int64, [None])
        with pytest.raises(ValueError):
            v1.data.make_one_shot_iterator(D.from_tensor_slices(ph))
        with pytest.raises(ValueError):
            v1.data.make_one_shot_iterator(D.range(2)).initializer
        with pytest.raises(RuntimeError):
            iter(D.range(2))


def test_graph_reduce_in_a_session():
    graph = dg.Graph()
    with graph.as_default():
        total = D.range(4).map(lambda x: x * x).reduce(np.int64(0), lambda s, x: s + x)
        with dg.Session() as sess:
            assert sess.run(total) == 14
            assert sess.run(total) == 14   # each run iterates afresh


# -- inside dg.function -----------------------------------------------------------------
def test_for_loop_over_a_dataset_in_a_function():
    dataset = D.from_tensor_slices((np.arange(10, dtype=np.float32), np.arange(10))).batch(4)

    @dg.function
    def sums(ds):
        s = dg.constant(0.0)
        n = dg.constant(0, dg.int64)
        for x, y in ds:
            s += dg.reduce_sum(x)
            n += dg.reduce_sum(y)
        return s, n

    for _ in range(3):
        s, n = sums(dataset)
        assert float(s) == 45.0 and int(n) == 45
    assert sums.experimental_get_tracing_count() == 1


def _one_tensor_one_shape(name):
    recorded = TF["elements"][name]
    shapes = {tuple(e.get("shape", ())) for e in recorded["elements"]}
    return recorded["spec"].get("dtype") is not None and len(shapes) <= 1


@pytest.mark.parametrize("name", [n for n in GRAPH_CASES if _one_tensor_one_shape(n)])
def test_for_loop_in_a_function_gives_tf_sequence(name):
    """Every single-tensor pipeline (of one element shape: a TensorArray's limit),
    collected by a graph loop into a TensorArray."""
    dataset = build(ELEMENT_CASES[name])
    spec = dataset.element_spec

    @dg.function
    def collect():
        ta = dg.TensorArray(spec.dtype, size=0, dynamic_size=True, infer_shape=False,
                            element_shape=dg.TensorShape(None))
        i = dg.constant(0)
        for x in dataset:
            ta = ta.write(i, x)
            i += 1
        return [ta.read(k) for k in range(len(TF["elements"][name]["elements"]))], i

    elements, count = collect()
    assert int(count) == len(TF["elements"][name]["elements"])
    assert [encode(e.numpy()) for e in elements] == TF["elements"][name]["elements"]


def test_break_and_python_state_in_a_dataset_loop():
    @dg.function
    def first_sum_over(limit):
        s = dg.constant(0, dg.int64)
        for x in D.range(100):
            if s > limit:
                break
            s += x
        return s

    assert int(first_sum_over(dg.constant(10, dg.int64))) == 15
    assert int(first_sum_over(dg.constant(20, dg.int64))) == 21
    assert first_sum_over.experimental_get_tracing_count() == 1


def test_training_loop_over_a_dataset_inside_a_function_updates_variables():
    x = np.linspace(-1, 1, 32).astype(np.float32)
    y = (3.0 * x + 0.5).astype(np.float32)
    dataset = D.from_tensor_slices((x, y)).batch(8)
    w, b = dg.Variable(0.0), dg.Variable(0.0)

    @dg.function
    def epoch():
        for xb, yb in dataset:
            with dg.GradientTape() as tape:
                loss = dg.reduce_mean((w * xb + b - yb) ** 2)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.5 * gw)
            b.assign_sub(0.5 * gb)
        return loss

    # the same updates, eagerly
    we, be = 0.0, 0.0
    for _ in range(5):
        last = epoch()
        for k in range(0, 32, 8):
            xb, yb = x[k:k + 8], y[k:k + 8]
            err = we * xb + be - yb
            we, be = we - 0.5 * np.mean(2 * err * xb), be - 0.5 * np.mean(2 * err)
    assert float(w.numpy()) == pytest.approx(we, rel=1e-5)
    assert float(b.numpy()) == pytest.approx(be, rel=1e-5)
    assert float(last) < 0.1
    assert epoch.experimental_get_tracing_count() == 1


def test_step_function_fed_batches_is_not_retraced():
    dataset = D.from_tensor_slices(np.ones((20, 3), np.float32)).batch(4, drop_remainder=True)

    @dg.function
    def step(batch):
        return dg.reduce_sum(batch)

    assert [float(step(b)) for b in dataset] == [12.0] * 5
    assert step.experimental_get_tracing_count() == 1


def test_reduce_inside_a_function():
    @dg.function
    def f():
        return D.range(1, 5).reduce(dg.constant(0, dg.int64), lambda s, x: s + x)

    assert int(f()) == 10 and int(f()) == 10


def test_iter_and_next_inside_a_function():
    @dg.function
    def first_two(ds):
        iterator = iter(ds)
        return next(iterator) + next(iterator)

    assert int(first_two(D.range(5, 10))) == 11
    with pytest.raises(dg.errors.OutOfRangeError, match="End of sequence"):
        first_two(D.range(1))


def test_unconverted_python_loop_over_a_dataset_stops_with_an_error():
    @dg.function(autograph=False)
    def loop(ds):
        total = dg.constant(0, dg.int64)
        for x in ds:
            total += x
        return total

    with pytest.raises(RuntimeError, match="does not end"):
        loop(D.range(3))
