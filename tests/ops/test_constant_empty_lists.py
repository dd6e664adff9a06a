"""Empty Python lists convert to tensors of the requested dtype (TF 2.21)."""
from __future__ import annotations

import pytest

import duograd as dg

# (value, dtype, shape) recorded from TF 2.21's tf.constant
CASES = [
    ([], dg.int32, (0,)),
    ([[], []], dg.float32, (2, 0)),
    ([], None, (0,)),
    ([[], []], None, (2, 0)),
    ([[[]]], dg.bool, (1, 1, 0)),
    ((), dg.int64, (0,)),
    ([[], []], dg.complex64, (2, 0)),
    ([], dg.uint8, (0,)),
]


@pytest.mark.parametrize("value,dtype,shape", CASES)
def test_empty_list_constant(value, dtype, shape):
    t = dg.constant(value, dtype=dtype)
    assert t.dtype == (dtype or dg.float32) and t.shape == shape
    with dg.Graph().as_default():
        g = dg.constant(value, dtype=dtype)
        assert g.dtype == (dtype or dg.float32) and g.shape == shape


def test_empty_list_converts_and_feeds_shape_arguments():
    assert dg.convert_to_tensor([], dtype=dg.int32).shape == (0,)
    assert dg.zeros(dg.constant([], dg.int32)).shape == ()     # TF 2.21: a scalar 0.0
    v = dg.Variable([], dtype=dg.int64)
    assert v.dtype == dg.int64 and v.shape == (0,)


def test_non_empty_float_list_still_refuses_an_integer_dtype():
    with pytest.raises(TypeError):   # TF 2.21: TypeError
        dg.constant([1.5], dtype=dg.int32)
