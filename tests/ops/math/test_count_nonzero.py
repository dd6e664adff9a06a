"""dg.math.count_nonzero and dg.compat.v1.count_nonzero, with TF 2.21's values."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = [[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]]


def test_counts_and_dtypes():
    x = dg.constant(X)
    total = dg.math.count_nonzero(x)
    assert total.dtype == dg.int64 and total.numpy() == 3
    assert dg.math.count_nonzero(x, axis=0).numpy().tolist() == [0, 1, 2]
    kept = dg.math.count_nonzero(x, axis=1, keepdims=True)
    assert kept.shape == (2, 1) and kept.numpy().tolist() == [[2], [1]]
    assert dg.math.count_nonzero(x, dtype=dg.int32).dtype == dg.int32
    as_float = dg.math.count_nonzero(x, dtype=dg.float32)
    assert as_float.dtype == dg.float32 and as_float.numpy() == 3.0
    assert dg.math.count_nonzero(x, axis=[]).numpy().tolist() == [[0, 1, 1], [0, 0, 1]]


@pytest.mark.parametrize("value,count", [
    ([True, False, True], 2),
    ([1, 0, 5], 2),
    ([np.nan, 0.0, -0.0], 1),     # NaN is non-zero, -0.0 is zero
    (np.array([0j, 1j], np.complex64), 1),
    (np.zeros([0], np.float32), 0),
])
def test_element_kinds(value, count):
    assert dg.math.count_nonzero(value).numpy() == count


def test_v1_argument_spellings():
    x = dg.constant(X)
    assert dg.compat.v1.count_nonzero(x, axis=1, keep_dims=True).numpy().tolist() == [[2], [1]]
    assert dg.compat.v1.count_nonzero(x, reduction_indices=1).numpy().tolist() == [2, 1]
    assert dg.compat.v1.count_nonzero(input=x).numpy() == 3
    with pytest.raises(ValueError):
        dg.compat.v1.count_nonzero(x, axis=0, reduction_indices=1)


def test_bad_axis_and_no_gradient():
    x = dg.constant(X)
    with pytest.raises(dg.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        dg.math.count_nonzero(x, axis=3)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.math.count_nonzero(x, dtype=dg.float32)
    assert tape.gradient(y, x) is None   # TF 2.21: None


def test_graph_shape():
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float32, [None, 3])
        y = dg.math.count_nonzero(p, axis=1)
        assert y.shape.as_list() == [None]
        with dg.compat.v1.Session() as sess:
            assert sess.run(y, {p: X}).tolist() == [2, 1]
