"""reverse, squeeze, scatter_nd and tensor_scatter_nd_* on scalars: TF 2.21's
outcomes (a ZeroDivisionError or IndexError before)."""
from __future__ import annotations

import pytest

import duograd as dg


def _fed(fn, value):
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float32, None)
        out = fn(p)
        with dg.compat.v1.Session() as sess:
            return sess.run(out, {p: value})


@pytest.mark.parametrize("axis", [[0], [1], [-1], []])
def test_reverse_of_a_scalar_is_the_scalar_eagerly_and_fed(axis):
    assert dg.reverse(dg.constant(3.0), axis).numpy() == 3.0        # TF 2.21 eager: ok
    assert _fed(lambda p: dg.reverse(p, axis), 3.0) == 3.0
    with dg.Graph().as_default():
        if axis:
            with pytest.raises(ValueError, match="is out of valid range"):   # TF: ValueError
                dg.reverse(dg.constant(3.0), axis)
        else:
            assert dg.reverse(dg.constant(3.0), axis).shape == ()


def test_reverse_axis_out_of_range():
    with pytest.raises(dg.errors.InvalidArgumentError, match=r"'axis'\[0\] = 5 is out of valid"):
        dg.reverse(dg.zeros([1, 2]), [5])
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match=r"'axis'\[0\] = 5 is out of valid range"):
            dg.reverse(dg.zeros([1, 2]), [5])


@pytest.mark.parametrize("axis", [[0], -1])
def test_squeeze_a_scalar(axis):
    index = axis[0] if isinstance(axis, list) else axis
    message = f"Tried to squeeze dim index {index} for tensor with 0 dimensions."
    with pytest.raises(dg.errors.InvalidArgumentError, match=message):
        dg.squeeze(dg.constant(3.0), axis)
    with pytest.raises(dg.errors.InvalidArgumentError, match=message):
        _fed(lambda p: dg.squeeze(p, axis), 3.0)
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match=r"squeeze_dims\[0\] not in \[0,0\)"):
            dg.squeeze(dg.constant(3.0), axis)


def test_squeeze_axis_out_of_range():
    with pytest.raises(dg.errors.InvalidArgumentError, match="Tried to squeeze dim index 5 "
                                                             "for tensor with 2 dimensions."):
        dg.squeeze(dg.zeros([1, 2]), [5])
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match=r"squeeze_dims\[0\] not in \[-2,2\)"):
            dg.squeeze(dg.zeros([1, 2]), [-3])


def test_scatter_with_scalar_indices_or_updates():
    cases = [
        (lambda: dg.scatter_nd(0, [1.0], [3]), "Indices shape must have rank at least one"),
        (lambda: dg.scatter_nd([0], 1.0, [3]), "Updates shape must have rank at least one"),
        (lambda: dg.tensor_scatter_nd_update(dg.zeros([3]), 0, 1.0),
         "Indices shape must have rank at least one"),
        (lambda: dg.tensor_scatter_nd_update(dg.zeros([3]), [[0]], 1.0),
         "Updates shape must have rank at least one"),
        (lambda: dg.tensor_scatter_nd_add(dg.zeros([3]), 0, [1.0]),
         "Indices shape must have rank at least one"),
    ]
    for call, message in cases:   # TF 2.21: InvalidArgumentError eagerly
        with pytest.raises(dg.errors.InvalidArgumentError, match=message):
            call()
    with dg.Graph().as_default():   # TF 2.21: ValueError from the shape functions
        for call in (lambda: dg.scatter_nd(0, [1.0], [3]),
                     lambda: dg.scatter_nd([0], 1.0, [3]),
                     lambda: dg.tensor_scatter_nd_update(dg.zeros([3]), 0, 1.0)):
            with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
                call()
