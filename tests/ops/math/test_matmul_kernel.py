"""MatMul's kernel: two matrices through np.dot, batches through np.matmul, the same
values either way; TF's message for inner dimensions that differ (recorded with TF 2.21:
`Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5] [Op:MatMul]`)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64, np.float16])
@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, False),
                                                     (False, True), (True, True)])
def test_matrix_product_equals_numpy_matmul(dtype, transpose_a, transpose_b):
    a = (RNG.standard_normal((5, 7)) * 3).astype(dtype)
    b = (RNG.standard_normal((7, 4)) * 3).astype(dtype)
    a_in = a.T.copy() if transpose_a else a
    b_in = b.T.copy() if transpose_b else b
    expected = np.matmul(a, b)
    eager = dg.matmul(dg.constant(a_in), dg.constant(b_in), transpose_a=transpose_a,
                      transpose_b=transpose_b)
    graph = dg.function(lambda u, v: dg.matmul(u, v, transpose_a=transpose_a,
                                               transpose_b=transpose_b))(a_in, b_in)
    for result in (eager, graph):
        assert result.dtype.as_numpy_dtype == dtype
        np.testing.assert_array_equal(np.asarray(result), expected)


def test_strided_view_operands_and_batches():
    z = RNG.standard_normal((6, 16)).astype(np.float32)
    gate = dg.split(dg.constant(z), 2, axis=1)[1]             # a non-contiguous view
    w = RNG.standard_normal((8, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(dg.matmul(gate, w)), z[:, 8:] @ w, rtol=1e-6)
    batch = RNG.standard_normal((4, 6, 8)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(dg.matmul(batch, w)), batch @ w, rtol=1e-6)


@pytest.mark.parametrize("shapes,op", [(([2, 3], [4, 5]), "MatMul"),
                                       (([7, 2, 3], [7, 4, 5]), "BatchMatMulV2")])
def test_inner_dimensions_that_differ_raise_tf_message(shapes, op):
    a, b = (dg.ones(s) for s in shapes)
    with pytest.raises(dg.errors.InvalidArgumentError) as info:
        dg.matmul(a, b)
    text = ",".join(map(str, shapes[0])), ",".join(map(str, shapes[1]))
    assert op in str(info.value)
    assert f"Matrix size-incompatible: In[0]: [{text[0]}], In[1]: [{text[1]}]" in str(info.value)


def test_gradient_of_a_matrix_product_checks_numerically():
    a = RNG.standard_normal((3, 4))
    b = RNG.standard_normal((4, 2))
    theoretical, numerical = dg.test.compute_gradient(
        lambda u, v: dg.matmul(u, v, transpose_b=False), [a, b])
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=1e-6, atol=1e-8)
