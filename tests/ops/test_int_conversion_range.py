"""Python ints beyond int64 convert as TF 2.21 converts them (never wrapped silently)."""
from __future__ import annotations

import pytest

import duograd as dg

OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."


@pytest.mark.parametrize("value", [2**63, [2**63], 2**64, -2**63 - 1, 10**400, [1, 2**63]])
def test_eager_out_of_range_is_value_error(value):
    with pytest.raises(ValueError, match=OUT_OF_RANGE):
        dg.constant(value)


def test_with_a_dtype():
    assert dg.constant(2**63, dg.uint64).numpy() == 2**63
    assert dg.constant(2**63, dg.float32).numpy() == pytest.approx(9.223372e18)
    assert dg.constant([1, 2**63], dg.float32).numpy().tolist() == pytest.approx([1.0,
                                                                               9.223372e18])
    with pytest.raises(ValueError, match=OUT_OF_RANGE):
        dg.constant(10**400, dg.float32)
    with pytest.raises(ValueError, match=OUT_OF_RANGE):
        dg.constant(2**63, dg.int64)
    big = dg.constant([1, 2**40])
    assert big.dtype == dg.int64 and big.numpy().tolist() == [1, 2**40]


def test_binary_operand_out_of_range():
    with pytest.raises(ValueError, match=OUT_OF_RANGE):
        dg.add(dg.constant(1), 2**63)   # TF 2.21 (it was wrapped to -2**63 before)
    assert dg.add(dg.constant(1.0), 2**63).numpy() == pytest.approx(9.223372e18)


def test_graph_mode_follows_make_tensor_proto():
    with dg.Graph().as_default():
        # TF 2.21 builds a uint64 constant for [2**63, 2**64), a TypeError beyond
        assert dg.constant(2**63).dtype == dg.uint64
        assert dg.constant([2**63]).dtype == dg.uint64
        for value in (2**64, -2**63 - 1):
            with pytest.raises(TypeError, match="Failed to convert elements"):
                dg.constant(value)


def test_axes_beyond_int64_are_value_errors():
    with pytest.raises(ValueError, match="out-of-range integer"):   # TF 2.21: ValueError
        dg.reduce_sum(dg.ones([2]), 2**63)
    with pytest.raises(ValueError, match="out-of-range integer"):
        dg.reverse(dg.ones([2]), [2**63])
    with dg.Graph().as_default():   # TF 2.21: make_tensor_proto's TypeError
        with pytest.raises(TypeError, match="Failed to convert elements"):
            dg.logical_and(dg.constant([True]), 2**63)
