"""The tf.math / tf.* names added for TF's gradient tests, against values recorded from
TensorFlow 2.21 (special values, complex conventions, errors), in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from modes import MODES


def _grads(mode, f, xs, upstream=None):
    """f(*xs) and the gradients of sum(upstream * f) w.r.t. each x, in `mode`."""
    if mode == "eager":
        ts = [dg.constant(x) for x in xs]
        with dg.GradientTape() as tape:
            tape.watch(ts)
            y = f(*ts)
        grads = tape.gradient(y, ts, output_gradients=upstream)
        return np.asarray(y), [np.asarray(g) for g in grads]
    g = dg.Graph()
    with g.as_default():
        ps = [dg.placeholder(dg.as_dtype(np.asarray(x).dtype), np.shape(x)) for x in xs]
        y = f(*ps)
        grads = dg.gradients(y, ps, grad_ys=None if upstream is None else dg.constant(upstream))
        with dg.Session(graph=g) as sess:
            value, grads = sess.run([y, grads], dict(zip(ps, xs)))
    return value, grads


@pytest.mark.parametrize("mode", MODES)
def test_floormod_has_gradients_for_both_inputs(mode):
    x, n = np.array([131.0, -7.5, 5.0]), np.array([17.0, 2.0, -3.0])
    _, (dx, dn) = _grads(mode, dg.math.floormod, [x, n])
    np.testing.assert_array_equal(dx, [1.0, 1.0, 1.0])     # TF 2.21
    np.testing.assert_array_equal(dn, [-7.0, 4.0, 2.0])    # TF 2.21: -floor(x / n)


@pytest.mark.parametrize("mode", MODES)
def test_sign_has_a_zero_gradient_not_none(mode):
    _, (dx,) = _grads(mode, dg.sign, [np.array([131.0, -7.5, 0.0])])
    np.testing.assert_array_equal(dx, [0.0, 0.0, 0.0])


@pytest.mark.parametrize("mode", MODES)
def test_euclidean_norm_gradient_is_nan_at_zero_and_keeps_negative_zero(mode):
    _, (dx,) = _grads(mode, dg.math.reduce_euclidean_norm, [np.array([0.0, -0.0])])
    assert np.isnan(dx).all()                              # TF 2.21 (math_grad_test)
    _, (dx,) = _grads(mode, dg.math.reduce_euclidean_norm, [np.array([1.0, -0.0])])
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(1 / dx, [1.0, -np.inf])


@pytest.mark.parametrize("mode", MODES)
def test_complex_euclidean_norm_gradient_is_tfs(mode):
    x = np.array([[3 + 1j, 4], [1j, 2]])
    _, (dx,) = _grads(mode, lambda t: dg.math.reduce_euclidean_norm(t, 1), [x],
                      np.array([2 + 1j, 1j]))
    np.testing.assert_allclose(dx, [[0.9805806756909203 + 0.9805806756909203j,   # TF 2.21
                                     1.5689290811054726 + 0.7844645405527363j],
                                    [-0.4472135954999579, 0.8944271909999159j]])


@pytest.mark.parametrize("mode", MODES)
def test_complex_unsorted_segment_prod_gradient_is_tfs(mode):
    x = np.array([[1 + 1j, 2], [3j, 4]])
    _, (dx,) = _grads(mode, lambda t: dg.math.unsorted_segment_prod(t, [0, 0], 1), [x],
                      np.array([[1 + 2j, 1j]]))
    np.testing.assert_allclose(dx, [[-6 + 3j, 4j], [-1 + 3j, 2j]])   # TF 2.21 (no conj)


@pytest.mark.parametrize("mode", MODES)
def test_xlog1py_and_multiply_no_nan_special_values(mode):
    x, y = np.array([0.0, 0.1, 0.0]), np.array([-1.0, -1.0, 3.1])
    _, (dx, dy) = _grads(mode, dg.math.xlog1py, [x, y])
    np.testing.assert_array_equal(dx, [0.0, -np.inf, 0.0])           # TF 2.21
    np.testing.assert_array_equal(dy, [0.0, np.inf, 0.0])
    x, y = np.array([0.0, 1.0, np.nan, np.inf]), np.zeros(4)
    value, (dx, dy) = _grads(mode, dg.math.multiply_no_nan, [x, y])
    np.testing.assert_array_equal(value, [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(dx, [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(dy, [0.0, 1.0, np.nan, np.inf])


@pytest.mark.parametrize("mode", MODES)
def test_nextafter_gradient_is_one_and_zero_with_broadcasting(mode):
    _, (dx, dy) = _grads(mode, dg.math.nextafter, [np.array([[0.1], [2.0]]),
                                                   np.array([3.1, -1.0])])
    np.testing.assert_array_equal(dx, [[2.0], [2.0]])                # TF 2.21
    np.testing.assert_array_equal(dy, [0.0, 0.0])


@pytest.mark.parametrize("mode", MODES)
def test_segment_extrema_split_ties_and_empty_segments(mode):
    d = np.array([1.0, 2.0, 2.0, 5.0])
    value, (dd,) = _grads(mode, lambda t: dg.math.segment_max(t, [0, 0, 0, 2]), [d])
    np.testing.assert_array_equal(value, [2.0, 0.0, 5.0])            # TF 2.21
    np.testing.assert_array_equal(dd, [0.0, 0.5, 0.5, 1.0])
    value, (dd,) = _grads(mode, lambda t: dg.math.unsorted_segment_min(t, [1, 1, 1, -1], 2),
                          [d.astype(np.float32)])
    np.testing.assert_array_equal(value, [np.finfo(np.float32).max, 1.0])
    np.testing.assert_array_equal(dd, [1.0, 0.0, 0.0, 0.0])


def test_segment_errors_and_integer_identities():
    with pytest.raises(dg.errors.InvalidArgumentError, match="not increasing"):
        dg.math.segment_sum([1.0, 2.0, 3.0], [1, 0, 1])
    np.testing.assert_array_equal(dg.math.unsorted_segment_max([1, 5], [0, 0], 2),
                                  [5, np.iinfo(np.int32).min])       # TF 2.21
    with pytest.raises(TypeError):
        dg.math.reduce_variance([1, 2])


@pytest.mark.parametrize("mode", MODES)
def test_reduce_std_value_and_gradient(mode):
    value, (dx,) = _grads(mode, dg.math.reduce_std, [np.array([[1.0, 2.0], [3.0, 5.0]],
                                                               np.float32)])
    np.testing.assert_allclose(value, 1.47902, rtol=1e-5)            # TF 2.21
    np.testing.assert_allclose(dx, [[-0.295803964138031, -0.1267731487751007],
                                    [0.04225769639015198, 0.38031941652297974]], rtol=1e-5)
    assert dg.math.reduce_variance(dg.constant([1 + 1j, 3 - 1j])).dtype == dg.float64


def test_shuffle_permutes_rows_and_is_not_differentiable():
    x = dg.constant(np.arange(12.0).reshape(6, 2))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.random.shuffle(x, seed=3)
    assert sorted(np.asarray(y)[:, 0].tolist()) == [0, 2, 4, 6, 8, 10]
    np.testing.assert_array_equal(np.asarray(y)[:, 1], np.asarray(y)[:, 0] + 1)
    assert tape.gradient(y, x) is None


def test_embedding_lookup_gradient_is_indexed_slices():
    params = dg.Variable(np.ones((4, 2)))
    with dg.GradientTape() as tape:
        y = dg.reduce_sum(dg.nn.embedding_lookup(params, [[3, 0], [3, 1]]))
    grad = tape.gradient(y, params)
    assert isinstance(grad, dg.IndexedSlices)
    np.testing.assert_array_equal(dg.convert_to_tensor(grad), [[1, 1], [1, 1], [0, 0], [2, 2]])


def test_reciprocal_no_nan_round_and_truncated_division_values():
    np.testing.assert_array_equal(dg.math.reciprocal_no_nan([0.0, 2.0]), [0.0, 0.5])
    np.testing.assert_array_equal(dg.round([0.5, 1.5, 2.5, -0.5]), [0.0, 2.0, 2.0, -0.0])  # TF
    assert float(dg.truncatemod(-7.0, 3.0)) == -1.0 and int(dg.truncatediv(-7, 3)) == -2
    x = dg.constant([1.5, 2.5])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.floor(x) * x
    np.testing.assert_array_equal(tape.gradient(y, x), [1.0, 2.0])   # floor: no gradient
    with pytest.raises(dg.errors.InvalidArgumentError, match="not compatible"):
        dg.ensure_shape([1.0, 2.0], [3])


def test_bool_ones_and_zeros_like_a_tensor_of_unknown_shape():
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float32, [None])
        ones, zeros = dg.ones_like(p, dtype=dg.bool), dg.zeros_like(p, dtype=dg.bool)
        with dg.Session() as sess:
            got = sess.run([ones, zeros], {p: [1.0, 2.0]})
    assert got[0].tolist() == [True, True] and got[1].tolist() == [False, False]


def test_forward_mode_of_euclidean_norm_is_finite():
    x = dg.constant([[1.0, -2.0], [3.0, 4.0]])
    with dg.autodiff.ForwardAccumulator(x, dg.ones_like(x)) as acc:
        y = dg.math.reduce_euclidean_norm(x)
    np.testing.assert_allclose(acc.jvp(y), 1.095445, rtol=1e-6)   # TF 2.21


def test_gamma_functions_match_tensorflow():
    x = np.array([1e-3, 0.1, 7.3, 150.0, -2.5])
    np.testing.assert_allclose(dg.math.digamma(x), [-1000.57557193, -10.42375494, 1.91782034,
                                                   5.00729826, 1.10315664], rtol=1e-8)  # TF
    np.testing.assert_allclose(dg.math.polygamma(np.array([1.0, 3.0]), np.array([0.01, 20.0])),
                               [1.00016212e+04, 2.69374221e-04], rtol=1e-8)         # TF
    assert np.isinf(dg.math.lgamma([0.0])).all() and np.isnan(dg.math.digamma([0.0])).all()
    n, x = dg.constant([1.0, 2.0]), dg.constant([0.5, 3.0])
    with dg.GradientTape() as tape:
        tape.watch([n, x])
        y = dg.math.polygamma(n, x)
    dn, dx = tape.gradient(y, [n, x])
    assert dn is None
    np.testing.assert_allclose(dx, [-16.828794, 0.11893941], rtol=1e-6)            # TF


def test_dynamic_partition_and_stitch_gradients_match_tensorflow():
    x = dg.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with dg.GradientTape() as tape:
        tape.watch(x)
        parts = dg.dynamic_partition(x, [1, 0, 1], 2)
        stitched = dg.dynamic_stitch([[2, 0], [1]], [parts[1] * [[1.0, 1.0], [2.0, 2.0]],
                                                      parts[0]])
        y = dg.reduce_sum(parts[1] * 3.0) + dg.reduce_sum(stitched * stitched)
    np.testing.assert_array_equal(stitched, [[10, 12], [3, 4], [1, 2]])     # TF 2.21
    np.testing.assert_array_equal(tape.gradient(y, x), [[5, 7], [6, 8], [43, 51]])
    z = dg.constant([1 + 1j, 2 - 1j])
    with dg.GradientTape() as tape:
        tape.watch(z)
        a = dg.math.angle(z)
    np.testing.assert_allclose(tape.gradient(a, z), [-0.5 + 0.5j, 0.2 + 0.4j])  # TF 2.21


def test_fused_batch_norm_returns_tfs_bessel_corrected_batch_variance():
    x = dg.constant(np.arange(24.0).reshape(2, 2, 3, 2).astype(np.float32))
    y, mean, variance = dg.nn.fused_batch_norm(x, [1.0, 2.0], [0.0, 1.0], epsilon=0.001)
    np.testing.assert_allclose(np.asarray(y).ravel()[:4],                     # TF 2.21
                               [-1.5932382, -2.1864765, -1.3035586, -1.6071172], rtol=1e-6)
    np.testing.assert_allclose(mean, [11.0, 12.0])
    np.testing.assert_allclose(variance, [52.000004, 52.000004], rtol=1e-6)
