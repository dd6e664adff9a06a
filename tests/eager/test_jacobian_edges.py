"""Jacobian edge cases as TensorFlow 2.21: zero-size dimensions, rank errors, the
unvectorized path and parallel_iterations."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


@pytest.mark.parametrize("use_pfor", [True, False])
def test_zero_size_jacobians_are_zeros_of_the_right_shape(use_pfor):
    x = dg.constant(np.zeros([0, 3], np.float32))
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
        s = dg.reduce_sum(x, axis=1)
        total = dg.reduce_sum(x)
    # TF 2.21 (pfor): shapes (0, 3, 0, 3) and (0, 0, 3), all zeros
    for target, shape in ((y, (0, 3, 0, 3)), (s, (0, 0, 3)), (total, (0, 3))):
        jac = tape.jacobian(target, x, experimental_use_pfor=use_pfor)
        assert jac is not None and tuple(jac.shape) == shape and jac.dtype == dg.float32
    batch = tape.batch_jacobian(y, x, experimental_use_pfor=use_pfor)
    assert tuple(batch.shape) == (0, 3, 3)
    assert tape.jacobian(y, dg.constant(1.0)) is None   # unconnected stays None


def test_batch_jacobian_rank_errors_are_value_errors():
    x = dg.constant(np.ones([3, 2], np.float32))
    scalar = dg.constant(2.0)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([x, scalar])
        column_sums = dg.reduce_sum(x, axis=0)
        square = scalar * scalar
    with pytest.raises(ValueError, match="must have rank at least 2"):
        tape.batch_jacobian(column_sums, x)   # TF 2.21: "Shape (2,) must have rank at least 2"
    with pytest.raises(ValueError, match="must have rank at least 2"):
        tape.batch_jacobian(square, scalar)


@pytest.mark.parametrize("use_pfor", [True, False])
def test_parallel_iterations_and_pfor_switch_give_the_same_values(use_pfor):
    value = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    x = dg.constant(value)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x[:, :2] ** 2
    jac = tape.jacobian(y, x, parallel_iterations=2, experimental_use_pfor=use_pfor)
    batch = tape.batch_jacobian(y, x, parallel_iterations=2, experimental_use_pfor=use_pfor)
    expected = np.zeros([2, 2, 2, 3], np.float32)
    for b in range(2):
        for j in range(2):
            expected[b, j, b, j] = 2 * value[b, j]
    np.testing.assert_allclose(jac.numpy(), expected)
    np.testing.assert_allclose(batch.numpy(), np.stack([expected[b, :, b] for b in range(2)]))
