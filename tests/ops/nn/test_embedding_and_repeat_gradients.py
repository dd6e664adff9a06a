"""Gradient types of embedding_lookup over a list of shards (one IndexedSlices per
shard, as TF) and of repeat (dense, as TF), in both modes; every expected value is
recorded from TensorFlow 2.21 (`tf.nn.embedding_lookup`, `tf.repeat`)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from modes import MODES

SHARD_A = np.arange(6.0).reshape(2, 3)
SHARD_B = np.arange(6.0, 12.0).reshape(2, 3)
SHARD_C = np.arange(3.0).reshape(1, 3)


def _weights(shape):
    """1, 2, 3, ... in `shape`: each output element gets its own upstream gradient."""
    return np.arange(1.0, np.prod(shape) + 1).reshape(shape)


def _sharded(mode, shards, ids, ids_dtype=np.int32, unknown_dims=False):
    """The lookup's value and, per shard, (type name, values, indices, indices dtype,
    dense_shape, dense_shape dtype) of the gradient of sum(lookup * weights)."""
    ids = np.asarray(ids, ids_dtype)
    shape = ids.shape + shards[0].shape[1:]

    def build(params, id_tensor):
        y = dg.nn.embedding_lookup(params, id_tensor)
        return y, dg.reduce_sum(y * _weights(shape))

    if mode == "eager":
        params = [dg.constant(s) for s in shards]
        with dg.GradientTape() as tape:
            tape.watch(params)
            y, loss = build(params, dg.constant(ids))
        grads = tape.gradient(loss, params)
        parts = [(g.values, g.indices, g.dense_shape) for g in grads]
        fetched = [np.asarray(y), [[np.asarray(t) for t in p] for p in parts]]
    else:
        graph = dg.Graph()
        with graph.as_default():
            params = [dg.placeholder(dg.float64, [None, 3] if unknown_dims else s.shape)
                      for s in shards]
            id_tensor = dg.placeholder(dg.as_dtype(ids_dtype),
                                       [None] * ids.ndim if unknown_dims else ids.shape)
            y, loss = build(params, id_tensor)
            grads = dg.gradients(loss, params)
            parts = [(g.values, g.indices, g.dense_shape) for g in grads]
            feed = dict(zip(params, shards, strict=True))
            feed[id_tensor] = ids
            with dg.Session(graph=graph) as sess:
                fetched = sess.run([y, [list(p) for p in parts]], feed)
    value, arrays = fetched
    kinds = [type(g).__name__ for g in grads]
    dtypes = [(p[1].dtype, p[2].dtype) for p in parts]
    return np.asarray(value), list(zip(kinds, arrays, dtypes, strict=True))


@pytest.mark.parametrize("mode", MODES + ["graph_unknown_dims"])
def test_two_shards_each_get_an_indexed_slices_of_their_own_rows(mode):
    value, grads = _sharded(mode.split("_")[0], [SHARD_A, SHARD_B], [[2, 0], [2, 3]],
                            unknown_dims=mode.endswith("dims"))
    np.testing.assert_array_equal(value, [[[6, 7, 8], [0, 1, 2]], [[6, 7, 8], [9, 10, 11]]])
    (kind_a, (values_a, idx_a, shape_a), dtypes_a), (kind_b, (values_b, idx_b, shape_b), _) \
        = grads
    assert kind_a == kind_b == "IndexedSlices"
    # TF 2.21: shard 0 serves id 0 (local row 0); shard 1 serves ids 2, 2, 3 (local 0, 0, 1)
    # in order of appearance, each with its own upstream row, not summed.
    np.testing.assert_array_equal(values_a, [[4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(idx_a, [0])
    np.testing.assert_array_equal(values_b, [[1.0, 2.0, 3.0], [7.0, 8.0, 9.0],
                                             [10.0, 11.0, 12.0]])
    np.testing.assert_array_equal(idx_b, [0, 0, 1])
    np.testing.assert_array_equal(shape_a, [2, 3])
    np.testing.assert_array_equal(shape_b, [2, 3])
    assert dtypes_a == (dg.int32, dg.int32)


@pytest.mark.parametrize("mode", MODES)
def test_a_shard_no_id_reaches_gets_empty_slices(mode):
    value, grads = _sharded(mode, [SHARD_A, SHARD_B], [1, 1, 0])
    np.testing.assert_array_equal(value, [[3, 4, 5], [3, 4, 5], [0, 1, 2]])
    (_, (values_a, idx_a, _), _), (kind_b, (values_b, idx_b, shape_b), _) = grads
    np.testing.assert_array_equal(values_a, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    np.testing.assert_array_equal(idx_a, [1, 1, 0])
    assert kind_b == "IndexedSlices" and np.shape(values_b) == (0, 3)   # TF: (0, 3)
    assert np.size(idx_b) == 0
    np.testing.assert_array_equal(shape_b, [2, 3])


@pytest.mark.parametrize("mode", MODES)
def test_three_uneven_shards_and_int64_ids(mode):
    value, grads = _sharded(mode, [SHARD_A, SHARD_B, SHARD_C], [4, 0, 2, 3], np.int64)
    np.testing.assert_array_equal(value, [[0, 1, 2], [0, 1, 2], [6, 7, 8], [9, 10, 11]])
    expected = [([[4.0, 5.0, 6.0]], [0], [2, 3]),
                ([[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]], [0, 1], [2, 3]),
                ([[1.0, 2.0, 3.0]], [0], [1, 3])]
    for (kind, (values, idx, shape), dtypes), (want_values, want_idx, want_shape) \
            in zip(grads, expected, strict=True):
        assert kind == "IndexedSlices"
        np.testing.assert_array_equal(values, want_values)
        np.testing.assert_array_equal(idx, want_idx)
        np.testing.assert_array_equal(shape, want_shape)
        assert dtypes == (dg.int64, dg.int32)   # TF: indices keep the ids' dtype


def _repeat_grad(mode, x, repeats, axis):
    """The gradient of sum(repeat(x) * weights) and its type."""
    y_shape = np.repeat(x, np.maximum(repeats, 0), axis=axis).shape
    if mode == "eager":
        t = dg.constant(x)
        with dg.GradientTape() as tape:
            tape.watch(t)
            loss = dg.reduce_sum(dg.repeat(t, repeats, axis=axis) * _weights(y_shape))
        grad = tape.gradient(loss, t)
        return type(grad).__name__, np.asarray(grad)
    graph = dg.Graph()
    with graph.as_default():
        p = dg.placeholder(dg.float64, x.shape)
        loss = dg.reduce_sum(dg.repeat(p, repeats, axis=axis) * _weights(y_shape))
        (grad,) = dg.gradients(loss, [p])
        with dg.Session(graph=graph) as sess:
            return type(grad).__name__, sess.run(grad, {p: x})


# (repeats, axis) -> TF 2.21's gradient for x = arange(6).reshape(3, 2).
REPEAT_GRADS = [
    (([2, 0, 1], 0), [[4.0, 6.0], [0.0, 0.0], [5.0, 6.0]]),
    ((2, 1), [[3.0, 7.0], [11.0, 15.0], [19.0, 23.0]]),
    (([1, 2], 1), [[1.0, 5.0], [4.0, 11.0], [7.0, 17.0]]),
    ((3, None), [[6.0, 15.0], [24.0, 33.0], [42.0, 51.0]]),
    (([1, 0, 2, 1, 1, 3], None), [[1.0, 0.0], [5.0, 4.0], [5.0, 21.0]]),
    (([1, -1, 2], 0), [[1.0, 2.0], [0.0, 0.0], [8.0, 10.0]]),   # a negative count: no copy
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("args,expected", REPEAT_GRADS)
def test_repeat_gradient_is_dense_and_sums_the_copies(mode, args, expected):
    kind, grad = _repeat_grad(mode, np.arange(6.0).reshape(3, 2), *args)
    assert kind != "IndexedSlices"   # TF 2.21: a dense Tensor
    np.testing.assert_array_equal(grad, expected)


def test_repeat_counts_must_match_the_axis_length():
    with pytest.raises(ValueError, match="not compatible"):   # TF 2.21: ValueError
        dg.repeat(np.zeros((3, 2)), [1, 2], axis=0)
