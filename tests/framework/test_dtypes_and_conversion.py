"""DTypes, TensorShape and TensorFlow's conversion rules in both modes."""
import numpy as np
import pytest

import duograd as dg


def test_dtype_objects_and_as_dtype():
    assert dg.as_dtype("float32") is dg.float32
    assert dg.as_dtype(np.float64) is dg.float64
    assert dg.as_dtype(np.dtype("int8")) is dg.int8
    assert dg.as_dtype(dg.complex64) is dg.complex64
    assert dg.float16.is_floating and not dg.float16.is_integer
    assert dg.uint8.is_integer and dg.bool.is_bool and dg.complex128.is_complex
    assert dg.int64.as_numpy_dtype is np.int64 and dg.float32.base_dtype is dg.float32
    assert dg.float32 == np.float32 and dg.float32 != dg.float64
    with pytest.raises(TypeError):
        dg.as_dtype("float7")


@pytest.mark.parametrize("value, dtype", [(1.5, dg.float32), (2, dg.int32), (True, dg.bool),
                                          ([1.0, 2.0], dg.float32), ([[1, 2]], dg.int32),
                                          (2**40, dg.int64), (1 + 2j, dg.complex128),
                                          (np.array([1.0]), dg.float64),
                                          (np.array([1], np.int64), dg.int64),
                                          (np.float16(1), dg.float16)])
def test_conversion_rules(value, dtype):
    assert dg.constant(value).dtype is dtype
    with dg.Graph().as_default():
        assert dg.constant(value).dtype is dtype


def test_python_scalar_takes_the_tensor_dtype():
    x = dg.constant([1.0, 2.0], dtype=dg.float64)
    assert (x * 0.5).dtype is dg.float64
    assert (0.5 * x).dtype is dg.float64
    assert (x + 1).dtype is dg.float64
    i = dg.constant([1, 2])
    assert (i + 1).dtype is dg.int32
    with pytest.raises(TypeError):
        i + 0.5


def test_mixed_dtypes_are_errors_naming_both():
    a = dg.constant([1.0], dtype=dg.float32)
    b = dg.constant([1.0], dtype=dg.float64)
    with pytest.raises(dg.errors.InvalidArgumentError, match="float32.*float64|float64.*float32"):
        a + b
    with dg.Graph().as_default():
        pa = dg.placeholder(dg.float32, [1])
        pb = dg.placeholder(dg.float64, [1])
        with pytest.raises(TypeError, match="float64.*float32|float32.*float64"):
            pa * pb


def test_tensor_shape():
    s = dg.TensorShape([None, 3])
    assert s.rank == 2 and s.as_list() == [None, 3] and not s.is_fully_defined()
    assert s == [None, 3] and s == (None, 3) and s[1] == 3
    assert s.merge_with([2, None]) == [2, 3]
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    with pytest.raises(ValueError):
        s.merge_with([1, 4])
    assert dg.TensorShape(None).rank is None


def test_eager_tensor_protocols():
    t = dg.constant(3.0)
    assert float(t) == 3.0 and bool(t) and int(dg.constant(7)) == 7
    assert [10, 20, 30][dg.constant(1)] == 20
    assert repr(dg.constant([1.0, 2.0])) == \
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert str(dg.constant([1.0, 2.0])) == "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"
    v = dg.constant([[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(v), [[1, 2], [3, 4]])
    assert v.numpy().dtype == np.int32 and v.shape == [2, 2] and v.ndim == 2 and len(v) == 2
    with pytest.raises(ValueError):
        bool(v)
    with pytest.raises(TypeError):
        float(v)
    with pytest.raises(TypeError):
        hash(t)
    assert t.ref() == t.ref()
    copy = dg.constant(np.ones(3))
    array = np.ones(3)
    const = dg.constant(array)
    array[0] = 5.0  # constants copy their input, as TF does
    assert const.numpy()[0] == 1.0 and copy.numpy()[0] == 1.0


def test_tensor_operators_match_numpy_in_both_modes():
    a_np, b_np = np.array([3.0, -4.5, 7.0]), np.array([2.0, 1.5, -3.0])

    def program(a, b):
        return [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, -a, abs(a),
                a < b, a <= b, a > b, a >= b, (a > 0) & (b > 0), (a > 0) | (b > 0),
                ~(a > 0), 2.0 - a, 1.0 / a]

    eager = [np.asarray(t) for t in program(dg.constant(a_np), dg.constant(b_np))]
    expected = program(a_np, b_np)
    g = dg.Graph()
    with g.as_default():
        graph_out = program(dg.constant(a_np), dg.constant(b_np))
        graph = dg.Session(graph=g).run(graph_out)
    for e, g_value, ref in zip(eager, graph, expected):
        np.testing.assert_allclose(e, ref)
        np.testing.assert_array_equal(g_value, e)
    m = dg.constant(np.eye(2))
    np.testing.assert_allclose((m @ m).numpy(), np.eye(2))
