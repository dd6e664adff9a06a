"""repr/str/format of tensors, variables, dtypes, shapes and specs in TF's form.

Every expected string below was printed by TensorFlow 2.21 for the same value."""
import numpy as np
import pytest

import duograd as dg

SCALARS = [  # (value, TF's repr, TF's str)
    (np.float32(1) / 3, "<tf.Tensor: shape=(), dtype=float32, numpy=0.3333333432674408>",
     "tf.Tensor(0.33333334, shape=(), dtype=float32)"),
    (np.float64(1) / 3, "<tf.Tensor: shape=(), dtype=float64, numpy=0.3333333333333333>",
     "tf.Tensor(0.3333333333333333, shape=(), dtype=float64)"),
    (True, "<tf.Tensor: shape=(), dtype=bool, numpy=True>",
     "tf.Tensor(True, shape=(), dtype=bool)"),
    (3, "<tf.Tensor: shape=(), dtype=int32, numpy=3>", "tf.Tensor(3, shape=(), dtype=int32)"),
    (np.float16(0.1), "<tf.Tensor: shape=(), dtype=float16, numpy=0.0999755859375>",
     "tf.Tensor(0.1, shape=(), dtype=float16)"),
    (1 + 2j, "<tf.Tensor: shape=(), dtype=complex128, numpy=(1+2j)>",
     "tf.Tensor((1+2j), shape=(), dtype=complex128)"),
    (np.float32(np.nan), "<tf.Tensor: shape=(), dtype=float32, numpy=nan>",
     "tf.Tensor(nan, shape=(), dtype=float32)"),
]


@pytest.mark.parametrize("value, expected_repr, expected_str", SCALARS)
def test_scalar_tensor_repr_and_str(value, expected_repr, expected_str):
    t = dg.constant(value)
    assert repr(t) == expected_repr and str(t) == expected_str


def test_array_tensor_repr_and_str():
    assert repr(dg.constant([1., 2.])) == \
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert repr(dg.constant([[1, 2], [3, 4]])) == ("<tf.Tensor: shape=(2, 2), dtype=int32, "
                                                   "numpy=\narray([[1, 2],\n       [3, 4]], "
                                                   "dtype=int32)>")
    assert str(dg.constant([[1., 2.], [3., 4.]])) == \
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    assert str(dg.constant([True, False])) == "tf.Tensor([ True False], shape=(2,), dtype=bool)"
    assert repr(dg.constant([1.5, 2.25], dg.float64)) == \
        "<tf.Tensor: shape=(2,), dtype=float64, numpy=array([1.5 , 2.25])>"


def test_format_of_tensors_as_tf():
    third = dg.constant(np.float32(1) / 3)
    assert f"{third:.3f}" == "0.333" and f"{third}" == "0.3333333432674408"
    assert f"{dg.constant(3):5d}|" == "    3|" and "{:>8.2f}|".format(dg.constant(2.5)) == "    2.50|"
    assert f"{dg.constant([1., 2.])}" == "[1. 2.]"
    assert f"{dg.constant(2.0)!r}" == "<tf.Tensor: shape=(), dtype=float32, numpy=2.0>"
    with pytest.raises(ValueError, match="Unknown format code 'd'"):
        f"{dg.constant(2.5):d}"
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{dg.constant([1., 2.]):.2f}"
    with pytest.raises(TypeError, match="unsupported format string"):
        format(dg.Variable(2.5), ".2f")   # TF: variables keep object.__format__
    assert format(dg.Variable(2.5)) == \
        "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.5>"


def test_variable_repr():
    assert repr(dg.Variable(5.0)) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=5.0>"
    assert str(dg.Variable(True)) == "<tf.Variable 'Variable:0' shape=() dtype=bool, numpy=True>"
    assert repr(dg.Variable([1, 2])) == \
        "<tf.Variable 'Variable:0' shape=(2,) dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert repr(dg.Variable([[1., 2.], [3., 4.]])) == (
        "<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=\n"
        "array([[1., 2.],\n       [3., 4.]], dtype=float32)>")


def test_graph_tensor_and_variable_text():
    g = dg.Graph()
    with g.as_default():
        p = dg.compat.v1.placeholder(dg.float32, [None, 3], name="x")
        v = dg.compat.v1.get_variable("w", [2])
        assert repr(p) == "<tf.Tensor 'x:0' shape=(None, 3) dtype=float32>"
        assert str(p) == 'Tensor("x:0", shape=(None, 3), dtype=float32)'
        assert f"{p}" == str(p)
        assert repr(p.op) == "<tf.Operation 'x' type=Placeholder>"
        assert repr(v) == "<tf.Variable 'w:0' shape=(2,) dtype=float32>"
        with pytest.raises(TypeError, match="unsupported format string"):
            f"{p:.3f}"


def test_dtype_shape_spec_text():
    assert str(dg.float32) == "<dtype: 'float32'>" and repr(dg.float32) == "tf.float32"
    assert str(dg.int64) == "<dtype: 'int64'>" and str(dg.bool) == "<dtype: 'bool'>"
    assert str([dg.float32]) == "[tf.float32]"
    assert repr(dg.TensorShape([2, None])) == "TensorShape([2, None])"
    assert str(dg.TensorShape([2, None])) == "(2, None)"
    assert str(dg.TensorShape(None)) == "<unknown>" and repr(dg.TensorShape(None)) == "TensorShape(None)"
    assert str(dg.TensorShape([])) == "()" and str(dg.TensorShape([3])) == "(3,)"
    assert repr(dg.TensorSpec([2], dg.float32)) == \
        "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"
    assert str(dg.TensorSpec([2], dg.float32, name="x")) == \
        "TensorSpec(shape=(2,), dtype=tf.float32, name='x')"
    assert repr(dg.TensorSpec(None, dg.int32)) == \
        "TensorSpec(shape=<unknown>, dtype=tf.int32, name=None)"
