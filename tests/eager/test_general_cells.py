"""General records' cells (eager/tape.py): the records of an op with attrs that share
the key (gradient name, skip, attrs, every input's and output's shape and dtype) share one
cell, and the arrays mode runs the adjoint program kept on it. Gradients must be those
of each record: against the tensors mode (forced by an enclosing tape) and by hand."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from duograd.eager import backprop
from duograd.eager.tape import Tape
from duograd.ops.array import join_ops, selection_ops
from duograd.ops.math import matmul_ops

RNG = np.random.default_rng(8)


def _gru_like(x, h, w_gate, w_new, forced_tensors_mode: bool):
    """Two matmuls of different shapes alternating, concats and a split in a loop."""
    outer = dg.GradientTape() if forced_tensors_mode else None
    if outer is not None:
        outer.__enter__()
    try:
        with dg.GradientTape() as tape:
            tape.watch([h, w_gate, w_new])
            state = h
            for t in range(4):
                gates = dg.sigmoid(dg.matmul(dg.concat([x[t], state], 1), w_gate))
                z, r = dg.split(gates, 2, axis=1)
                n = dg.tanh(dg.matmul(dg.concat([x[t], r * state], 1), w_new))
                state = (1 - z) * n + z * state
            loss = dg.reduce_sum(state * state)
        return tape.gradient(loss, [h, w_gate, w_new])
    finally:
        if outer is not None:
            outer.__exit__(None, None, None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_loop_of_general_ops_gives_the_tensors_modes_gradients(dtype, monkeypatch):
    calls = []
    real = backprop.array_gradients

    def spy(*args, **kwargs):
        calls.append(real(*args, **kwargs))
        return calls[-1]
    monkeypatch.setattr(backprop, "array_gradients", spy)
    x = dg.constant(RNG.standard_normal((4, 3, 5)).astype(dtype))
    h = dg.constant(RNG.standard_normal((3, 2)).astype(dtype))
    w_gate = dg.constant(RNG.standard_normal((7, 4)).astype(dtype))
    w_new = dg.constant(RNG.standard_normal((7, 2)).astype(dtype))
    for _ in range(2):   # the second pass finds the programs on the cells
        fast = _gru_like(x, h, w_gate, w_new, forced_tensors_mode=False)
        assert calls[-1] is not None   # the arrays mode ran
        slow = _gru_like(x, h, w_gate, w_new, forced_tensors_mode=True)
        tolerance = 1e-5 if dtype == np.float32 else 1e-12
        for f, s in zip(fast, slow, strict=True):
            assert f.dtype == s.dtype and f.shape == s.shape
            np.testing.assert_allclose(f.numpy(), s.numpy(), rtol=tolerance, atol=tolerance)


def test_records_share_a_cell_per_key_and_alternating_specs_find_theirs():
    a = dg.constant(np.ones((2, 3)))
    w_small, w_large = dg.constant(np.ones((3, 4))), dg.constant(np.ones((3, 6)))
    tape = Tape()
    for value in (a, w_small, w_large):
        tape.watch_id(value.tensor_id)
    attrs = {"transpose_a": False, "transpose_b": False}
    cells = {4: [], 6: []}
    for _ in range(3):
        for w in (w_small, w_large):
            out = dg.matmul(a, w)
            tape.record(matmul_ops.MATMUL, "MatMul", dict(attrs), (a, w), (out,))
            cells[w.shape[1]].append(tape.producers[out.tensor_id].cell)
    assert cells[4][0] is cells[4][1] is cells[4][2]
    assert cells[6][0] is cells[6][1] is cells[6][2]
    assert cells[4][0] is not cells[6][0]
    assert cells[4][0].output_specs == (((2, 4), np.dtype(np.float64)),)


def test_attrs_equal_in_value_but_not_in_type_do_not_share_a_cell():
    """{'axis': 1} and {'axis': True} compare equal; a gradient function may branch on
    the type, so their records keep their own cells (eager/attr_key.py)."""
    x, y = dg.constant(np.ones((2, 3))), dg.constant(np.ones((2, 3)))
    axis = dg.constant(1)
    tape = Tape()
    tape.watch_id(x.tensor_id)
    found = []
    for value in (1, True, 1):
        out = dg.concat([x, y], 1)
        tape.record(join_ops.CONCAT, "ConcatV2", {"axis": value}, (x, y, axis), (out,))
        found.append(tape.producers[out.tensor_id].cell)
    assert found[0] is found[2] and found[0] is not found[1]


def test_a_gradient_of_other_specs_than_the_outputs_takes_the_key_path():
    """Only some outputs of a split have a gradient: the cell's program (for a gradient of
    every output) does not serve it; the values are still the split's adjoint."""
    z = dg.constant(RNG.standard_normal((3, 8)))
    for _ in range(2):
        with dg.GradientTape(persistent=True) as tape:
            tape.watch(z)
            first, second = dg.split(z, 2, axis=1)
            both = dg.reduce_sum(first * 2.0) + dg.reduce_sum(second * 3.0)
            one = dg.reduce_sum(second * 3.0)
        np.testing.assert_array_equal(tape.gradient(both, z).numpy(),
                                      np.repeat([[2.0] * 4 + [3.0] * 4], 3, axis=0))
        np.testing.assert_array_equal(tape.gradient(one, z).numpy(),
                                      np.repeat([[0.0] * 4 + [3.0] * 4], 3, axis=0))


def test_a_cells_records_keep_what_the_gradient_reads_and_watch_float_outputs():
    """MatMul's gradient reads both inputs and no output; a split's reads neither its
    inputs' values nor its outputs; an int output (top_k's indices) is never watched.
    Each record of a cell, not only its first, keeps exactly that."""
    a, w = dg.constant(np.ones((2, 3))), dg.constant(np.ones((3, 4)))
    tape = Tape()
    for value in (a, w):
        tape.watch_id(value.tensor_id)
    attrs = {"transpose_a": False, "transpose_b": False}
    records = []
    for _ in range(2):
        out = dg.matmul(a, w)
        tape.record(matmul_ops.MATMUL, "MatMul", attrs, (a, w), (out,))
        records.append(tape.producers[out.tensor_id])
    assert records[0].cell is records[1].cell
    for record in records:
        assert record.inputs[0] is a and record.inputs[1] is w
        assert record.outputs == (((2, 4), np.dtype(np.float64)),)   # a spec, not the tensor

    z = dg.constant(np.arange(8.0).reshape(2, 4))
    v = dg.constant([3.0, 1.0, 3.0])
    for value in (z, v):
        tape.watch_id(value.tensor_id)
    split_attrs, top_k_attrs = {"num_split": 2, "axis": 1}, {"k": 2, "sorted": True}
    for _ in range(2):
        halves = dg.split(z, 2, axis=1)
        tape.record(join_ops.SPLIT, "Split", split_attrs, (z,), tuple(halves))
        split_record = tape.producers[halves[0].tensor_id]
        assert tape.producers[halves[1].tensor_id] is split_record
        assert all(type(kept) is tuple for kept in split_record.inputs + split_record.outputs)
        values, indices = dg.math.top_k(v, k=2)
        tape.record(selection_ops.TOP_K, "TopKV2", top_k_attrs, (v,), (values, indices))
        top_k_record = tape.producers[values.tensor_id]
        assert indices.tensor_id not in tape.producers
        assert top_k_record.outputs[1] is indices   # kept (its gradient reads it), not watched
    with dg.GradientTape() as outer:
        outer.watch(v)
        for _ in range(2):
            values, _ = dg.math.top_k(v, k=2)
        loss = dg.reduce_sum(values * dg.constant([2.0, 5.0]))
    np.testing.assert_array_equal(outer.gradient(loss, v).numpy(), [2.0, 0.0, 5.0])
