"""lazy_sparse=True (LazyAdam semantics for every optimizer) and the fused sparse step.

Lazy: an IndexedSlices gradient has its repeated rows summed, then only those
rows of the variable and of its slots are read and written; a row's moments
change only on steps where it appears. Checked against NumPy written here from
the textbook update rules (float64), in eager mode, inside dg.function and in
graph mode; lazy equals the default step when every row appears every step;
untouched rows and slots stay bitwise equal; a checkpoint resumes the lazy
trajectory. The default (TF-exact) sparse step decays every row in place, block
by block: bitwise equal to the dense step and without table-sized temporaries.
"""
import tracemalloc

import numpy as np
import pytest

import duograd as dg
import duograd.training.sparse_apply as sparse_apply
from sparse_training import train_with_slices

K = dg.keras.optimizers
T = dg.compat.v1.train
LR = 0.1
ROWS, DIM = 6, 2
E0 = (np.arange(ROWS * DIM, dtype=np.float32).reshape(ROWS, DIM) / 7 - 0.8)
# Four steps: rows repeated (summed first), unsorted, touched on some steps only (3 never).
STEP_IDS = [[4, 1, 4], [0, 4, 4, 4], [2, 1], [5, 2, 2, 0]]
_RNG = np.random.default_rng(12)
STEPS = [(ids, _RNG.normal(size=(len(ids), DIM)).astype(np.float32)) for ids in STEP_IDS]


# -- NumPy reference rules: (w row, summed g row, slot rows dict, step t) -> new w row ----------
def _sgd(momentum=0.0, nesterov=False):
    def update(w, g, s, t):
        if not momentum:
            return w - LR * g
        s["m"] = momentum * s.get("m", 0.0) - LR * g
        return w + (momentum * s["m"] - LR * g if nesterov else s["m"])
    return update


def _adam(amsgrad=False, wd=None, eps=1e-7, b1=0.9, b2=0.999):
    def update(w, g, s, t):
        if wd:
            w = w - w * wd * LR
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        v = s["v"]
        if amsgrad:
            s["vhat"] = v = np.maximum(s.get("vhat", 0.0), v)
        return w - LR * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * s["m"] / (np.sqrt(v) + eps)
    return update


def _rmsprop(momentum=0.0, centered=False, rho=0.9, eps=1e-7, v0=0.0, inside=True):
    """Keras (eps inside the square root with the centered term) and TF1 alike."""
    def update(w, g, s, t):
        s["ms"] = rho * s.get("ms", v0) + (1 - rho) * g * g
        denominator = s["ms"] + eps
        if centered:
            s["mg"] = rho * s.get("mg", 0.0) + (1 - rho) * g
            denominator = denominator - s["mg"] ** 2
        increment = LR * g / np.sqrt(denominator)
        if momentum:
            s["mom"] = momentum * s.get("mom", 0.0) + increment
            increment = s["mom"]
        return w - increment
    return update


def _adagrad(eps=1e-7):
    def update(w, g, s, t):
        s["acc"] = s.get("acc", 0.1) + g * g
        return w - LR * g / np.sqrt(s["acc"] + eps)
    return update


def _adamax(b1=0.9, b2=0.999, eps=1e-7):
    def update(w, g, s, t):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["u"] = np.maximum(b2 * s.get("u", 0.0), np.abs(g))
        return w - LR * s["m"] / ((1 - b1 ** t) * (s["u"] + eps))
    return update


def _nadam(b1=0.9, b2=0.999, eps=1e-7):
    def mu(t):
        return b1 * (1 - 0.5 * 0.96 ** t)

    def update(w, g, s, t):
        product = np.prod([mu(i) for i in range(1, t + 1)])
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        m_hat = mu(t + 1) * s["m"] / (1 - product * mu(t + 1)) + (1 - mu(t)) * g / (1 - product)
        return w - LR * m_hat / (np.sqrt(s["v"] / (1 - b2 ** t)) + eps)
    return update


def _tf1_momentum(nesterov=False):
    def update(w, g, s, t):
        s["acc"] = 0.9 * s.get("acc", 0.0) + g
        return w - (LR * g + LR * 0.9 * s["acc"] if nesterov else LR * s["acc"])
    return update


def _tf1_adagrad(w, g, s, t):
    s["acc"] = s.get("acc", 0.1) + g * g
    return w - LR * g / np.sqrt(s["acc"])


# name: (optimizer in lazy mode, NumPy reference of its lazy rule)
CASES = {
    "sgd": (lambda: K.SGD(LR, lazy_sparse=True), _sgd()),
    "sgd_momentum": (lambda: K.SGD(LR, momentum=0.9, lazy_sparse=True), _sgd(0.9)),
    "sgd_nesterov": (lambda: K.SGD(LR, momentum=0.9, nesterov=True, lazy_sparse=True),
                     _sgd(0.9, True)),
    "adam": (lambda: K.Adam(LR, lazy_sparse=True), _adam()),
    "lazy_adam": (lambda: K.LazyAdam(LR), _adam()),
    "adam_amsgrad": (lambda: K.Adam(LR, amsgrad=True, lazy_sparse=True), _adam(True)),
    "adamw": (lambda: K.AdamW(LR, weight_decay=0.1, lazy_sparse=True), _adam(wd=0.1)),
    "rmsprop": (lambda: K.RMSprop(LR, lazy_sparse=True), _rmsprop()),
    "rmsprop_centered": (lambda: K.RMSprop(LR, momentum=0.5, centered=True, lazy_sparse=True),
                         _rmsprop(0.5, True)),
    "adagrad": (lambda: K.Adagrad(LR, lazy_sparse=True), _adagrad()),
    "adamax": (lambda: K.Adamax(LR, lazy_sparse=True), _adamax()),
    "nadam": (lambda: K.Nadam(LR, lazy_sparse=True), _nadam()),
    "v1_gd": (lambda: T.GradientDescentOptimizer(LR, lazy_sparse=True), _sgd()),
    "v1_momentum": (lambda: T.MomentumOptimizer(LR, 0.9, lazy_sparse=True), _tf1_momentum()),
    "v1_nesterov": (lambda: T.MomentumOptimizer(LR, 0.9, use_nesterov=True, lazy_sparse=True),
                    _tf1_momentum(True)),
    "v1_adam": (lambda: T.AdamOptimizer(LR, lazy_sparse=True), _adam(eps=1e-8)),
    "v1_lazy_adam": (lambda: T.LazyAdamOptimizer(LR), _adam(eps=1e-8)),
    "v1_adagrad": (lambda: T.AdagradOptimizer(LR, lazy_sparse=True), _tf1_adagrad),
    "v1_rmsprop_centered": (lambda: T.RMSPropOptimizer(LR, momentum=0.5, centered=True,
                                                       lazy_sparse=True),
                            _rmsprop(0.5, True, eps=1e-10, v0=1.0)),
}
# The default (TF-exact) counterpart of each lazy Keras case and of TF1 Adam.
DEFAULTS = {
    "sgd_momentum": lambda: K.SGD(LR, momentum=0.9),
    "sgd_nesterov": lambda: K.SGD(LR, momentum=0.9, nesterov=True),
    "adam": lambda: K.Adam(LR),
    "adam_amsgrad": lambda: K.Adam(LR, amsgrad=True),
    "adamw": lambda: K.AdamW(LR, weight_decay=0.1),
    "rmsprop_centered": lambda: K.RMSprop(LR, momentum=0.5, centered=True),
    "adagrad": lambda: K.Adagrad(LR),
    "adamax": lambda: K.Adamax(LR),
    "nadam": lambda: K.Nadam(LR),
    "v1_adam": lambda: T.AdamOptimizer(LR),
}


def _reference(update, steps=STEPS, table=E0):
    w = table.astype(np.float64)
    slots = [{} for _ in range(len(w))]
    out = []
    for t, (ids, values) in enumerate(steps, start=1):
        for row in sorted(set(ids)):
            g = sum(v.astype(np.float64) for i, v in zip(ids, values) if i == row)
            w[row] = update(w[row], g, slots[row], t)
        out.append(w.copy())
    return out


def _slices(ids, values, rows=ROWS):
    return dg.IndexedSlices(dg.constant(values), dg.constant(ids, dg.int32),
                            dg.constant([rows, DIM]))


def _train(make, mode, steps=STEPS, table=E0):
    """The table after each step, training with IndexedSlices gradients in `mode`."""
    return train_with_slices(make, mode, steps, table)


@pytest.mark.parametrize("mode", ["eager", "function", "graph"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_lazy_trajectory_matches_numpy(case, mode):
    make, update = CASES[case]
    got = _train(make, mode)
    for step, want in enumerate(_reference(update)):
        np.testing.assert_allclose(got[step], want, rtol=2e-5, atol=2e-6,
                                   err_msg=f"{case} step {step + 1}")
    np.testing.assert_array_equal(got[-1][3], E0[3])  # row 3 is never in a batch


@pytest.mark.parametrize("case", sorted(CASES))
def test_lazy_leaves_untouched_rows_and_slots_bitwise_and_writes_in_place(case):
    e = dg.Variable(E0)
    opt = CASES[case][0]()
    opt.apply_gradients([(_slices(*STEPS[0]), e)])
    slots = {name: slot.numpy() for _, name, slot in opt.slot_variables()}
    buffers = [id(e.eager_value())] + [id(s.eager_value()) for _, _, s in opt.slot_variables()]
    before = e.numpy()
    opt.apply_gradients([(_slices(*STEPS[2]), e)])  # rows 1 and 2
    untouched = [0, 3, 4, 5]
    np.testing.assert_array_equal(e.numpy()[untouched], before[untouched])
    assert np.all(e.numpy()[[1, 2]] != before[[1, 2]])
    for _, name, slot in opt.slot_variables():
        np.testing.assert_array_equal(slot.numpy()[untouched], slots[name][untouched], name)
    assert buffers == [id(e.eager_value())] + [id(s.eager_value())
                                               for _, _, s in opt.slot_variables()]


def _permutations(steps=3):
    rng = np.random.default_rng(5)
    return [(list(rng.permutation(ROWS)), rng.normal(size=(ROWS, DIM)).astype(np.float32))
            for _ in range(steps)]


@pytest.mark.parametrize("case", sorted(DEFAULTS))
def test_lazy_equals_default_when_every_row_is_in_every_step(case):
    steps = _permutations()
    lazy = _train(CASES[case][0], "eager", steps)
    default = _train(DEFAULTS[case], "eager", steps)
    np.testing.assert_array_equal(np.array(lazy), np.array(default))


def test_lazy_differs_from_default_where_tf_decays_untouched_rows():
    lazy = _train(CASES["adam"][0], "eager")
    default = _train(DEFAULTS["adam"], "eager")
    # Row 4 is in steps 1 and 2 only: its momentum still moves it in steps 3 and 4 by default.
    np.testing.assert_array_equal(lazy[3][4], lazy[1][4])
    assert np.all(default[3][4] != default[1][4])


def test_dense_gradients_ignore_the_flag():
    grads = [np.full((ROWS, DIM), 0.1 * k, np.float32) - E0 for k in range(3)]
    for make_lazy, make in ((lambda: K.Adam(LR, lazy_sparse=True), lambda: K.Adam(LR)),
                            (lambda: T.LazyAdamOptimizer(LR), lambda: T.AdamOptimizer(LR))):
        results = []
        for factory in (make_lazy, make):
            e, opt = dg.Variable(E0), factory()
            for g in grads:
                opt.apply_gradients([(dg.constant(g), e)])
            results.append(e.numpy())
        np.testing.assert_array_equal(results[0], results[1])


BLOCKED = {**{k: v for k, v in DEFAULTS.items() if k != "v1_adam"},  # TF1: next test
           "sgd_weight_decay": lambda: K.SGD(LR, weight_decay=0.1),
           "adagrad_weight_decay": lambda: K.Adagrad(LR, weight_decay=0.1)}


@pytest.mark.parametrize("case", sorted(BLOCKED))
def test_default_blocked_step_equals_dense_step_bitwise(case, monkeypatch):
    """Distinct ids (Keras squares each slice; with repeats the dense g*g differs), and
    blocks of 3 rows (a partial last block) for a 40-row table."""
    monkeypatch.setattr(sparse_apply, "BLOCK_BYTES", 3 * DIM * 4)
    table = np.random.default_rng(1).normal(size=(40, DIM)).astype(np.float32)
    rng = np.random.default_rng(2)
    steps = [(list(rng.choice(40, 7, replace=False)), rng.normal(size=(7, DIM)).astype(np.float32))
             for _ in range(3)]
    sparse = _train(BLOCKED[case], "eager", steps, table)
    e, opt = dg.Variable(table), BLOCKED[case]()
    for ids, values in steps:
        dense = np.zeros_like(table)
        dense[ids] = values
        opt.apply_gradients([(dg.constant(dense), e)])
    np.testing.assert_array_equal(sparse[-1], e.numpy())


def test_tf1_default_sparse_adam_is_tf_formula_bitwise(monkeypatch):
    """TF1: m = m * b1, then rows += g * (1 - b1) (v alike), every row moves by
    lr_t * m / (sqrt(v) + eps); float32 NumPy in TF's operation order."""
    monkeypatch.setattr(sparse_apply, "BLOCK_BYTES", 2 * DIM * 4)
    got = _train(lambda: T.AdamOptimizer(LR), "eager")
    f = np.float32
    w, m, v = E0.copy(), np.zeros_like(E0), np.zeros_like(E0)
    b1, b2, b1p, b2p = f(0.9), f(0.999), f(0.9), f(0.999)
    for (ids, values), want in zip(STEPS, got):
        rows, where = np.unique(ids, return_inverse=True)
        g = np.zeros((len(rows), DIM), np.float32)
        np.add.at(g, where, values)
        lr = f(LR) * np.sqrt(f(1) - b2p) / (f(1) - b1p)
        m, v = m * b1, v * b2
        m[rows] += g * (f(1) - b1)
        v[rows] += (g * g) * (f(1) - b2)
        w = w - lr * m / (np.sqrt(v) + f(1e-8))
        b1p, b2p = b1p * b1, b2p * b2
        np.testing.assert_array_equal(want, w)


@pytest.mark.parametrize("make", [lambda: K.Adam(0.01), lambda: K.AdamW(0.01),
                                  lambda: K.RMSprop(0.01, momentum=0.5, centered=True),
                                  lambda: T.AdamOptimizer(0.01), lambda: K.Nadam(0.01),
                                  lambda: K.Adam(0.01, lazy_sparse=True)],
                         ids=["adam", "adamw", "rmsprop", "v1_adam", "nadam", "adam_lazy"])
def test_a_sparse_step_allocates_no_table_sized_temporary(make):
    table = dg.Variable(np.random.default_rng(0).normal(size=(400_000, 8)).astype(np.float32))
    opt = make()
    grad = _slices([5, 17, 5, 399_999], np.ones((4, 8), np.float32), rows=400_000)
    opt.apply_gradients([(grad, table)])
    before = table.numpy()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        opt.apply_gradients([(grad, table)])
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    # The dense sweep's buffers are a few blocks (sparse_apply.BLOCK_BYTES each): the
    # step's extra memory stays under 2 MiB whatever the table's size (here 12 MiB).
    assert peak < 2 * 2 ** 20, peak
    assert not np.array_equal(before[5], table.numpy()[5])


@pytest.mark.parametrize("make", [lambda: K.LazyAdam(0.05), lambda: K.Nadam(0.05, lazy_sparse=True)],
                         ids=["lazy_adam", "nadam"])
def test_lazy_optimizer_checkpoint_resumes_bit_for_bit(tmp_path, make):
    e, opt = dg.Variable(E0), make()
    for ids, values in STEPS[:2]:
        opt.apply_gradients([(_slices(ids, values), e)])
    path = dg.train.Checkpoint(table=e, optimizer=opt).save(str(tmp_path / "ck"))
    for ids, values in STEPS[2:]:
        opt.apply_gradients([(_slices(ids, values), e)])
    e2, opt2 = dg.Variable(np.zeros_like(E0)), make()
    dg.train.Checkpoint(table=e2, optimizer=opt2).restore(path)
    for ids, values in STEPS[2:]:
        opt2.apply_gradients([(_slices(ids, values), e2)])
    np.testing.assert_array_equal(e2.numpy(), e.numpy())
    for (_, name, slot), (_, name2, slot2) in zip(opt.slot_variables(), opt2.slot_variables()):
        assert name == name2
        np.testing.assert_array_equal(slot.numpy(), slot2.numpy())


def test_tf1_lazy_adam_saver_resumes_bit_for_bit(tmp_path):
    def build():
        graph = dg.Graph()
        with graph.as_default():
            e = dg.Variable(E0, name="table")
            ids, values = dg.placeholder(dg.int32, (None,)), dg.placeholder(dg.float32)
            grad = dg.IndexedSlices(values, ids, dg.constant([ROWS, DIM]))
            step = dg.compat.v1.train.get_or_create_global_step()
            train = T.LazyAdamOptimizer(0.05).apply_gradients([(grad, e)], global_step=step)
            init = dg.global_variables_initializer()
        return graph, e, ids, values, train, init

    graph, e, ids, values, train, init = build()
    with graph.as_default(), dg.Session() as sess:
        sess.run(init)
        for i, x in STEPS[:2]:
            sess.run(train, {ids: i, values: x})
        path = T.Saver().save(sess, str(tmp_path / "model"))
        for i, x in STEPS[2:]:
            sess.run(train, {ids: i, values: x})
        uninterrupted = sess.run(e)
    graph, e, ids, values, train, _ = build()
    with graph.as_default(), dg.Session() as sess:
        T.Saver().restore(sess, path)
        for i, x in STEPS[2:]:
            sess.run(train, {ids: i, values: x})
        np.testing.assert_array_equal(sess.run(e), uninterrupted)


def test_get_config_is_keras_plus_lazy_sparse():
    # Recorded from TF 2.21 / Keras 3: keras.optimizers.Adam(0.1).get_config().
    keras_adam = {'name': 'adam', 'learning_rate': 0.10000000149011612, 'weight_decay': None,
                  'clipnorm': None, 'global_clipnorm': None, 'clipvalue': None, 'use_ema': False,
                  'ema_momentum': 0.99, 'ema_overwrite_frequency': None,
                  'loss_scale_factor': None, 'gradient_accumulation_steps': None,
                  'beta_1': 0.9, 'beta_2': 0.999, 'epsilon': 1e-07, 'amsgrad': False}
    assert K.Adam(0.1).get_config() == {**keras_adam, "lazy_sparse": False}
    lazy = K.LazyAdam(0.1).get_config()
    assert lazy["lazy_sparse"] is True and lazy["name"] == "lazy_adam"
    for cls in (K.SGD, K.Adam, K.AdamW, K.RMSprop, K.Adagrad, K.Adamax, K.Nadam, K.LazyAdam):
        config = cls(0.1, lazy_sparse=True).get_config()
        assert config["lazy_sparse"] is True, cls
        again = cls.from_config(config)
        assert type(again) is cls and again.get_config() == config
    schedule = K.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    config = K.SGD(schedule).get_config()
    assert config["learning_rate"]["class_name"] == "ExponentialDecay"
    restored = K.SGD.from_config(config)
    assert restored.learning_rate.numpy() == np.float32(0.1)


def test_tf1_lazy_adam_keeps_contrib_names():
    opt = T.LazyAdamOptimizer()
    assert opt.get_name() == "Adam" and isinstance(opt, T.AdamOptimizer)
    e = dg.Variable(E0)
    opt.apply_gradients([(_slices(*STEPS[0]), e)])
    assert opt.get_slot_names() == ["m", "v"]
    assert dg.optimizers.LazyAdam is K.LazyAdam


def test_bad_rows_raise_invalid_argument():
    e = dg.Variable(E0)
    for opt in (K.Adam(LR), K.Adam(LR, lazy_sparse=True), T.AdamOptimizer(LR)):
        with pytest.raises(dg.errors.InvalidArgumentError, match="= 9 is not in \\[0, 6\\)"):
            opt.apply_gradients([(_slices([1, 9], np.ones((2, DIM), np.float32)), e)])


def test_recorded_rule_keeps_old_values_that_later_operations_read():
    """rule_program writes a slot's new value into its block only when nothing reads the
    old value afterwards; unchanged slots and constant deltas pass through."""
    from duograd.training.rule_program import record, value_of

    def rule(slots):
        a, b, c = slots
        new_a = a * 2.0
        return (new_a, a + b, c), 0.5  # b's new value reads the old a; c unchanged

    program, outputs = record(rule, 3)
    a, b, c = (np.arange(6, dtype=np.float32).reshape(3, 2) + k for k in range(3))
    want = (a * 2.0, a + b, c.copy())
    blocks = [a.copy(), b.copy(), c.copy()]
    buffers = [np.empty((3, 2), np.float32) for _ in range(program.num_buffers)]
    values = program.run(blocks, buffers, 3)
    got = [blocks[i] if program.writes_in_place(o, i) else value_of(o, values)
           for i, o in enumerate(outputs[:3])]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert value_of(outputs[3], values) == 0.5
