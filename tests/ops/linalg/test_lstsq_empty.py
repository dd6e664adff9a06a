"""dg.linalg.lstsq on empty systems: TF 2.21's shapes (and zeros), eagerly and in a graph,
for both fast=True (composed) and fast=False (the MatrixSolveLs kernel)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

FULL = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
EMPTY0 = np.empty([3, 0])
EMPTY1 = np.empty([0, 2])
# (matrix, rhs, TF 2.21's result shape)
CASES = [(EMPTY0, EMPTY0, (0, 0)), (EMPTY0, FULL, (0, 2)), (FULL, EMPTY0, (2, 0)),
         (EMPTY1, EMPTY1, (2, 2))]


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("matrix,rhs,shape", CASES)
def test_empty_systems(matrix, rhs, shape, fast):
    out = dg.linalg.lstsq(matrix, rhs, fast=fast).numpy()
    assert out.shape == shape
    np.testing.assert_array_equal(out, np.zeros(shape))   # TF 2.21 (fast=True): zeros
    with dg.Graph().as_default(), dg.compat.v1.Session() as sess:
        assert sess.run(dg.linalg.lstsq(matrix, rhs, fast=fast)).shape == shape


def test_batched_empty_rhs_keeps_the_batch():
    a = np.ones([2, 3, 2])
    assert dg.linalg.lstsq(a, np.empty([2, 3, 0]), fast=False).shape == (2, 2, 0)
