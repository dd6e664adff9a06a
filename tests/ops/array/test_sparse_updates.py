"""Sparse (IndexedSlices) gradients update only the rows they touch, never densified.

Proved structurally: untouched rows of variables and slots stay bitwise equal,
eager updates write the variable's buffer in place, and the graph of a
training step holds no table-sized tensor besides the variable reads. Where
TensorFlow's own rule moves every row (Adam's moment decay, Keras's momentum
optimizers), the sparse step equals the dense step, as TF documents.
"""
import numpy as np
import pytest

import duograd as dg

K = dg.keras.optimizers
T = dg.compat.v1.train
ROWS, DIM = 40, 3
IDS = [[3, 7, 3, 20], [7, 9, 9, 9], [3, 31, 20, 7]]
TOUCHED = sorted({i for batch in IDS for i in batch})

LAZY = {  # optimizers whose TF rule leaves untouched rows and their slots alone
    "keras_sgd": lambda: K.SGD(0.1),
    "keras_adagrad": lambda: K.Adagrad(0.1),
    "v1_gd": lambda: T.GradientDescentOptimizer(0.1),
    "v1_momentum": lambda: T.MomentumOptimizer(0.1, 0.9),
    "v1_nesterov": lambda: T.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "v1_adagrad": lambda: T.AdagradOptimizer(0.1),
    "v1_rmsprop": lambda: T.RMSPropOptimizer(0.1, momentum=0.5),
    "v1_rmsprop_centered": lambda: T.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
    # lazy_sparse=True (ops/array/test_lazy_sparse.py checks their numbers)
    "keras_lazy_adam": lambda: K.LazyAdam(0.1),
    "keras_nadam_lazy": lambda: K.Nadam(0.1, lazy_sparse=True),
    "keras_rmsprop_lazy": lambda: K.RMSprop(0.1, momentum=0.5, centered=True, lazy_sparse=True),
    "v1_lazy_adam": lambda: T.LazyAdamOptimizer(0.1),
}
DENSE_RULE = {  # TF's rule decays every row: the sparse step equals the dense one
    "keras_sgd_momentum": lambda: K.SGD(0.1, momentum=0.9),
    "keras_adam": lambda: K.Adam(0.1),
    "keras_adamw": lambda: K.AdamW(0.1),
    "keras_rmsprop": lambda: K.RMSprop(0.1, momentum=0.5, centered=True),
    "keras_adamax": lambda: K.Adamax(0.1),
    "keras_nadam": lambda: K.Nadam(0.1),
    "v1_adam": lambda: T.AdamOptimizer(0.1),
}


def _table():
    return np.random.default_rng(0).normal(size=(ROWS, DIM)).astype(np.float32)


def _loss(table, ids):
    rows = dg.gather(table, ids)
    return dg.reduce_sum(rows * rows * dg.constant([1.0, -0.5, 2.0]))


def _train_eager(make, steps=3, batches=IDS):
    table = dg.Variable(_table())
    opt = make()
    for ids in batches[:steps]:
        with dg.GradientTape() as tape:
            loss = _loss(table, ids)
        grad = tape.gradient(loss, table)
        assert isinstance(grad, dg.IndexedSlices)
        opt.apply_gradients([(grad, table)])
    return table, opt


def _slots(opt):
    return [(name, slot) for _, name, slot in opt.slot_variables()]


@pytest.mark.parametrize("case", sorted(LAZY))
def test_untouched_rows_and_slots_stay_bitwise_unchanged(case):
    table, opt = _train_eager(LAZY[case])
    initial = _table()
    untouched = [r for r in range(ROWS) if r not in TOUCHED]
    np.testing.assert_array_equal(table.numpy()[untouched], initial[untouched])
    assert np.all(table.numpy()[TOUCHED] != initial[TOUCHED])
    fills = {"accumulator": 0.1, "rms": 1.0}
    for name, slot in _slots(opt):
        np.testing.assert_array_equal(slot.numpy()[untouched], np.float32(fills.get(name, 0.0)))
        assert np.any(slot.numpy()[TOUCHED] != np.float32(fills.get(name, 0.0))), name


@pytest.mark.parametrize("case", sorted(LAZY))
def test_eager_sparse_steps_write_buffers_in_place(case):
    table, opt = _train_eager(LAZY[case], steps=1)
    buffers = [id(table.eager_value())] + [id(s.eager_value()) for _, s in _slots(opt)]
    grad = dg.IndexedSlices(dg.ones((2, DIM)), dg.constant([5, 6]), dg.constant([ROWS, DIM]))
    opt.apply_gradients([(grad, table)])
    assert buffers == [id(table.eager_value())] + [id(s.eager_value()) for _, s in _slots(opt)]


def test_a_read_taken_before_an_in_place_update_keeps_its_value():
    table = dg.Variable(_table())
    opt = K.SGD(1.0)
    grad = dg.IndexedSlices(dg.ones((1, DIM)), dg.constant([0]), dg.constant([ROWS, DIM]))
    opt.apply_gradients([(grad, table)])
    before = table.value()
    opt.apply_gradients([(grad, table)])
    np.testing.assert_array_equal(before.numpy()[0], _table()[0] - 1.0)
    np.testing.assert_array_equal(table.numpy()[0], _table()[0] - 2.0)


def _upstream_ops(fetch):
    seen, stack = set(), [fetch if isinstance(fetch, dg.Operation) else fetch.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


@pytest.mark.parametrize("case", sorted(LAZY))
def test_graph_step_holds_no_table_sized_tensor(case):
    with dg.Graph().as_default():
        table = dg.Variable(_table())
        ids = dg.placeholder(dg.int32, (None,))
        (grad,) = dg.gradients(_loss(table, ids), [table])
        assert isinstance(grad, dg.IndexedSlices)
        opt = LAZY[case]()
        train = opt.apply_gradients([(grad, table)])
        big = sorted({op.type for op in _upstream_ops(train) for t in op.outputs
                      if t.shape.rank and t.shape[0] == ROWS})
        assert set(big) <= {"ReadVariableOp"}, big
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            sess.run(train, {ids: IDS[0]})
            after = sess.run(table)
    untouched = [r for r in range(ROWS) if r not in IDS[0]]
    np.testing.assert_array_equal(after[untouched], _table()[untouched])


@pytest.mark.parametrize("case", sorted(DENSE_RULE))
def test_sparse_step_equals_dense_step_where_tf_moves_every_row(case):
    # Distinct ids: with repeats, Keras's sparse rules square each slice (sum of squares).
    batches = [[3, 7, 20], [7, 9, 31], [3, 20, 5]]
    sparse_table, _ = _train_eager(DENSE_RULE[case], batches=batches)
    dense_table = dg.Variable(_table())
    opt = DENSE_RULE[case]()
    for ids in batches:
        with dg.GradientTape() as tape:
            loss = _loss(dense_table, ids)
        grad = dg.convert_to_tensor(tape.gradient(loss, dense_table))
        opt.apply_gradients([(grad, dense_table)])
    np.testing.assert_allclose(sparse_table.numpy(), dense_table.numpy(), rtol=1e-6, atol=1e-7)
    # Rows 9 and 31 are not in the third batch, yet its step moves them (momentum).
    two_steps, _ = _train_eager(DENSE_RULE[case], steps=2, batches=batches)
    assert np.all(sparse_table.numpy()[[9, 31]] != two_steps.numpy()[[9, 31]])


def test_v1_optimizers_sum_repeated_rows_first():
    """TF1 deduplicates: rows [1, 1] with a, b update like row [1] with a + b."""
    a, b = np.array([0.3, -0.2, 0.1], np.float32), np.array([0.5, 0.4, -0.6], np.float32)
    results = []
    for indices, values in (([1, 1], [a, b]), ([1], [a + b])):
        table = dg.Variable(_table())
        opt = T.AdagradOptimizer(0.1)
        grad = dg.IndexedSlices(dg.constant(np.array(values)), dg.constant(indices),
                                dg.constant([ROWS, DIM]))
        opt.apply_gradients([(grad, table)])
        results.append((table.numpy(), opt.get_slot(table, "accumulator").numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1][1], 0.1 + (a + b) ** 2, rtol=1e-6)


def test_keras_adagrad_accumulates_squares_of_repeated_slices():
    """Keras 3 squares each slice before the scatter: acc += a^2 + b^2 (not (a + b)^2)."""
    a, b = np.array([0.3, -0.2, 0.1], np.float32), np.array([0.5, 0.4, -0.6], np.float32)
    table = dg.Variable(_table())
    opt = K.Adagrad(0.1)
    grad = dg.IndexedSlices(dg.constant(np.stack([a, b])), dg.constant([1, 1]),
                            dg.constant([ROWS, DIM]))
    opt.apply_gradients([(grad, table)])
    acc = 0.1 + a * a + b * b
    np.testing.assert_allclose(opt.get_slot(table, "accumulator").numpy()[1], acc, rtol=1e-6)
    np.testing.assert_allclose(table.numpy()[1], _table()[1] - 0.1 * (a + b) / np.sqrt(acc + 1e-7),
                               rtol=1e-6)


def test_sparse_updates_inside_a_function():
    table = dg.Variable(_table())
    opt = K.Adagrad(0.1)

    @dg.function
    def step(ids):
        with dg.GradientTape() as tape:
            loss = _loss(table, ids)
        opt.apply_gradients([(tape.gradient(loss, table), table)])

    for ids in IDS:
        step(dg.constant(ids))
    eager_table, _ = _train_eager(lambda: K.Adagrad(0.1))
    np.testing.assert_array_equal(table.numpy(), eager_table.numpy())
