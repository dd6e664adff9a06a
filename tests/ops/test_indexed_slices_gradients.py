"""Every gradient function accepts an IndexedSlices upstream gradient.

For every differentiable op-table row with one output, a `gather` after the op
hands its gradient function an IndexedSlices; the input gradients must equal
those for the same upstream gradient given dense (scattered by hand), in both
modes.
"""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from gradcheck import eager_grads, graph_grads, scalarize
from op_tables import all_rows

TABLE = all_rows()


def _single_output_rows():
    rows = []
    for spec in TABLE:
        if not spec.order:
            continue
        args = [np.asarray(a) for a in spec.make(np.random.default_rng(0))]
        out = spec.fn(*[dg.constant(a) for a in args])
        if isinstance(out, (list, tuple)) or not out.dtype.is_differentiable:
            continue
        if out.shape.rank and out.shape[0] >= 1:
            rows.append(spec)
    return rows


ROWS = _single_output_rows()


def test_the_table_gives_many_rows():
    assert len(ROWS) > 100


@pytest.mark.parametrize("spec", ROWS, ids=repr)
def test_gather_after_op_gives_the_dense_gradient(spec):
    rng = np.random.default_rng(2)
    args = [np.asarray(a) for a in spec.make(rng)]
    out = np.asarray(spec.fn(*[dg.constant(a) for a in args]))
    rows = out.shape[0]
    indices = np.array([rows - 1, 0, rows - 1], np.int32)   # a repeated row adds up
    weights = rng.standard_normal((len(indices),) + out.shape[1:]).astype(out.dtype)
    dense = np.zeros_like(out)
    np.add.at(dense, indices, weights)

    sparse_loss = scalarize(lambda *xs: dg.gather(spec.fn(*xs), indices), [weights])
    dense_loss = scalarize(spec.fn, [dense])
    for grads in (eager_grads, graph_grads):
        got = grads(sparse_loss, args)
        want = grads(dense_loss, args)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_negation_of_indexed_slices_stays_sparse():
    slices = dg.IndexedSlices(dg.constant([[1.0, 2.0]]), dg.constant([1]), dg.constant([3, 2]))
    negated = -slices
    assert isinstance(negated, dg.IndexedSlices)
    np.testing.assert_array_equal(dg.convert_to_tensor(negated), [[0, 0], [-1, -2], [0, 0]])
    np.testing.assert_array_equal(slices * 2.0, [[0, 0], [2, 4], [0, 0]])
    np.testing.assert_array_equal(1.0 - slices, [[1, 1], [0, -1], [1, 1]])
