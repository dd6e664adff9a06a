"""Array ops beyond the op table: indexing vs NumPy in both modes, errors, unknown-dim
shape inference, gradients with unknown dims, IndexedSlices aggregation, Unique."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
InvalidArgumentError = dg.errors.InvalidArgumentError

X = np.arange(60, dtype=np.float64).reshape(3, 4, 5)


def graph_run(fn, *arrays, unknown=False):
    """(static outputs, values) of fn on placeholders fed with `arrays`."""
    g = dg.Graph()
    with g.as_default():
        ps = [dg.placeholder(dg.as_dtype(a.dtype), [None] * a.ndim if unknown else a.shape)
              for a in arrays]
        out = fn(*ps)
        with dg.Session(graph=g) as sess:
            return out, sess.run(out, dict(zip(ps, arrays)))


# -- __getitem__ against NumPy ------------------------------------------------------------
KEYS = [
    1, -1, (0, 2), (-3, -1, -5), (slice(None), 2), (Ellipsis, -2), (None, 0),
    (slice(1, None, 2),), (slice(None, None, -1), Ellipsis, slice(0, 3)),
    (0, None, slice(-3, -1)), (slice(10, -10, -2),), (Ellipsis,), (Ellipsis, None),
    (slice(None), None, slice(None, None, -2), 1), (slice(-2, None), 3, slice(4, 0, -3)),
    (slice(5, 8),), (1, Ellipsis, None, 2), (slice(None, -1), slice(1, -1), slice(None, 1)),
    (None, None, Ellipsis, None),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_numpy_in_both_modes(key):
    expected = X[key]
    eager = dg.constant(X)[key]
    assert eager.shape == expected.shape
    np.testing.assert_array_equal(eager.numpy(), expected)
    for unknown in (False, True):
        out, value = graph_run(lambda p: p[key], X, unknown=unknown)
        np.testing.assert_array_equal(value, expected)
        assert out.shape.is_compatible_with(expected.shape)
        if not unknown:
            assert out.shape == expected.shape


def test_getitem_scalar_int_tensor_indices():
    x = dg.constant(X)
    np.testing.assert_array_equal(x[dg.constant(2), dg.constant(-1)].numpy(), X[2, -1])
    np.testing.assert_array_equal(x[:, dg.constant(1):dg.constant(3, dg.int64)].numpy(),
                                  X[:, 1:3])
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float64, [3, 4, 5])
        i = dg.placeholder(dg.int32, [])
        row, tail = p[i], p[1, i:]
        assert row.shape == [4, 5]          # a shrunk axis is dropped whatever i is
        assert tail.shape == [None, 5]
        with dg.Session(graph=g) as sess:
            values = sess.run([row, tail], {p: X, i: 2})
    np.testing.assert_array_equal(values[0], X[2])
    np.testing.assert_array_equal(values[1], X[1, 2:])


def test_getitem_iteration_and_len():
    rows = list(dg.constant(X))
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[1].numpy(), X[1])


@pytest.mark.parametrize("key", [[0, 1], 1.0, "a", (slice(0.5, None),), dg.constant([0, 1])],
                         ids=repr)
def test_getitem_rejects_unsupported_keys(key):
    with pytest.raises(TypeError):
        dg.constant(X)[key]


# -- errors -------------------------------------------------------------------------------
RUNTIME_ERRORS = {
    "index": lambda x: x[5],
    "negative-index": lambda x: x[0, -6],
    "zero-step": lambda x: x[::0],
    "reshape-inexact": lambda x: dg.reshape(x, [7, -1]),
    "reshape-size": lambda x: dg.reshape(x, [2, 2]),
    "slice-size": lambda x: dg.slice(x, [0, 0, 0], [4, 1, 1]),
    "split-uneven": lambda x: dg.split(x, 2, axis=-1),
    "reflect-too-wide": lambda x: dg.pad(x, [[0, 0], [4, 0], [0, 0]], "REFLECT"),
}
RANK_ERRORS = {
    "two-ellipses": lambda x: x[..., 0, ...],
    "too-many-indices": lambda x: x[0, 0, 0, 0],
    "tile-length": lambda x: dg.tile(x, [1, 2]),
}


@pytest.mark.parametrize("name", sorted(RUNTIME_ERRORS))
def test_value_errors_as_in_tensorflow(name):
    """Eager: InvalidArgumentError from the kernel; graph with static shapes: ValueError
    at construction; graph with unknown dims: InvalidArgumentError from Session.run."""
    fn = RUNTIME_ERRORS[name]
    with pytest.raises(InvalidArgumentError):
        fn(dg.constant(X))
    with pytest.raises(ValueError):
        graph_run(fn, X)
    with pytest.raises(InvalidArgumentError):
        graph_run(fn, X, unknown=True)


@pytest.mark.parametrize("name", sorted(RANK_ERRORS))
def test_rank_errors_as_in_tensorflow(name):
    """Known from the rank alone: ValueError in graph mode even with unknown dims."""
    fn = RANK_ERRORS[name]
    with pytest.raises(InvalidArgumentError):
        fn(dg.constant(X))
    for unknown in (False, True):
        with pytest.raises(ValueError):
            graph_run(fn, X, unknown=unknown)


def test_runtime_index_errors_name_the_op():
    with pytest.raises(InvalidArgumentError, match="GatherNd"):
        dg.gather_nd(dg.constant(X), [[3, 0]])
    with pytest.raises(InvalidArgumentError, match="ScatterNd"):
        dg.scatter_nd([[4]], [1.0], [3])
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        dg.constant(X)[3]
    with pytest.raises(InvalidArgumentError, match="Range"):
        dg.range(0, 5, 0)


def test_argument_errors():
    with pytest.raises(ValueError, match="num"):
        graph_run(lambda p: dg.unstack(p), X, unknown=True)
    with pytest.raises(ValueError, match="mode"):
        dg.pad(dg.constant(X), [[0, 0]] * 3, mode="WRAP")
    with pytest.raises(ValueError, match="direction"):
        dg.sort(dg.constant(X), direction="UP")
    # TF 2.21 takes a numeric mask as `mask != 0`; a string mask is Where's dtype error
    np.testing.assert_array_equal(dg.boolean_mask(dg.constant(X), [1, 0, 2]).numpy(),
                                  X[[0, 2]])
    with pytest.raises(dg.errors.InvalidArgumentError, match="string"):
        dg.boolean_mask(dg.constant(X), ["a", "", "b"])
    with pytest.raises(dg.errors.InvalidArgumentError, match="batch dimensions"):
        dg.gather_nd(dg.constant(X), [[0]], batch_dims=1)  # TF 2.21: InvalidArgumentError


# -- static shapes with unknown dimensions --------------------------------------------------
def test_unknown_dims_shape_inference():
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float32, [None, 3])
        r = dg.placeholder(dg.float32, None)
        i = dg.placeholder(dg.int32, [None])
        mask = dg.placeholder(dg.bool, [None])
        cases = {
            "reshape": (dg.reshape(p, [-1, 3, 1]), [None, 3, 1]),
            "reshape_flat": (dg.reshape(p, [-1]), [None]),
            "concat0": (dg.concat([p, p], 0), [None, 3]),
            "concat1": (dg.concat([p, p], 1), [None, 6]),
            "getitem": (p[1:], [None, 3]),
            "getitem_col": (p[:, 1], [None]),
            "getitem_newaxis": (p[..., None, ::2], [None, 1, 2]),
            "slice": (dg.slice(p, [1, 1], [-1, 2]), [None, 2]),
            "tile": (dg.tile(p, [2, 2]), [None, 6]),
            "pad": (dg.pad(p, [[1, 1], [0, 2]]), [None, 5]),
            "pad_symmetric": (dg.pad(p, [[1, 1], [3, 0]], "SYMMETRIC"), [None, 6]),
            "split": (dg.split(p, 3, axis=1)[0], [None, 1]),
            "split_sizes": (dg.split(p, [1, -1], axis=1)[1], [None, 2]),
            "unstack": (dg.unstack(p, axis=1)[2], [None]),
            "reverse": (dg.reverse(p, [0]), [None, 3]),
            "sort": (dg.sort(p, axis=0), [None, 3]),
            "one_hot": (dg.one_hot(i, 4), [None, 4]),
            "gather_nd": (dg.gather_nd(p, dg.reshape(i, [-1, 1])), [None, 3]),
            "scatter_nd": (dg.scatter_nd(dg.reshape(i, [-1, 1]), p, [5, 3]), [5, 3]),
            "boolean_mask": (dg.boolean_mask(p, mask), [None, 3]),
            "shape_n": (dg.shape_n([p, r])[0], [2]),
            "range": (dg.range(dg.size(i)), [None]),
            "unknown_rank": (r[0], None),
        }
    for name, (tensor, expected) in cases.items():
        assert tensor.shape == dg.TensorShape(expected), (name, tensor.shape)


# -- gradients with unknown dims, both modes ------------------------------------------------
GRAD_CASES = {
    "strided_slice": lambda x: x[1:, ::-2] * 2.0,
    "getitem_shrink": lambda x: x[-1, None, 1:],
    "slice": lambda x: dg.slice(x, [1, 0], [-1, 2]),
    "concat": lambda x: dg.concat([x, x[:1] * 3.0], axis=0),
    "split": lambda x: dg.split(x, [1, -1], axis=1)[1] * 5.0,
    "tile": lambda x: dg.tile(x, [2, 1]),
    "pad_constant": lambda x: dg.pad(x, [[1, 0], [0, 2]]),
    "pad_reflect": lambda x: dg.pad(x, [[2, 1], [1, 1]], "REFLECT"),
    "pad_symmetric": lambda x: dg.pad(x, [[3, 0], [0, 4]], "SYMMETRIC"),
    "sort": lambda x: dg.sort(x, axis=0, direction="DESCENDING"),
    "gather_nd": lambda x: dg.gather_nd(x, [[0, 1], [2, 3], [0, 1]]),
    "boolean_mask": lambda x: dg.boolean_mask(x, [True, False, True]),
}


def _loss(y):
    """A loss whose gradient is still a function of y (so second order is not trivial)."""
    ramp = dg.reshape(dg.cast(dg.range(dg.size(y)), y.dtype), dg.shape(y))
    return dg.reduce_sum(y * ramp + y * y * y)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_with_unknown_dims_match_eager(name):
    """First and second order: graph (unknown and known dims) == eager."""
    fn = GRAD_CASES[name]
    x = np.random.default_rng(3).standard_normal((3, 4))
    w = np.random.default_rng(4).standard_normal((3, 4))
    xt = dg.constant(x)
    with dg.GradientTape() as outer:
        outer.watch(xt)
        with dg.GradientTape() as tape:
            tape.watch(xt)
            loss = _loss(fn(xt))
        grad = dg.convert_to_tensor(tape.gradient(loss, xt))
        second = dg.reduce_sum(grad * w)
    eager = [grad.numpy(), dg.convert_to_tensor(outer.gradient(second, xt)).numpy()]

    def graph_grads(p):
        grad = dg.convert_to_tensor(dg.gradients(_loss(fn(p)), [p])[0])
        return [grad, dg.convert_to_tensor(dg.gradients(dg.reduce_sum(grad * w), [p])[0])]

    for unknown in (False, True):
        _, values = graph_run(graph_grads, x, unknown=unknown)
        for got, want in zip(values, eager):
            np.testing.assert_allclose(got, want, rtol=1e-12)


# -- IndexedSlices ------------------------------------------------------------------------------
def _two_gathers(v):
    return dg.reduce_sum(dg.gather(v, [0, 2])) + dg.reduce_sum(dg.gather(v, [2, 2, 3]) * 2.0)


EXPECTED_DENSE = np.array([[1.] * 3, [0.] * 3, [5.] * 3, [2.] * 3])


def test_indexed_slices_aggregate_in_eager_mode():
    v = dg.Variable(np.arange(12.).reshape(4, 3))
    with dg.GradientTape() as tape:
        loss = _two_gathers(v)
    grad = tape.gradient(loss, v)
    assert isinstance(grad, dg.IndexedSlices)
    assert sorted(grad.indices.numpy().tolist()) == [0, 2, 2, 2, 3]
    np.testing.assert_array_equal(dg.convert_to_tensor(grad).numpy(), EXPECTED_DENSE)
    np.testing.assert_array_equal(dg.add_n([grad, grad]).numpy(), 2 * EXPECTED_DENSE)
    np.testing.assert_array_equal(dg.add_n([grad, dg.ones([4, 3], dg.float64)]).numpy(),
                                  EXPECTED_DENSE + 1)


def test_indexed_slices_aggregate_in_graph_mode():
    g = dg.Graph()
    with g.as_default():
        v = dg.Variable(np.arange(12.).reshape(4, 3))
        grad = dg.gradients(_two_gathers(v), [v])[0]
        assert isinstance(grad, dg.IndexedSlices)
        dense, doubled = dg.convert_to_tensor(grad), dg.add_n([grad, grad])
        assert dense.shape == [4, 3]
        with dg.Session(graph=g) as sess:
            sess.run(dg.global_variables_initializer())
            sliced, dense, doubled = sess.run([grad, dense, doubled])
    assert isinstance(sliced, dg.IndexedSlicesValue)
    assert sorted(sliced.indices.tolist()) == [0, 2, 2, 2, 3]
    np.testing.assert_array_equal(dense, EXPECTED_DENSE)
    np.testing.assert_array_equal(doubled, 2 * EXPECTED_DENSE)


def test_clip_by_global_norm_keeps_indexed_slices_and_none():
    slices = dg.IndexedSlices(dg.constant([[3.0, 0.0]]), dg.constant([1]), dg.constant([3, 2]))
    dense = dg.constant([0.0, 4.0])
    clipped, norm = dg.clip_by_global_norm([slices, None, dense], 1.0)
    assert float(norm) == pytest.approx(5.0)
    assert clipped[1] is None and isinstance(clipped[0], dg.IndexedSlices)
    np.testing.assert_allclose(clipped[0].values.numpy(), [[0.6, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(clipped[2].numpy(), [0.0, 0.8], rtol=1e-6)
    same, _ = dg.clip_by_global_norm([dense], 10.0)
    np.testing.assert_allclose(same[0].numpy(), [0.0, 4.0])
    with np.errstate(invalid="ignore"):
        nan, _ = dg.clip_by_global_norm([dg.constant([np.inf, 1.0])], 1.0)
    assert np.all(np.isnan(nan[0].numpy()))
    with pytest.raises(TypeError):
        dg.clip_by_global_norm(dense, 1.0)


def test_clip_by_norm_of_zero_has_finite_gradient():
    x = dg.constant(np.zeros((2, 2)))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.clip_by_norm(x, 1.0)
    np.testing.assert_array_equal(y.numpy(), 0.0)
    assert np.all(np.isfinite(tape.gradient(y, x).numpy()))


# -- Unique: no gradient, as in TensorFlow ------------------------------------------------------
def test_unique_values_and_indices():
    y, idx = dg.unique(dg.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    np.testing.assert_array_equal(y.numpy(), [1, 2, 4, 7, 8])
    np.testing.assert_array_equal(idx.numpy(), [0, 0, 1, 2, 2, 2, 3, 4, 4])
    assert idx.dtype == dg.int32
    _, idx64 = dg.unique(dg.constant([3.0, 1.0, 3.0]), out_idx=dg.int64)
    assert idx64.dtype == dg.int64 and idx64.numpy().tolist() == [0, 1, 0]


def test_unique_has_no_gradient_in_either_mode():
    x = dg.constant([1.0, 2.0, 1.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y, _ = dg.unique(x)
        loss = dg.reduce_sum(y)
    with pytest.raises(LookupError, match=r"No gradient defined for operation .*\(op type: "
                                          r"Unique\)"):
        tape.gradient(loss, x)
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float32, [3])
        with pytest.raises(LookupError, match=r"op type: Unique"):
            dg.gradients(dg.reduce_sum(dg.unique(p)[0]), [p])


# -- creation and friends ---------------------------------------------------------------------
def test_range_dtypes_and_values():
    assert dg.range(5).numpy().tolist() == [0, 1, 2, 3, 4] and dg.range(5).dtype == dg.int32
    assert dg.range(10, 1, -3).numpy().tolist() == [10, 7, 4]
    assert dg.range(1, 2, 0.5).dtype == dg.float32
    assert dg.range(3, dtype=dg.float64).dtype == dg.float64
    assert dg.range(dg.constant(3, dg.int64)).dtype == dg.int64
    assert dg.range(3, 3).shape == [0]


def test_eye_linspace_one_hot():
    np.testing.assert_array_equal(dg.eye(2, 3).numpy(), np.eye(2, 3, dtype=np.float32))
    assert dg.eye(2, batch_shape=[4]).shape == [4, 2, 2]
    np.testing.assert_array_equal(dg.eye(dg.constant(3), dtype=dg.int32).numpy(), np.eye(3))
    np.testing.assert_allclose(dg.linspace(0.0, 1.0, 1).numpy(), [0.0])
    hot = dg.one_hot([1, -1], 3, on_value=5.0, off_value=-1.0, dtype=dg.float64)
    assert hot.dtype == dg.float64
    np.testing.assert_array_equal(hot.numpy(), [[-1, 5, -1], [-1, -1, -1]])
    assert dg.one_hot([0], 2, dtype=dg.bool).numpy().tolist() == [[True, False]]


def test_sort_is_stable_and_argsort_descending():
    x = dg.constant([3, 1, 3, 2, 1])
    np.testing.assert_array_equal(dg.argsort(x).numpy(), [1, 4, 3, 0, 2])
    np.testing.assert_array_equal(dg.argsort(x, direction="DESCENDING").numpy(),
                                  [0, 2, 3, 1, 4])
    np.testing.assert_array_equal(dg.sort(x, direction="DESCENDING").numpy(), [3, 3, 2, 1, 1])


def test_linspace_gradient():
    a, b = dg.constant(1.0), dg.constant(3.0)
    with dg.GradientTape() as tape:
        tape.watch([a, b])
        y = dg.reduce_sum(dg.linspace(a, b, 5) * dg.constant([1.0, 0, 0, 0, 2.0]))
    da, db = tape.gradient(y, [a, b])
    assert (float(da), float(db)) == (1.0, 2.0)


def test_stop_gradient_blocks_gradient_in_both_modes():
    x = dg.constant([1.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(x * dg.stop_gradient(x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.0, 2.0])
    _, value = graph_run(lambda p: dg.gradients(dg.reduce_sum(p * dg.stop_gradient(p)), [p])[0],
                         np.array([1.0, 2.0]))
    np.testing.assert_array_equal(value, [1.0, 2.0])


def test_float_range_counts_and_steps_in_its_own_dtype_as_tensorflow():
    """TF 2.21 sizes a float range as ceil(|(limit - start) / delta|) in the dtype and
    makes element i as start + T(i) * delta in it (forwardprop_test's fused batch-norm
    input: 800 float32 elements, where double arithmetic counts 801)."""
    increment = dg.constant(3.0) / dg.constant(800.0)
    values = dg.range(-2.0, 1.0, increment).numpy()
    assert values.shape == (800,) and values.dtype == np.float32
    delta = np.float32(3.0) / np.float32(800.0)
    np.testing.assert_array_equal(values, np.float32(-2.0) + np.arange(800, dtype=np.float32)
                                  * delta)
    np.testing.assert_array_equal(   # recorded from TF 2.21
        dg.range(0.1, 5.3, 0.7).numpy(),
        np.array([0.1, 0.8, 1.5, 2.1999998, 2.8999999, 3.6, 4.2999997, 5.0], np.float32))
    with dg.Graph().as_default():
        assert dg.range(-2.0, 1.0, np.float32(3.0) / np.float32(800.0)).shape.as_list() == [800]
