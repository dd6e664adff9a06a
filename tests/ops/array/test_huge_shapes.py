"""Shapes too large to allocate raise TF 2.21's classes (not MemoryError, ValueError or
OverflowError from NumPy), and Python ints beyond int32 stay int64 (not wrapped)."""
from __future__ import annotations

import pytest

import duograd as dg

OOM = dg.errors.ResourceExhaustedError
TOO_MANY = "would have more than 2\\*\\*63 - 1 elements"


@pytest.mark.parametrize("call,error,message", [
    (lambda: dg.zeros([2**40, 2**40]), dg.errors.InvalidArgumentError, TOO_MANY),
    (lambda: dg.zeros([2**31, 2**31, 4]), dg.errors.InvalidArgumentError, TOO_MANY),
    (lambda: dg.zeros([2**62]), OOM, "OOM when allocating tensor with shape"),
    (lambda: dg.ones([10**12]), OOM, r"shape\[1000000000000\] and type float32"),
    (lambda: dg.ones([10**12], dg.int32), OOM, "type int32"),
    (lambda: dg.fill([10**12], 1.0), OOM, "OOM"),
    (lambda: dg.range(10**12), OOM, "OOM"),
    (lambda: dg.range(0.0, 1e12), OOM, "OOM"),
    (lambda: dg.range(0.0, 1.0, 1e-15), OOM, "OOM"),
    (lambda: dg.range(0.0, float("inf")), dg.errors.InvalidArgumentError,
     r"Requires \(\(limit - start\) / delta\) <= 9223372036854775807"),
    (lambda: dg.range(0.0, float("nan")), dg.errors.InvalidArgumentError,
     "Requires start <= limit when delta > 0"),
    (lambda: dg.tile(dg.zeros([3]), [2**40]), OOM, "OOM"),
    (lambda: dg.broadcast_to(dg.zeros([3]), [2**40, 3]), OOM, "OOM"),
    (lambda: dg.eye(2**20), OOM, "OOM"),
    (lambda: dg.random.uniform([2**40]), OOM, "OOM"),
    (lambda: dg.zeros([2**63]), ValueError, "out-of-range integer"),
    (lambda: dg.range(2**63), ValueError, "out-of-range integer"),
])
def test_huge_shapes_raise_tf_classes(call, error, message):
    with pytest.raises(error, match=message):   # classes recorded from TF 2.21
        call()


def test_huge_shape_fed_to_a_graph():
    with dg.Graph().as_default():
        n = dg.compat.v1.placeholder(dg.int64, [])
        out = dg.fill(dg.stack([n]), 1.0)
        with dg.compat.v1.Session() as sess:
            with pytest.raises(OOM):
                sess.run(out, {n: 10**12})


def test_range_counts_exactly_near_the_int64_limits():
    # TF 2.21: 4 elements (a float computation overflowed and gave 1)
    out = dg.range(-2**63, 2**63 - 1, 2**62)
    assert out.dtype == dg.int64
    assert out.numpy().tolist() == [-2**63, -2**62, 0, 2**62]
    assert dg.range(2**62, 2**63 - 1, 2**61).numpy().tolist() == [2**62, 2**62 + 2**61]


def test_int_arguments_beyond_int32_are_int64_not_wrapped():
    # TF 2.21 converts [2**40] to an int64 tensor: the op sees 2**40, not 0
    with pytest.raises(dg.errors.InvalidArgumentError):
        dg.slice(dg.zeros([3]), [2**40], [1])
    with pytest.raises(ValueError, match="out-of-range integer"):
        dg.slice(dg.zeros([3]), [0], [2**63])
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match="Tried to expand dim index 2147483648 for tensor with 1"):
        dg.expand_dims(dg.zeros([3]), 2**31)
    with pytest.raises(ValueError, match="out-of-range integer"):
        dg.expand_dims(dg.zeros([3]), 2**63)
    with pytest.raises(ValueError, match="out-of-range integer"):
        dg.tile(dg.zeros([3]), [2**63])
