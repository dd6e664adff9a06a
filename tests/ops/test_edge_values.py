"""Answers that used to be silently wrong now match TensorFlow's answer or error.

Every expected value, dtype and exception class here was recorded from
TensorFlow 2.21 (eager unless the test says graph).
"""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from modes import MODES, run

NAN = float("nan")


# -- norms ----------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ord_", ["euclidean", 1, 2, np.inf, 3.0])
def test_vector_norm_of_nan_is_nan(mode, ord_):
    value = run(mode, lambda x: dg.norm(x, ord=ord_), np.array([1.0, NAN, 2.0], np.float32))
    assert np.isnan(value)


@pytest.mark.parametrize("ord_", ["euclidean", 1, np.inf, "fro"])
def test_matrix_norm_of_nan_and_its_gradient_are_nan(ord_):
    x = dg.constant([[1.0, NAN], [0.0, 2.0]])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.norm(x, ord=ord_, axis=[0, 1])
    assert np.isnan(y.numpy())
    assert np.isnan(tape.gradient(y, x).numpy()).all()  # TF 2.21: all four NaN


@pytest.mark.parametrize("ord_, expected", [
    ("euclidean", [NAN, NAN, NAN]), (1, [1.0, NAN, 0.0]), (2, [NAN, NAN, NAN]),
    (np.inf, [NAN, NAN, NAN]), (3.0, [NAN, NAN, NAN])])
def test_vector_norm_gradient_keeps_nan(ord_, expected):
    x = dg.constant([1.0, NAN, 0.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.norm(x, ord=ord_)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)


def test_norm_of_inf_and_its_gradient():
    x = dg.constant([1.0, np.inf, 0.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.norm(x)
    assert y.numpy() == np.inf
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, NAN, 0.0])


def test_norm_at_zero_keeps_the_documented_subgradient():
    x = dg.constant([0.0, 0.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.norm(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0])


@pytest.mark.parametrize("ord_, dtype, value", [
    ("euclidean", dg.complex64, 5.477226 + 0j), (2, dg.complex64, 5.477226 + 0j),
    (1, dg.float32, 8.0), (np.inf, dg.float32, 5.0), (3.0, dg.float32, 5.1172304)])
def test_complex_vector_norm_dtypes(ord_, dtype, value):
    y = dg.norm(dg.constant([3 + 4j, 1j, -2], dg.complex64), ord=ord_)
    assert y.dtype == dtype
    np.testing.assert_allclose(y.numpy(), value, rtol=1e-6)


@pytest.mark.parametrize("ord_, dtype, value", [
    ("euclidean", dg.complex128, 5.656854249492381 + 0j),
    ("fro", dg.complex128, 5.656854249492381 + 0j), (1, dg.float64, 7.0),
    (2, dg.float64, 5.402860904953309), (np.inf, dg.float64, 6.0)])
def test_complex_matrix_norm_dtypes(ord_, dtype, value):
    m = dg.constant([[3 + 4j, 1j], [2, -1 - 1j]], dg.complex128)
    y = dg.linalg.norm(m, ord=ord_, axis=[0, 1])
    assert y.dtype == dtype
    np.testing.assert_allclose(y.numpy(), value, rtol=1e-12)


def test_complex_norm_gradient():
    x = dg.constant([3 + 4j, 1j], dg.complex128)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.norm(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               [0.58834841 + 0.78446454j, 0.19611614j], rtol=1e-7)


# -- complex parts, dtypes ---------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_real_and_imag_of_a_scalar_keep_shape(mode):
    z = np.array(3 + 4j)
    real = run(mode, dg.math.real, z)
    imag = run(mode, dg.math.imag, z)
    assert np.shape(real) == () and real == 3.0 and real.dtype == np.float64
    assert np.shape(imag) == () and imag == 4.0


def test_abs_of_complex_is_real():
    y = dg.abs(dg.constant(3 + 4j, dg.complex64))
    assert y.dtype == dg.float32 and y.numpy() == 5.0


@pytest.mark.parametrize("name, dtype", [("float", dg.float32), ("double", dg.float64),
                                         ("half", dg.float16)])
def test_zeros_with_dtype_names(name, dtype):
    assert dg.zeros([2], name).dtype == dtype
    assert dg.ones([2], dtype=name).dtype == dtype


@pytest.mark.parametrize("bad", ["int", None, int, complex, str, "complex", "f4", "", "foo"])
def test_dtypes_tensorflow_rejects(bad):
    with pytest.raises(TypeError):
        dg.zeros([2], dtype=bad)
    with pytest.raises(TypeError):
        dg.as_dtype(bad)


@pytest.mark.parametrize("value, dtype", [(float, dg.float32), (bool, dg.bool),
                                          (np.float32, dg.float32), (np.int64, dg.int64),
                                          (np.dtype("float64"), dg.float64), (3, dg.int32),
                                          (1, dg.float32), (9, dg.int64)])
def test_as_dtype_accepts_what_tensorflow_accepts(value, dtype):
    assert dg.as_dtype(value) == dtype


# -- concat, stack, gather_nd -------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_of_a_single_tensor_is_that_tensor(mode, axis):
    x = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
    np.testing.assert_array_equal(run(mode, lambda t: dg.concat(t, axis), x), x)
    np.testing.assert_array_equal(run(mode, lambda t: dg.concat([t], axis), x), x)


def test_concat_of_nothing_raises_as_tensorflow():
    with pytest.raises(dg.errors.InvalidArgumentError):
        dg.concat([], 0)
    with dg.Graph().as_default(), pytest.raises(ValueError):
        dg.concat([], 0)


@pytest.mark.parametrize("mode", MODES)
def test_gather_nd_with_index_depth_zero_repeats_params_per_batch(mode):
    params = np.array([[1, 2], [3, 4]], np.int32)
    out = run(mode, lambda p: dg.gather_nd(p, dg.zeros([2, 0], dg.int32)), params)
    np.testing.assert_array_equal(out, [[[1, 2], [3, 4]], [[1, 2], [3, 4]]])
    out = run(mode, lambda p: dg.gather_nd(p, dg.zeros([3, 0], dg.int32)),
              np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(out, [[1, 2, 3]] * 3)


@pytest.mark.parametrize("mode", MODES)
def test_gather_nd_batch_dims(mode):
    params = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    indices = [[[1, 2], [0, 0]], [[2, 3], [1, 1]]]
    out = run(mode, lambda p: dg.gather_nd(p, indices, batch_dims=1), params)
    np.testing.assert_array_equal(out, [[6, 0], [23, 17]])
    out = run(mode, lambda p: dg.gather_nd(p, dg.zeros([2, 0], dg.int32), batch_dims=1),
              np.array([[1, 2], [3, 4]], np.int32))
    np.testing.assert_array_equal(out, [[1, 2], [3, 4]])


def test_gather_nd_batch_dims_gradient():
    params = dg.constant(np.arange(6.0).reshape(2, 3))
    with dg.GradientTape() as tape:
        tape.watch(params)
        y = dg.reduce_sum(dg.gather_nd(params, [[2], [2]], batch_dims=1))
    np.testing.assert_array_equal(tape.gradient(y, params).numpy(), [[0, 0, 1], [0, 0, 1]])


def test_stack_of_nothing_is_an_empty_float32_vector():
    out = dg.stack([])
    assert out.dtype == dg.float32 and out.shape == [0]
    out = dg.stack([dg.zeros([0]), dg.zeros([0])])
    assert out.shape == [2, 0]


# -- mixed dtypes and bad index dtypes --------------------------------------------------
@pytest.mark.parametrize("build", [
    lambda a, b: dg.add_n([a, b]), lambda a, b: dg.concat([a, b], 0),
    lambda a, b: dg.stack([a, b]), lambda a, b: dg.where([True], a, b),
    lambda a, b: dg.einsum("i,i->", a, b), lambda a, b: dg.tensordot(a, b, 1),
    lambda a, b: dg.tensor_scatter_nd_update(a, [[0]], b)])
def test_mixed_dtypes_raise_instead_of_promoting(build):
    a = dg.constant([1.0])
    b = dg.constant([1.0], dg.float64)
    with pytest.raises(dg.errors.InvalidArgumentError, match="float64"):
        build(a, b)
    with dg.Graph().as_default(), pytest.raises(TypeError):
        build(dg.constant([1.0]), dg.constant([1.0], dg.float64))


def test_add_n_of_int_and_float_raises():
    with pytest.raises(dg.errors.InvalidArgumentError):
        dg.add_n([dg.constant(1), dg.constant(1.0)])


def test_one_hot_with_float_indices_raises():
    with pytest.raises(dg.errors.InvalidArgumentError):
        dg.one_hot(dg.constant([0.0, 1.0]), 3)
    with pytest.raises(dg.errors.InvalidArgumentError):
        dg.one_hot([0.0, 1.0], 3)
    with dg.Graph().as_default(), pytest.raises(TypeError):
        dg.one_hot(dg.placeholder(dg.float32, [2]), 3)


# -- clip_by_norm -----------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("clip, expected", [(-1.0, [0.0, 0.0]), (0.0, [0.0, 0.0]),
                                            (1.0, [0.6, 0.8]), (10.0, [3.0, 4.0])])
def test_clip_by_norm(mode, clip, expected):
    out = run(mode, lambda t: dg.clip_by_norm(t, clip), np.array([3.0, 4.0], np.float32))
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    out = run(mode, lambda t: dg.clip_by_norm(t, dg.constant(clip)),
              np.array([3.0, 4.0], np.float32))
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_clip_by_norm_nan_inf_and_negative_norm_per_row():
    np.testing.assert_array_equal(dg.clip_by_norm(dg.constant([3.0, NAN]), 1.0).numpy(),
                                  [NAN, NAN])
    np.testing.assert_array_equal(dg.clip_by_norm(dg.constant([np.inf, 1.0]), 1.0).numpy(),
                                  [NAN, 0.0])
    out = dg.clip_by_norm(dg.constant([[3.0, 4.0], [1.0, 0.0]]), -1.0, axes=[1])
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 2)))


# -- empty inputs -------------------------------------------------------------------------
EMPTY_REDUCTIONS = [  # (function, input dtype, value over all of [0], over axis 1 of [2, 0])
    (dg.reduce_sum, np.float32, 0.0, [0.0, 0.0]),
    (dg.reduce_mean, np.float32, NAN, [NAN, NAN]),
    (dg.reduce_mean, np.complex64, 0j, [0j, 0j]),  # TF 2.21 gives 0 (not NaN) for complex
    (dg.reduce_max, np.float32, -np.inf, [-np.inf, -np.inf]),
    (dg.reduce_min, np.float32, np.inf, [np.inf, np.inf]),
    (dg.reduce_prod, np.float32, 1.0, [1.0, 1.0]),
    (dg.reduce_logsumexp, np.float32, -np.inf, [-np.inf, -np.inf]),
    (dg.reduce_all, np.bool_, True, [True, True]),
    (dg.reduce_any, np.bool_, False, [False, False]),
    (dg.reduce_max, np.int32, -2147483648, [-2147483648] * 2),
    (dg.reduce_min, np.int32, 2147483647, [2147483647] * 2),
]


@pytest.mark.filterwarnings("error::RuntimeWarning")  # TF warns of nothing here
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduce, dtype, everything, per_row", EMPTY_REDUCTIONS)
def test_reductions_of_empty_inputs(mode, reduce, dtype, everything, per_row):
    np.testing.assert_array_equal(run(mode, reduce, np.zeros([0], dtype)), everything)
    np.testing.assert_array_equal(run(mode, lambda x: reduce(x, axis=1),
                                      np.zeros([2, 0], dtype)), per_row)
    out = run(mode, lambda x: reduce(x, axis=0), np.zeros([2, 0], dtype))
    assert out.shape == (0,)


def test_reduce_max_gradient_of_an_empty_input_is_empty():
    x = dg.zeros([2, 0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(dg.reduce_max(x, axis=1))
    assert tape.gradient(y, x).shape == [2, 0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", [dg.nn.softmax, dg.nn.log_softmax])
@pytest.mark.parametrize("shape", [[0], [2, 0], [0, 3]])
def test_softmax_of_empty_inputs_is_empty(mode, fn, shape):
    assert run(mode, fn, np.zeros(shape, np.float32)).shape == tuple(shape)


def test_argmax_over_an_empty_axis_raises():
    with pytest.raises(dg.errors.InvalidArgumentError):
        dg.argmax(dg.zeros([0]))
    assert dg.argmax(dg.zeros([2, 0]), axis=0).shape == [0]


# -- NaN in linear algebra kernels ----------------------------------------------------------
def test_triangular_solve_spreads_nan_and_inf_along_the_substitution():
    out = dg.linalg.triangular_solve(dg.constant([[NAN, 0.0], [1.0, 2.0]]),
                                     dg.constant([[1.0], [1.0]]))
    assert np.isnan(out.numpy()).all()
    a = np.array([[2.0, 0, 0], [1, 3, 0], [np.inf, 1, 4]])
    b = np.ones((3, 2))
    np.testing.assert_allclose(dg.linalg.triangular_solve(a, b).numpy(),
                               [[0.5, 0.5], [1 / 6, 1 / 6], [-np.inf, -np.inf]])
    np.testing.assert_allclose(dg.linalg.triangular_solve(a, b, adjoint=True).numpy(),
                               [[-np.inf, -np.inf], [0.25, 0.25], [0.25, 0.25]])


def test_svd_of_a_matrix_with_nan_is_nan_for_that_matrix_only():
    x = np.stack([np.eye(2), np.array([[1.0, NAN], [0.0, 1.0]])])
    s, u, v = dg.linalg.svd(x)
    assert np.isnan(s.numpy()[1]).all() and np.isnan(u.numpy()[1]).all()
    np.testing.assert_allclose(s.numpy()[0], [1.0, 1.0])
