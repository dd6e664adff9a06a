"""dg.data behaviour TF documents but a recorded sequence cannot show: shuffle under
seeds, tracing once with AutoGraph, caches, options, iterators."""
import collections

import numpy as np
import pytest

import duograd as dg

D = dg.data.Dataset


def values(dataset):
    return [[np.asarray(p).tolist() for p in e] if isinstance(e, tuple)
            else np.asarray(e).tolist() for e in dataset.as_numpy_iterator()]


# -- shuffle ----------------------------------------------------------------------------
def test_shuffle_is_a_permutation_and_the_seed_fixes_the_order():
    a = values(D.range(100).shuffle(10, seed=7))
    b = values(D.range(100).shuffle(10, seed=7))
    assert sorted(a) == list(range(100))
    assert a == b
    assert a != list(range(100))
    assert values(D.range(100).shuffle(10, seed=8)) != a


def test_shuffle_buffer_bounds_how_far_an_element_moves_forward():
    # an element can only come out once it has entered the buffer of `buffer_size`
    order = values(D.range(200).shuffle(5, seed=3))
    for position, value in enumerate(order):
        assert value <= position + 4


def test_reshuffle_each_iteration():
    dataset = D.range(50).shuffle(50, seed=1)
    first, second = values(dataset), values(dataset)
    assert sorted(first) == sorted(second) == list(range(50)) and first != second
    again = D.range(50).shuffle(50, seed=1)  # run after run: the same epochs
    assert values(again) == first and values(again) == second
    fixed = D.range(50).shuffle(50, seed=1, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)


def test_shuffle_then_repeat_reshuffles_every_epoch():
    epochs = values(D.range(20).shuffle(20, seed=4).repeat(2))
    assert sorted(epochs[:20]) == sorted(epochs[20:]) == list(range(20))
    assert epochs[:20] != epochs[20:]


def test_global_seed_makes_unseeded_shuffle_deterministic():
    dg.random.set_seed(5)
    a = values(D.range(30).shuffle(30))
    dg.random.set_seed(5)
    b = values(D.range(30).shuffle(30))
    dg.random.set_seed(None)
    assert a == b and sorted(a) == list(range(30))


def test_shuffle_of_structures_keeps_components_together():
    pairs = values(D.from_tensor_slices((np.arange(10), np.arange(10) * 10)).shuffle(4, seed=0))
    assert collections.Counter(tuple(p) for p in pairs) == collections.Counter(
        (i, i * 10) for i in range(10))


# -- functions: traced once, AutoGraph ----------------------------------------------------
def test_map_traces_its_function_once():
    calls = []

    def double(x):
        calls.append(1)
        return x * 2

    dataset = D.range(10).map(double)
    assert values(dataset) == [2 * i for i in range(10)]
    assert values(dataset) == [2 * i for i in range(10)]
    assert len(calls) == 1


def test_map_converts_python_control_flow_with_autograph():
    def clip_or_negate(x):
        if x > 3:
            y = -x
        else:
            y = x * 10
        total = dg.constant(0, dg.int64)
        for i in dg.range(x):
            total += i
        return y, total

    dataset = D.range(6).map(clip_or_negate)
    assert values(dataset) == [[0, 0], [10, 0], [20, 1], [30, 3], [-4, 6], [-5, 10]]


def test_map_function_sees_symbolic_tensors_of_the_element_spec():
    seen = []

    def inspect(x, y):
        seen.append((x.shape.as_list(), y.dtype))
        return x

    D.from_tensor_slices((np.zeros((4, 3), np.float32), np.arange(4))).batch(2).map(inspect)
    assert seen == [([None, 3], dg.int64)]


def test_map_with_eager_captures_and_variables():
    scale = dg.constant(3.0)
    v = dg.Variable(1.0)
    dataset = D.from_tensor_slices([1.0, 2.0]).map(lambda x: x * scale + v)
    assert values(dataset) == [4.0, 7.0]
    v.assign(10.0)   # the trace reads the variable when it runs, as TF
    assert values(dataset) == [13.0, 16.0]


def test_map_with_py_function():
    dataset = D.range(3).map(lambda x: dg.py_function(lambda v: v.numpy() * 5, [x], dg.int64))
    assert values(dataset) == [0, 5, 10]


def test_map_element_spec_from_the_trace():
    dataset = D.from_tensor_slices(np.zeros((5, 28, 28), np.float32)).map(
        lambda x: (dg.reshape(x, [-1]), dg.reduce_sum(x)))
    spec = dataset.element_spec
    assert spec[0].shape.as_list() == [784] and spec[1].shape.as_list() == []


def test_reduce():
    total = D.range(1, 5).reduce(dg.constant(0, dg.int64), lambda s, x: s + x)
    assert int(total) == 10
    pair = D.range(1, 5).reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * x))
    assert [int(p) for p in pair] == [10, 24]


def test_reduce_relaxes_a_growing_state_shape():
    out = D.range(3).reduce(dg.zeros([0], dg.int64),
                            lambda s, x: dg.concat([s, dg.reshape(x, [1])], 0))
    assert out.numpy().tolist() == [0, 1, 2]


# -- cache ----------------------------------------------------------------------------
def test_memory_cache_reads_the_input_once():
    calls = []
    dataset = D.range(4).map(lambda x: dg.py_function(
        lambda v: calls.append(1) or v.numpy(), [x], dg.int64)).cache()
    assert values(dataset) == values(dataset) == [0, 1, 2, 3]
    assert len(calls) == 4


def test_partial_iteration_does_not_complete_the_cache():
    calls = []
    dataset = D.range(4).map(lambda x: dg.py_function(
        lambda v: calls.append(1) or v.numpy(), [x], dg.int64)).cache()
    iterator = iter(dataset)
    next(iterator)
    assert values(dataset) == [0, 1, 2, 3]
    assert values(dataset) == [0, 1, 2, 3]
    assert len(calls) == 5


def test_file_cache(tmp_path):
    prefix = str(tmp_path / "cache")
    source = D.from_tensor_slices((np.arange(6).reshape(3, 2).astype(np.float32), [1, 2, 3]))
    first = values(source.cache(prefix))
    assert (tmp_path / "cache.index").exists()
    # a new pipeline with the same file reads the cache, not its (different) input
    other = D.from_tensor_slices((np.zeros((3, 2), np.float32), [0, 0, 0])).cache(prefix)
    assert values(other) == first


# -- iterators ----------------------------------------------------------------------------
def test_iterator_protocol_and_get_next():
    iterator = iter(D.range(2))
    assert int(next(iterator)) == 0
    assert int(iterator.get_next()) == 1
    with pytest.raises(dg.errors.OutOfRangeError, match="End of sequence"):
        iterator.get_next()
    with pytest.raises(StopIteration):
        next(iterator)
    assert iterator.element_spec == dg.TensorSpec([], dg.int64)


def test_get_next_as_optional():
    iterator = iter(D.range(1))
    first = iterator.get_next_as_optional()
    assert bool(first.has_value()) and int(first.get_value()) == 0
    end = iterator.get_next_as_optional()
    assert not bool(end.has_value())
    with pytest.raises(dg.errors.InvalidArgumentError):
        end.get_value()


def test_each_iter_starts_over_and_len():
    dataset = D.range(3)
    assert values(dataset) == values(dataset) == [0, 1, 2]
    assert len(dataset) == 3 and len(D.range(10).batch(3)) == 4


def test_source_arrays_are_copied():
    array = np.arange(3)
    dataset = D.from_tensor_slices(array)
    array[0] = 100
    assert values(dataset) == [0, 1, 2]


def test_options_merge_and_reject_unknown_names():
    options = dg.data.Options()
    options.deterministic = False
    options.threading.private_threadpool_size = 2
    dataset = D.range(3).with_options(options)
    assert dataset.options().deterministic is False
    assert dataset.options().threading.private_threadpool_size == 2
    later = dg.data.Options()
    later.deterministic = True
    assert dataset.with_options(later).options().deterministic is True
    assert dataset.map(lambda x: x).options().threading.private_threadpool_size == 2
    with pytest.raises(AttributeError):
        options.not_an_option = 1


def test_element_spec_of_batch_drop_remainder_is_static():
    spec = D.from_tensor_slices((np.zeros((10, 28, 28), np.float32), np.zeros(10, np.int32))) \
        .batch(4, drop_remainder=True).element_spec
    assert spec[0].shape.as_list() == [4, 28, 28] and spec[1].shape.as_list() == [4]
    assert D.range(10).batch(4).element_spec.shape.as_list() == [None]


def test_from_generator_is_called_per_iteration():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    dataset = D.from_generator(gen, output_signature=dg.TensorSpec([], dg.int64))
    assert values(dataset) == values(dataset) == [0, 1, 2]
    assert len(calls) == 2


def test_window_elements_are_datasets():
    windows = list(D.range(5).window(2))
    assert len(windows) == 3
    assert [values(w) for w in windows] == [[0, 1], [2, 3], [4]]
    with pytest.raises(TypeError):
        D.range(5).window(2).as_numpy_iterator()


def test_namespaces():
    assert dg.data.experimental.assert_cardinality(2)(D.range(2)).cardinality() == 2
    assert dg.data.DatasetSpec(dg.TensorSpec([], dg.int64)) == D.range(3).window(2).element_spec
    assert dg.compat.v1.data.Dataset is D


def test_padded_shapes_minus_one_pads_to_the_longest():
    dataset = D.range(1, 4).map(lambda x: dg.fill(dg.reshape(x, [1]), x)) \
        .padded_batch(2, padded_shapes=[-1])
    assert [b.tolist() for b in dataset.as_numpy_iterator()] == [[[1, 0], [2, 2]], [[3, 3, 3]]]
    assert dataset.element_spec.shape.as_list() == [None, None]


def test_compat_v1_data_namespace():
    v1 = dg.compat.v1.data
    assert v1.Dataset is D and v1.AUTOTUNE == -1
    assert callable(v1.make_one_shot_iterator) and callable(v1.make_initializable_iterator)
    graph = dg.Graph()
    with graph.as_default():
        iterator = v1.make_one_shot_iterator(D.from_tensor_slices((np.zeros((3, 2)), [1, 2, 3])))
        types, shapes = v1.get_output_types(iterator), v1.get_output_shapes(iterator)
    assert types == (dg.float64, dg.int32)
    assert [s.as_list() for s in shapes] == [[2], []]
