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


def _leaves(encoded):
    """The leaf encodings of one recorded element, in nest.flatten order."""
    if "tuple" in encoded:
        return [leaf for part in encoded["tuple"] for leaf in _leaves(part)]
    if "dict" in encoded:
        return [leaf for key in sorted(encoded["dict"]) for leaf in _leaves(encoded["dict"][key])]
    return [encoded]


def _one_shape_per_component(name):
    elements = TF["elements"][name]["elements"]
    columns = list(zip(*[_leaves(e) for e in elements]))
    return all(len({tuple(leaf["shape"]) for leaf in column}) == 1 for column in columns)


@pytest.mark.parametrize("name", [n for n in GRAPH_CASES if _one_shape_per_component(n)])
def test_for_loop_in_a_function_gives_tf_sequence(name):
    """Every pipeline whose components keep one shape (a TensorArray's limit), collected
    by a graph loop inside dg.function, one TensorArray per component."""
    dataset = build(ELEMENT_CASES[name])
    specs = dg.nest.flatten(dataset.element_spec)
    expected = TF["elements"][name]["elements"]

    @dg.function
    def collect():
        arrays = [dg.TensorArray(s.dtype, size=0, dynamic_size=True, infer_shape=False,
                                 element_shape=dg.TensorShape(None)) for s in specs]
        i = dg.constant(0)
        for x in dataset:
            arrays = [ta.write(i, leaf) for ta, leaf in zip(arrays, dg.nest.flatten(x))]
            i += 1
        return [[ta.read(k) for ta in arrays] for k in range(len(expected))], i

    elements, count = collect()
    assert int(count) == len(expected)
    got = [[encode(leaf.numpy()) for leaf in element] for element in elements]
    assert got == [_leaves(e) for e in expected]


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


def test_tf1_dataset_methods():
    graph = dg.Graph()
    with graph.as_default():
        dataset = v1.data.Dataset.from_tensor_slices(np.arange(5)).map(lambda x: x * 2) \
            .batch(2)
        assert isinstance(dataset, v1.data.Dataset) and isinstance(dataset, D)
        assert dataset.output_types == dg.int64
        assert dataset.output_shapes.as_list() == [None]
        next_batch = dataset.make_one_shot_iterator().get_next()
        with dg.Session() as sess:
            got = [sess.run(next_batch).tolist() for _ in range(3)]
            with pytest.raises(dg.errors.OutOfRangeError):
                sess.run(next_batch)
    assert got == [[0, 2], [4, 6], [8]]
    eager = v1.data.Dataset.range(3).shuffle(3, seed=1).batch(3)
    assert sorted(next(iter(eager)).numpy().tolist()) == [0, 1, 2]
    assert int(v1.data.Dataset.range(4).reduce(np.int64(0), lambda s, x: s + x)) == 6


def test_errors_in_a_session_and_in_a_function_keep_tf_classes():
    def check(x):
        return dg.debugging.check_numerics(dg.math.log(x), "bad value")

    graph = dg.Graph()
    with graph.as_default():
        dataset = D.from_tensor_slices(np.array([1.0, 2.0, -1.0], np.float32)).map(check)
        next_value = v1.data.make_one_shot_iterator(dataset).get_next()
        with dg.Session() as sess:
            assert sess.run(next_value) == 0.0
            assert sess.run(next_value) == pytest.approx(np.log(2.0))
            with pytest.raises(dg.errors.InvalidArgumentError, match="bad value"):
                sess.run(next_value)

    @dg.function
    def total(ds):
        s = dg.constant(0.0)
        for x in ds:
            s += x
        return s

    with pytest.raises(dg.errors.InvalidArgumentError, match="bad value"):
        total(D.from_tensor_slices(np.array([1.0, -1.0], np.float32)).map(check))
    ragged = D.range(1, 4).map(lambda x: dg.fill(dg.reshape(x, [1]), x)).batch(2)
    with pytest.raises(dg.errors.InvalidArgumentError, match="Cannot add tensor to the batch"):
        total(ragged.map(lambda b: dg.cast(dg.reduce_sum(b), dg.float32)))


@pytest.mark.parametrize("make", ["make_one_shot_iterator", "make_initializable_iterator"])
def test_tf1_iterators_of_something_that_is_not_a_dataset_raise_type_error(make):
    """TF 2.21 leaks AttributeError ('... has no attribute _variant_tensor') for a
    distributed dataset or a list; duograd raises TypeError naming what it expects."""
    strategy = dg.distribute.MirroredStrategy(["/cpu:0"])
    distributed = strategy.experimental_distribute_dataset(dg.data.Dataset.range(4).batch(2))
    with dg.Graph().as_default():
        for bad in (distributed, [1, 2]):
            with pytest.raises(TypeError, match=f"{make}: expected a dg.data.Dataset"):
                getattr(dg.compat.v1.data, make)(bad)
