"""TF1 optimizers (`dg.compat.v1.train`): numbers and names recorded from TF 2.21.

Each optimizer runs three steps on two variables (and a sparse embedding
with repeated rows) in graph mode with a Session, in eager mode and inside
`dg.function`; `minimize` is checked on a real loss in graph and eager mode.
"""
import numpy as np
import pytest

import duograd as dg
from optimizer_inputs import B0, E0, GB, GW, SPARSE_STEPS, W0

T = dg.compat.v1.train

X = np.array([[0.5, 1.0], [-1.0, 2.0]], np.float32)

OPTIMIZERS = {
    "gd": lambda: T.GradientDescentOptimizer(0.1),
    "momentum": lambda: T.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda: T.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda: T.AdamOptimizer(0.1),
    "adagrad": lambda: T.AdagradOptimizer(0.1),
    "rmsprop": lambda: T.RMSPropOptimizer(0.1),
    "rmsprop_centered": lambda: T.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
}

# Recorded from TF 2.21 (tf.compat.v1.train.*, graph mode, Session): [w, b] after each step
# (dense), the (5, 2) embedding after each step (sparse), the graph's global variables, the
# sorted slot names with get_slot(w, name).name, minimize()'s [loss, w] per step and the
# learning-rate decay functions at global steps 0..9.
DENSE = {
    'gd': [[[[0.99000001, -1.98000002], [0.469999999, 2.96000004]], [0.200000003,
        -0.649999976]], [[[1.03999996, -1.98500001], [0.449999988, 2.97000003]], [0.180000007,
        -0.679999948]], [[[1.00999999, -2.0150001], [0.48999998, 2.94499993]], [0.24000001,
        -0.689999938]]],
    'momentum': [[[[0.99000001, -1.98000002], [0.469999999, 2.96000004]], [0.200000003,
        -0.649999976]], [[[1.03100002, -1.96700001], [0.423000008, 2.93400002]], [0.135000005,
        -0.589999974]], [[[1.03789997, -1.98530006], [0.420700014, 2.88560009]], [0.136500016,
        -0.546000004]]],
    'nesterov': [[[[0.981000006, -1.96200001], [0.442999989, 2.92400002]], [0.155000001,
        -0.560000002]], [[[1.06789994, -1.95529997], [0.380699992, 2.91059995]], [0.0764999986,
        -0.536000013]], [[[1.04410994, -2.00177002], [0.418630004, 2.84204006]], [0.137850001,
        -0.506399989]]],
    'adam': [[[[0.900000334, -1.9000001], [0.400000095, 2.9000001]], [0.150000066,
        -0.650000036]], [[[0.959835529, -1.85305357], [0.302965283, 2.85305357]],
        [0.0601429045, -0.607215345]], [[[0.967288911, -1.88517904], [0.300235897,
        2.78888631]], [0.0613319166, -0.580390334]]],
    'adagrad': [[[[0.969848871, -1.94654775], [0.431175292, 2.92155361]], [0.165484577,
        -0.654653728]], [[[1.05318224, -1.95979309], [0.389472395, 2.94079852]], [0.133458942,
        -0.682154655]], [[[1.00846088, -2.02201009], [0.453523666, 2.89744306]], [0.202740967,
        -0.691283345]]],
    'rmsprop': [[[[0.989464939, -1.97896481], [0.468534172, 2.95820618]], [0.198012471,
        -0.649999976]], [[[1.04415309, -1.9845072], [0.446476102, 2.96921325]], [0.176145077,
        -0.681465805]], [[[1.00977039, -2.01934695], [0.492483824, 2.9403286]], [0.243699551,
        -0.692515016]]],
    'rmsprop_centered': [[[[0.989464343, -1.97896016], [0.468518555, 2.9581697]], [0.197942078,
        -0.649496198]], [[[1.03893971, -1.97398317], [0.43069005, 2.94826603]], [0.14999029,
        -0.63077265]], [[[1.02929354, -2.00634241], [0.457783699, 2.91438413]], [0.19356896,
        -0.632473171]]],
}

SPARSE = {
    'gd': [[[-0.360000014, -0.280000031], [-0.100000009, 0], [0.0699999928, 0.239999995],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.360000014, -0.280000031],
        [-0.120000005, -0.0400000028], [0.0699999928, 0.239999995], [0.300000012, 0.399999976],
        [0.479999989, 0.649999976]], [[-0.360000014, -0.280000031], [-0.120000005,
        -0.0400000028], [0.0499999896, 0.149999976], [0.300000012, 0.399999976], [0.479999989,
        0.649999976]]],
    'momentum': [[[-0.360000014, -0.280000031], [-0.100000009, 0], [0.0699999928, 0.239999995],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.360000014, -0.280000031],
        [-0.120000012, -0.0400000028], [0.0699999928, 0.239999995], [0.300000012, 0.399999976],
        [0.479999989, 0.649999976]], [[-0.360000014, -0.280000031], [-0.120000012,
        -0.0400000028], [0.0229999907, 0.18599999], [0.300000012, 0.399999976], [0.479999989,
        0.649999976]]],
    'nesterov': [[[-0.414000034, -0.352000028], [-0.100000009, 0], [0.0429999903, 0.275999993],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.414000034, -0.352000028],
        [-0.138000011, -0.076000005], [0.0429999903, 0.275999993], [0.300000012, 0.399999976],
        [0.462000012, 0.694999933]], [[-0.414000034, -0.352000028], [-0.138000011,
        -0.076000005], [-0.0193000138, 0.137400001], [0.300000012, 0.399999976], [0.462000012,
        0.694999933]]],
    'adam': [[[-0.399999976, -0.299999982], [-0.100000009, 0], [9.68575478e-08, 0.299999893],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.467005551, -0.367005557],
        [-0.174413323, -0.0744133741], [-0.0670054257, 0.367005438], [0.300000012,
        0.399999976], [0.4255867, 0.674413323]], [[-0.518800855, -0.41880089], [-0.231934831,
        -0.131934926], [-0.145547718, 0.329639196], [0.300000012, 0.399999976], [0.368065178,
        0.731934905]]],
    'adagrad': [[[-0.388465166, -0.292998135], [-0.100000009, 0], [0.0311752707, 0.278446436],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.388465166, -0.292998135],
        [-0.153452262, -0.0784464478], [0.0311752707, 0.278446436], [0.300000012, 0.399999976],
        [0.446547747, 0.684515357]], [[-0.388465166, -0.292998135], [-0.153452262,
        -0.0784464478], [-0.0105276182, 0.19144015], [0.300000012, 0.399999976], [0.446547747,
        0.684515357]]],
    'rmsprop': [[[-0.362017393, -0.281480104], [-0.100000009, 0], [0.0685341507, 0.241793826],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.362017393, -0.281480104],
        [-0.121035166, -0.0417938381], [0.0685341507, 0.241793826], [0.300000012, 0.399999976],
        [0.478964835, 0.651987493]], [[-0.362017393, -0.281480104], [-0.121035166,
        -0.0417938381], [0.0464760698, 0.147208825], [0.300000012, 0.399999976], [0.478964835,
        0.651987493]]],
    'rmsprop_centered': [[[-0.36213699, -0.281751931], [-0.100000009, 0], [0.0685185641,
        0.241830379], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.36213699,
        -0.281751931], [-0.121039823, -0.041830387], [0.0685185641, 0.241830379], [0.300000012,
        0.399999976], [0.478960186, 0.652057886]], [[-0.36213699, -0.281751931], [-0.121039823,
        -0.041830387], [0.030690074, 0.168007895], [0.300000012, 0.399999976], [0.478960186,
        0.652057886]]],
}

VARIABLE_NAMES = {
    'gd': ['w:0', 'b:0', 'global_step:0', 'e:0'],
    'momentum': ['w:0', 'b:0', 'global_step:0', 'w/Momentum:0', 'b/Momentum:0', 'e:0',
        'e/Momentum:0'],
    'nesterov': ['w:0', 'b:0', 'global_step:0', 'w/Momentum:0', 'b/Momentum:0', 'e:0',
        'e/Momentum:0'],
    'adam': ['w:0', 'b:0', 'global_step:0', 'beta1_power:0', 'beta2_power:0', 'w/Adam:0',
        'w/Adam_1:0', 'b/Adam:0', 'b/Adam_1:0', 'e:0', 'beta1_power_1:0', 'beta2_power_1:0',
        'e/Adam:0', 'e/Adam_1:0'],
    'adagrad': ['w:0', 'b:0', 'global_step:0', 'w/Adagrad:0', 'b/Adagrad:0', 'e:0',
        'e/Adagrad:0'],
    'rmsprop': ['w:0', 'b:0', 'global_step:0', 'w/RMSProp:0', 'w/RMSProp_1:0', 'b/RMSProp:0',
        'b/RMSProp_1:0', 'e:0', 'e/RMSProp:0', 'e/RMSProp_1:0'],
    'rmsprop_centered': ['w:0', 'b:0', 'global_step:0', 'w/RMSProp:0', 'w/RMSProp_1:0',
        'w/RMSProp_2:0', 'b/RMSProp:0', 'b/RMSProp_1:0', 'b/RMSProp_2:0', 'e:0', 'e/RMSProp:0',
        'e/RMSProp_1:0', 'e/RMSProp_2:0'],
}

SLOT_NAMES = {
    'gd': [[], []],
    'momentum': [['momentum'], ['w/Momentum:0']],
    'nesterov': [['momentum'], ['w/Momentum:0']],
    'adam': [['m', 'v'], ['w/Adam:0', 'w/Adam_1:0']],
    'adagrad': [['accumulator'], ['w/Adagrad:0']],
    'rmsprop': [['momentum', 'rms'], ['w/RMSProp_1:0', 'w/RMSProp:0']],
    'rmsprop_centered': [['mg', 'momentum', 'rms'], ['w/RMSProp_1:0', 'w/RMSProp_2:0',
        'w/RMSProp:0']],
}

MINIMIZE = {
    'adam': [[13.5642529, [[0.949999988, -1.95000005], [0.450000137, 2.95000005]]],
        [13.0336285, [[0.900054395, -1.90005112], [0.416633517, 2.90003037]]], [12.5232038,
        [[0.850202918, -1.85019004], [0.41281122, 2.8501091]]], [12.0276279, [[0.800487757,
        -1.80045545], [0.425384164, 2.80025244]]]],
}

DECAY = {
    'exp': [0.100000001, 0.0793700516, 0.0629960522, 0.0500000007, 0.0396850258, 0.0314980261,
        0.0250000004, 0.019842511, 0.0157490131, 0.0125000002],
    'exp_stair': [0.100000001, 0.100000001, 0.100000001, 0.0500000007, 0.0500000007,
        0.0500000007, 0.0250000004, 0.0250000004, 0.0250000004, 0.0125000002],
    'poly': [0.100000001, 0.0724999979, 0.049999997, 0.0324999988, 0.0199999996, 0.0124999993,
        0.00999999978, 0.00999999978, 0.00999999978, 0.00999999978],
    'poly_cycle': [0.100000001, 0.0700000003, 0.0399999991, 0.00999999978, 0.0399999991,
        0.0250000022, 0.00999999978, 0.0299999993, 0.0199999996, 0.00999999978],
    'pw': [1, 1, 1, 0.5, 0.5, 0.5, 0.100000001, 0.100000001, 0.100000001, 0.100000001],
}


def _graph_run(case):
    with dg.Graph().as_default():
        w, b = dg.Variable(W0, name="w"), dg.Variable(B0, name="b")
        gw, gb = dg.placeholder(dg.float32, (2, 2)), dg.placeholder(dg.float32, (2,))
        opt = OPTIMIZERS[case]()
        step = T.get_or_create_global_step()
        train = opt.apply_gradients([(gw, w), (gb, b)], global_step=step)
        e = dg.Variable(E0, name="e")
        idx, vals = dg.placeholder(dg.int32, (3,)), dg.placeholder(dg.float32, (3, 2))
        sparse = OPTIMIZERS[case]()
        sparse_train = sparse.apply_gradients([(dg.IndexedSlices(vals, idx, dg.constant([5, 2])),
                                                e)])
        names = [v.name for v in dg.global_variables()]
        slots = [opt.get_slot_names(), [opt.get_slot(w, n).name for n in opt.get_slot_names()]]
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            dense_out, sparse_out = [], []
            for a, c, (i, x) in zip(GW, GB, SPARSE_STEPS):
                sess.run(train, {gw: a, gb: c})
                dense_out.append(sess.run([w, b]))
                sess.run(sparse_train, {idx: i, vals: x})
                sparse_out.append(sess.run(e))
            return dense_out, sparse_out, int(sess.run(step)), names, slots


def _eager_run(case, in_function):
    w, b, e = dg.Variable(W0), dg.Variable(B0), dg.Variable(E0)
    opt, sparse = OPTIMIZERS[case](), OPTIMIZERS[case]()
    step = dg.Variable(0, dtype=dg.int64)
    apply = dg.function(lambda a, c: opt.apply_gradients([(a, w), (c, b)], global_step=step))
    dense_out, sparse_out = [], []
    for a, c, (i, x) in zip(GW, GB, SPARSE_STEPS):
        if in_function:
            apply(dg.constant(a), dg.constant(c))
        else:
            assert opt.apply_gradients([(dg.constant(a), w), (dg.constant(c), b)],
                                       global_step=step) is None
        dense_out.append([w.numpy(), b.numpy()])
        grad = dg.IndexedSlices(dg.constant(x, dg.float32), dg.constant(i), dg.constant([5, 2]))
        sparse.apply_gradients([(grad, e)])
        sparse_out.append(e.numpy())
    return dense_out, sparse_out, int(step.numpy())


@pytest.mark.parametrize("mode", ["graph", "eager", "function"])
@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_trajectories_match_tf1(case, mode):
    if mode == "graph":
        dense, sparse, step, _, _ = _graph_run(case)
    else:
        dense, sparse, step = _eager_run(case, mode == "function")
    for got, (want_w, want_b) in zip(dense, DENSE[case]):
        np.testing.assert_allclose(got[0], want_w, rtol=3e-7, atol=3e-7, err_msg=case)
        np.testing.assert_allclose(got[1], want_b, rtol=3e-7, atol=3e-7, err_msg=case)
    np.testing.assert_allclose(np.array(sparse), SPARSE[case], rtol=3e-7, atol=3e-7)
    assert step == 3


@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_variable_and_slot_names_match_tf1(case):
    _, _, _, names, slots = _graph_run(case)
    assert names == VARIABLE_NAMES[case]
    assert slots == SLOT_NAMES[case]


def _loss(w):
    return dg.reduce_sum(dg.sin(w) * X) + dg.reduce_sum(w * w)


def test_minimize_in_graph_mode():
    with dg.Graph().as_default():
        w, u = dg.Variable(W0, name="w"), dg.Variable(1.0, name="u")
        loss = _loss(w)
        step = T.get_or_create_global_step()
        assert T.get_or_create_global_step() is step and step.dtype == dg.int64
        opt = T.AdamOptimizer(0.05)
        grads_and_vars = opt.compute_gradients(loss, var_list=[w, u])
        assert grads_and_vars[1] == (None, u) and grads_and_vars[0][1] is w
        train = opt.minimize(loss, global_step=step, var_list=[w])
        assert isinstance(train, dg.Operation)
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            for want_loss, want_w in MINIMIZE["adam"]:
                _, got_loss = sess.run([train, loss])
                np.testing.assert_allclose(got_loss, want_loss, rtol=1e-6)
                np.testing.assert_allclose(sess.run(w), want_w, rtol=1e-6)
            assert sess.run(step) == 4


def test_minimize_in_eager_mode_takes_a_callable():
    w = dg.Variable(W0)
    opt = T.AdamOptimizer(0.05)
    step = T.get_or_create_global_step()
    for want_loss, want_w in MINIMIZE["adam"]:
        np.testing.assert_allclose(float(_loss(w)), want_loss, rtol=1e-6)
        assert opt.minimize(lambda: _loss(w), global_step=step, var_list=[w]) is None
        np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-6)
    assert T.get_or_create_global_step() is step and int(step.numpy()) >= 4
    with pytest.raises(RuntimeError, match="should be a function"):
        opt.minimize(_loss(w))
    assert set(opt.trackable_children()) == {"beta1_power", "beta2_power"}
    assert opt.trackable_children()["beta1_power"].numpy() == pytest.approx(0.9 ** 5, rel=1e-6)  # beta1 ** (steps + 1)


def test_compute_gradients_watches_what_the_loss_reads():
    w, unused = dg.Variable([1.0, 2.0]), dg.Variable(3.0)
    grads_and_vars = T.GradientDescentOptimizer(0.1).compute_gradients(
        lambda: dg.reduce_sum(w * w))
    assert [v for _, v in grads_and_vars] == [w]
    np.testing.assert_allclose(grads_and_vars[0][0].numpy(), [2.0, 4.0])
    with pytest.raises(ValueError, match="No gradients provided"):
        T.GradientDescentOptimizer(0.1).minimize(lambda: dg.reduce_sum(w * w) * 0 + 1.0,
                                                 var_list=[unused])


def test_bad_arguments():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        T.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="No variables provided"):
        T.GradientDescentOptimizer(0.1).apply_gradients([])
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to optimize"):
            T.GradientDescentOptimizer(0.1).minimize(dg.constant(1.0))


@pytest.mark.parametrize("name", sorted(DECAY))
def test_learning_rate_decay_functions(name):
    with dg.Graph().as_default():
        step = dg.placeholder(dg.int64, ())
        value = {
            "exp": lambda: T.exponential_decay(0.1, step, 3, 0.5),
            "exp_stair": lambda: T.exponential_decay(0.1, step, 3, 0.5, staircase=True),
            "poly": lambda: T.polynomial_decay(0.1, step, 6, 0.01, power=2.0),
            "poly_cycle": lambda: T.polynomial_decay(0.1, step, 3, 0.01, cycle=True),
            "pw": lambda: T.piecewise_constant(step, [2, 5], [1.0, 0.5, 0.1]),
        }[name]()
        assert value.dtype == dg.float32
        with dg.Session() as sess:
            got = [sess.run(value, {step: i}) for i in range(10)]
    np.testing.assert_allclose(got, DECAY[name], rtol=1e-6)


def test_decay_in_eager_mode_is_a_callable_of_the_step():
    step = dg.Variable(0, dtype=dg.int64)
    rate = T.exponential_decay(0.1, step, 3, 0.5, staircase=True)
    opt = T.GradientDescentOptimizer(rate)
    w = dg.Variable([0.0])
    for _ in range(4):
        opt.apply_gradients([(dg.constant([1.0]), w)], global_step=step)
    np.testing.assert_allclose(w.numpy(), [-(0.1 * 3 + 0.05)], rtol=1e-6)
    with pytest.raises(ValueError, match="global_step is required"):
        T.exponential_decay(0.1, None, 3, 0.5)


def test_deferred_slot_restore_and_slot_protocol():
    w = dg.Variable([1.0, 2.0])
    opt = T.MomentumOptimizer(0.1, 0.9)
    opt.defer_slot_restore(w, "momentum", np.array([0.5, -0.5], np.float32))
    opt.apply_gradients([(dg.constant([1.0, 1.0]), w)])
    [(var, name, slot)] = opt.slot_variables()
    assert var is w and name == "momentum"
    np.testing.assert_allclose(slot.numpy(), [0.5 * 0.9 + 1.0, -0.5 * 0.9 + 1.0])
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.1 * 1.45, 2.0 - 0.1 * 0.55], rtol=1e-6)


def test_namespaces():
    assert dg.train.AdamOptimizer is dg.compat.v1.train.AdamOptimizer
    for name in ("GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
                 "AdagradOptimizer", "RMSPropOptimizer"):
        assert issubclass(getattr(dg.train, name), dg.train.Optimizer)
