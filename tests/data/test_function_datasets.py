"""Datasets and iterators made outside a dg.function and used inside it, as TF 2.21:
a dataset captured by the function or passed as an argument (traced once per
element_spec, fed the dataset at each call), a map function capturing eager tensors
and variables (read when the function runs), an eager iterator advanced by the
function. Values and tracing counts recorded from TF 2.21 (in the comments)."""
import pytest

import duograd as dg

D = dg.data.Dataset


@dg.function
def total(dataset):
    s = dg.constant(0, dg.int64)
    for x in dataset:
        s += dg.reduce_sum(x)
    return s


def test_dataset_closure_is_iterated_afresh_each_call():
    outer = D.range(4).map(lambda x: x * 2)
    traces = []

    @dg.function
    def closure_sum():
        traces.append(1)
        s = dg.constant(0, dg.int64)
        for x in outer:
            s += x
        return s
    assert [int(closure_sum()), int(closure_sum())] == [12, 12]   # TF: 12 12, one trace
    assert len(traces) == 1


def test_dataset_argument_is_traced_once_per_element_spec():
    @dg.function
    def arg_sum(dataset):
        s = dg.constant(0, dg.int64)
        for x in dataset:
            s += x
        return s
    # TF 2.21: 3 10 6 3 3, all with one trace (same element_spec: scalar int64)
    got = [arg_sum(D.range(3)), arg_sum(D.range(5)), arg_sum(D.range(3).map(lambda x: x + 1)),
           arg_sum(D.range(3).batch(2).map(lambda b: dg.reduce_sum(b))),
           arg_sum(D.range(3, output_type=dg.int32).map(lambda x: dg.cast(x, dg.int64)))]
    assert [int(v) for v in got] == [3, 10, 6, 3, 3]
    assert arg_sum.experimental_get_tracing_count() == 1


def test_a_new_element_spec_traces_again():
    @dg.function
    def arg_total(dataset):
        s = dg.constant(0, dg.int64)
        for x in dataset:
            s += dg.reduce_sum(x)
        return s
    # TF 2.21: 3 then 6, two traces (scalar, then [None] elements)
    assert int(arg_total(D.range(3))) == 3
    assert int(arg_total(D.range(4).batch(2))) == 6
    assert arg_total.experimental_get_tracing_count() == 2
    assert int(arg_total(D.range(5).batch(3))) == 10          # TF: 10, no new trace
    assert arg_total.experimental_get_tracing_count() == 2
    # a [2] batch: the [None] trace serves it (TF's DatasetSpec subtyping): 6, 2 traces
    assert int(arg_total(D.range(4).batch(2, drop_remainder=True))) == 6
    assert arg_total.experimental_get_tracing_count() == 2


def test_a_known_batch_first_then_an_unknown_one_traces_twice():
    @dg.function
    def arg_total(dataset):
        s = dg.constant(0, dg.int64)
        for x in dataset:
            s += dg.reduce_sum(x)
        return s
    # TF 2.21: 6 then 10, two traces ([2] cannot serve [None])
    assert int(arg_total(D.range(4).batch(2, drop_remainder=True))) == 6
    assert int(arg_total(D.range(5).batch(3))) == 10
    assert arg_total.experimental_get_tracing_count() == 2


def test_reduce_retracing_relaxes_a_dataset_argument():
    @dg.function(reduce_retracing=True)
    def arg_total(dataset):
        s = dg.constant(0, dg.int64)
        for x in dataset:
            s += dg.reduce_sum(x)
        return s
    # TF 2.21: 6 15 28, two traces
    assert int(arg_total(D.range(4).batch(2, drop_remainder=True))) == 6
    assert int(arg_total(D.range(6).batch(3, drop_remainder=True))) == 15   # a [None] trace
    assert int(arg_total(D.range(8).batch(4, drop_remainder=True))) == 28   # served by it
    assert arg_total.experimental_get_tracing_count() == 2


def test_map_capturing_an_eager_tensor_and_a_variable():
    scale = dg.constant(3, dg.int64)
    captured_tensor = D.range(3).map(lambda x: x * scale)
    v = dg.Variable(2, dtype=dg.int64)
    captured_variable = D.range(3).map(lambda x: x * v)

    @dg.function
    def with_tensor():
        s = dg.constant(0, dg.int64)
        for x in captured_tensor:
            s += x
        return s

    @dg.function
    def with_variable():
        s = dg.constant(0, dg.int64)
        for x in captured_variable:
            s += x
        return s
    assert int(with_tensor()) == 9                       # TF: 9
    assert int(with_variable()) == 6                     # TF: 6
    v.assign(10)
    assert int(with_variable()) == 30                    # TF: 30 (the variable is read)
    assert list(captured_variable.as_numpy_iterator()) == [0, 10, 20]
    assert int(total(captured_variable)) == 30           # TF: 30 as an argument too
    v.assign(1)
    assert int(total(captured_variable)) == 3            # TF: 3, no retrace


def test_dataset_made_inside_from_captured_and_argument_tensors():
    data = dg.constant([1, 2, 3], dg.int64)
    scale = dg.constant(3, dg.int64)
    v = dg.Variable(2, dtype=dg.int64)

    @dg.function
    def inside():
        s = dg.constant(0, dg.int64)
        for x in D.from_tensor_slices(data).map(lambda y: y * scale):
            s += x
        return s

    @dg.function
    def from_argument(t):
        s = dg.constant(0, dg.int64)
        for x in D.from_tensor_slices(t).map(lambda y: y * v):
            s += x
        return s
    assert int(inside()) == 18                                   # TF: 18
    assert int(from_argument(dg.constant([1, 2], dg.int64))) == 6   # TF: 6 (v = 2)
    assert int(from_argument(dg.constant([1, 2, 3], dg.int64))) == 12


def test_transformations_of_dataset_arguments_inside_the_function():
    @dg.function
    def mapped(dataset, k):
        s = dg.constant(0, dg.int64)
        for x in dataset.map(lambda y: y * k).filter(lambda y: y > 0):
            s += x
        return s

    @dg.function
    def zipped(a, b):
        s = dg.constant(0, dg.int64)
        for x, y in D.zip((a, b)):
            s += x * y
        return s

    @dg.function
    def nested(dataset):
        return total(dataset) + 1

    @dg.function
    def cardinality(dataset):
        return dataset.cardinality()
    # TF 2.21: 18 20 (one trace), 35, 7, 7 3
    assert int(mapped(D.range(4), dg.constant(3, dg.int64))) == 18
    assert int(mapped(D.range(5), dg.constant(2, dg.int64))) == 20
    assert mapped.experimental_get_tracing_count() == 1
    assert int(zipped(D.range(3), D.range(10, 20))) == 35
    assert int(nested(D.range(4))) == 7
    assert [int(cardinality(D.range(7))), int(cardinality(D.range(3)))] == [7, 3]


def test_reduce_and_strings_of_a_dataset_argument():
    @dg.function
    def reduce_sum(dataset):
        return dataset.reduce(dg.constant(0, dg.int64), lambda a, b: a + b)

    @dg.function
    def joined(dataset):
        out = dg.constant("")
        for x in dataset:
            out = out + x
        return out
    assert int(reduce_sum(D.range(4))) == 6                                   # TF: 6
    assert joined(D.from_tensor_slices(["a", "b"])).numpy() == b"ab"          # TF: b'ab'


def test_eager_iterator_is_advanced_by_the_function():
    iterator = iter(D.range(5))
    next(iterator)

    @dg.function
    def loop_rest():
        s = dg.constant(0, dg.int64)
        for x in iterator:
            s += x
        return s
    # TF 2.21: 10 (1+2+3+4), then 0: the iterator is exhausted
    assert [int(loop_rest()), int(loop_rest())] == [10, 0]

    short = iter(D.range(2))

    @dg.function
    def next_of_closure():
        return next(short)
    assert [int(next_of_closure()), int(next_of_closure())] == [0, 1]        # TF: 0 1
    with pytest.raises(dg.errors.OutOfRangeError):                         # TF: the same
        next_of_closure()

    @dg.function
    def next_of_argument(it):
        return next(it)
    argument = iter(D.range(5))
    assert [int(next_of_argument(argument)), int(next_of_argument(argument))] == [0, 1]
    assert next_of_argument.experimental_get_tracing_count() == 1           # TF: 1


def test_error_in_a_dataset_argument_surfaces_at_the_call():
    def bad(x):
        return dg.debugging.check_numerics(1.0 / (dg.cast(x, dg.float32) - 2.0), "bad")

    @dg.function
    def float_total(dataset):
        s = dg.constant(0.0)
        for x in dataset:
            s += x
        return s
    with pytest.raises(dg.errors.InvalidArgumentError):
        float_total(D.range(5).map(bad))
    assert float(float_total(D.range(5).map(bad).ignore_errors())) == 0.0  # -.5-1+1+.5


def test_a_dataset_made_in_a_graph_passed_to_a_function():
    """A dataset built inside a dg.function (or a TF1 graph) and passed to another:
    a DatasetVariant op stands for it, its graph tensors bound when it runs."""
    @dg.function
    def inner(dataset):
        s = dg.constant(0, dg.int64)
        for x in dataset:
            s += x
        return s

    @dg.function
    def outer(t):
        return inner(D.range(3)) + inner(D.from_tensor_slices(t).map(lambda x: x * 10))

    v = dg.Variable(2, dtype=dg.int64)

    @dg.function
    def with_variable():
        return inner(D.range(3).map(lambda x: x * v))

    @dg.function
    def transformed_argument(dataset):
        return inner(dataset.map(lambda x: x + 1)) + inner(dataset)

    # TF 2.21: 33 53, 6 then 9 (the variable read when it runs), 9 16, 6 4
    assert [int(outer(dg.constant([1, 2], dg.int64))),
            int(outer(dg.constant([5], dg.int64)))] == [33, 53]
    assert int(with_variable()) == 6
    v.assign(3)
    assert int(with_variable()) == 9
    assert [int(transformed_argument(D.range(3))), int(transformed_argument(D.range(4)))] \
        == [9, 16]
    with dg.Graph().as_default():
        fed = dg.compat.v1.placeholder(dg.int64, [None])
        out = inner(D.from_tensor_slices(fed))
        with dg.compat.v1.Session() as sess:
            assert [sess.run(out, {fed: [1, 2, 3]}), sess.run(out, {fed: [4]})] == [6, 4]


def test_iterator_arguments_are_traced_once_per_element_spec():
    @dg.function
    def next_of(it):
        return next(it)

    @dg.function
    def rest(it):
        s = dg.constant(0, dg.int64)
        for x in it:
            s += x
        return s

    @dg.function
    def outer(it):
        return next_of(it) * 10

    a, b = iter(D.range(5)), iter(D.range(10, 15))
    # TF 2.21: 0 10 1 with one trace; a batched iterator traces again: [0, 1], 2 traces
    assert [int(next_of(a)), int(next_of(b)), int(next_of(a))] == [0, 10, 1]
    assert next_of.experimental_get_tracing_count() == 1
    assert next_of(iter(D.range(3).batch(2))).numpy().tolist() == [0, 1]
    assert next_of.experimental_get_tracing_count() == 2
    d = iter(D.range(6))
    next(d)
    # TF 2.21: 15, then 0 (exhausted), then 3 from a new iterator, one trace
    assert [int(rest(d)), int(rest(d)), int(rest(iter(D.range(3))))] == [15, 0, 3]
    assert rest.experimental_get_tracing_count() == 1
    e = iter(D.range(1))
    assert int(next_of(e)) == 0
    with pytest.raises(dg.errors.OutOfRangeError):       # TF: OutOfRangeError
        next_of(e)
    f = iter(D.range(7, 9))
    assert [int(outer(f)), int(outer(f))] == [70, 80]   # TF: 70 80 (passed on inside)
