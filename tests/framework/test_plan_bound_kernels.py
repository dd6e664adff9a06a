"""Kernels a compiled plan binds once per op (plan_bind) and the loop-body fast paths:
MatMul with transposes, Sum/Mean over axes, GatherV2 of one row, small BroadcastTo,
TensorArray writes in map_fn. Each gives TF 2.21's values (recorded with TF) eagerly,
in a dg.function and in a Session, its gradient checks numerically inside a function,
and bad input raises TF's class at run time."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from duograd.framework import session as session_module


def _three_ways(f, *args):
    """f's results eagerly, through dg.function, and in a v1 Session (placeholders)."""
    eager = f(*[dg.constant(a) for a in args])
    function = dg.function(f)(*[dg.constant(a) for a in args])
    graph = dg.Graph()
    with graph.as_default():
        holders = [dg.compat.v1.placeholder(dg.as_dtype(a.dtype), a.shape) for a in args]
        fetches = f(*holders)
        with dg.compat.v1.Session(graph=graph) as session:
            fed = session.run(fetches, dict(zip(holders, args)))
    return [[np.asarray(v) for v in out] for out in (eager, function, fed)]


def _check(results, want, rtol=0.0, atol=0.0):
    for out in results:
        assert len(out) == len(want)
        for got, expected in zip(out, want, strict=True):
            expected = np.asarray(expected, dtype=got.dtype)
            assert got.shape == expected.shape
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


# -- BroadcastTo ---------------------------------------------------------------
X13 = (np.arange(3, dtype=np.float64).reshape(1, 3) - 1.25) * 0.5


def _broadcast_and_grad(x):
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.broadcast_to(x, [4, 3])
        loss = dg.reduce_sum(y * dg.reshape(dg.range(12, dtype=x.dtype), [4, 3]))
    return y, tape.gradient(loss, x)


def test_small_broadcast_matches_tf_in_every_mode():
    row = [-0.625, -0.125, 0.375]
    _check(_three_ways(_broadcast_and_grad, X13), [[row] * 4, [[18.0, 22.0, 26.0]]])


@pytest.mark.parametrize("x, shape", [(np.arange(3.0), [3]), (np.arange(3.0), [2, 1, 3]),
                                      (np.ones((1, 300)), [100, 300]), (np.ones((2, 1)), [2, 0])])
def test_broadcast_results_are_numpys_broadcast_values(x, shape):
    run = dg.function(lambda v: dg.broadcast_to(v, shape))
    got = np.asarray(run(dg.constant(x)))
    np.testing.assert_array_equal(got, np.broadcast_to(x, shape))


def test_small_broadcast_gradient_checks_numerically_in_a_function():
    f = dg.function(lambda v: dg.broadcast_to(v, [2, 4, 3]) * dg.constant(np.arange(24.0).reshape(2, 4, 3)))
    (theoretical,), (numerical,) = dg.test.compute_gradient(f, [X13])
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("x, shape", [(np.ones(3), [2, 4]), (np.ones((1, 1, 3)), [3])])
def test_broadcast_mismatch_at_run_time_is_invalid_argument(x, shape):
    # TF 2.21 (tf.function with unknown shapes): InvalidArgumentError for both
    run = dg.function(lambda v, s: dg.broadcast_to(v, s),
                      input_signature=[dg.TensorSpec(None, dg.float64), dg.TensorSpec([None], dg.int32)])
    with pytest.raises(dg.errors.InvalidArgumentError):
        run(dg.constant(x), dg.constant(np.array(shape, np.int32)))


# -- Sum / Mean over axes ----------------------------------------------------------
XR = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * np.float32(0.37) - np.float32(3.1)
TF_A = [[[-0.3249998092651367], [1.1550002098083496], [2.635000228881836]]]
TF_B = [[-4.859999656677246, -3.75, -2.6399996280670166, -1.5299992561340332],
        [8.460000991821289, 9.569999694824219, 10.680000305175781, 11.790000915527344]]
TF_C = 1.15500009059906
TF_D = [[[0.2893398404121399, 3.66365909576416, 1.8489755392074585, -1.046570062637329],
         [0.6593398451805115, 4.033658981323242, 2.21897554397583, -0.6765699982643127],
         [1.0293397903442383, 4.403658866882324, 2.588975429534912, -0.30656999349594116]],
        [[-3.9818966388702393, -9.598976135253906, -4.250286102294922, 7.7260236740112305],
         [-3.611896514892578, -9.228976249694824, -3.88028621673584, 8.096023559570312],
         [-3.241896629333496, -8.858976364135742, -3.510286331176758, 8.466023445129395]]]


def _reductions(x):
    with dg.GradientTape() as tape:
        tape.watch(x)
        a = dg.reduce_mean(x, axis=[-1, 0], keepdims=True)
        b = dg.reduce_sum(x, axis=[1])
        c = dg.reduce_mean(x)
        loss = dg.reduce_sum(a * a) + dg.reduce_sum(b * dg.sin(b)) + c * c
    return a, b, c, tape.gradient(loss, x)


def test_reductions_over_axes_match_tf_in_every_mode():
    # TF's float32 sums differ from NumPy's pairwise order in the last bits
    _check(_three_ways(_reductions, XR), [TF_A, TF_B, TF_C, TF_D], rtol=2e-6, atol=2e-6)


def test_reductions_of_empty_input_are_tfs_nan_and_zero():
    empty = np.zeros((0, 3), np.float32)
    fn = dg.function(lambda v: (dg.reduce_mean(v), dg.reduce_mean(v, axis=0),
                                dg.reduce_sum(v, axis=[0]), dg.reduce_sum(v, axis=[-2], keepdims=True)))
    mean_all, mean_0, sum_0, sum_kept = (np.asarray(t) for t in fn(dg.constant(empty)))
    assert mean_all.shape == () and np.isnan(mean_all) and mean_all.dtype == np.float32
    assert mean_0.shape == (3,) and np.isnan(mean_0).all()
    np.testing.assert_array_equal(sum_0, np.zeros(3, np.float32))
    np.testing.assert_array_equal(sum_kept, np.zeros((1, 3), np.float32))


def test_mean_over_axes_gradient_checks_numerically_in_a_function():
    x = XR.astype(np.float64)
    f = dg.function(lambda v: dg.reduce_mean(v * v, axis=[0, -1], keepdims=True)
                    + dg.reduce_sum(dg.sin(v), axis=[1, 2], keepdims=True))
    (theoretical,), (numerical,) = dg.test.compute_gradient(f, [x])
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-6)


# -- MatMul with transposes -----------------------------------------------------------
MA = np.arange(6, dtype=np.float64).reshape(2, 3) - 2.5
MB = np.arange(12, dtype=np.float64).reshape(4, 3) * 0.25


def _matmuls(a, b):
    with dg.GradientTape() as tape:
        tape.watch([a, b])
        y = dg.matmul(a, b, transpose_b=True)
        z = dg.matmul(y, a, transpose_a=True)
        w = dg.matmul(z, y, transpose_a=True, transpose_b=True)
        loss = dg.reduce_sum(w * w)
    return (y, z, w) + tuple(tape.gradient(loss, [a, b]))


def test_transposed_matmuls_match_tf_in_every_mode():
    want = [[[-0.625, -4.0, -7.375, -10.75], [1.625, 5.0, 8.375, 11.75]],
            [[2.375, 3.375, 4.375], [12.5, 13.5, 14.5], [22.625, 23.625, 24.625],
             [32.75, 33.75, 34.75]],
            [[-570.40625, 640.65625], [-593.15625, 667.40625], [-615.90625, 694.15625]],
            [[-1366241.71484375, -1521359.22265625, -1676476.73046875],
             [1496780.55859375, 1665116.16015625, 1833451.76171875]],
            [[75897.484375, 77878.546875, 79859.609375], [299787.8125, 307616.0625, 315444.3125],
             [523678.140625, 537353.578125, 551029.015625],
             [747568.46875, 767091.09375, 786613.71875]]]
    _check(_three_ways(_matmuls, MA, MB), want, rtol=1e-15)


def test_transposed_matmul_gradient_checks_numerically_in_a_function():
    f = dg.function(lambda a, b: dg.matmul(dg.matmul(a, b, transpose_b=True), a, transpose_a=True))
    for theoretical, numerical in zip(*dg.test.compute_gradient(f, [MA, MB]), strict=True):
        np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-6)


def test_a_bad_matmul_in_a_plan_is_invalid_argument():
    run = dg.function(lambda a, b: dg.matmul(a, b),
                      input_signature=[dg.TensorSpec(None, dg.float64)] * 2)
    with pytest.raises(dg.errors.InvalidArgumentError):
        run(dg.constant(MA), dg.constant(MA))


# -- GatherV2 of one row in a loop body --------------------------------------------------
P = np.arange(15, dtype=np.float64).reshape(5, 3) * 0.5 - 1


def test_gather_of_one_row_per_iteration_matches_tf():
    @dg.function
    def run(p):
        with dg.GradientTape() as tape:
            tape.watch(p)

            def body(i, acc):
                return i + 1, acc + dg.gather(p, i) * dg.cast(i + 1, dg.float64)
            _, acc = dg.while_loop(lambda i, acc: i < 5, body,
                                   (dg.constant(0), dg.zeros([3], dg.float64)))
            loss = dg.reduce_sum(acc * acc)
        return acc, tape.gradient(loss, p)
    acc, dp = run(dg.constant(P))
    np.testing.assert_array_equal(acc, [45.0, 52.5, 60.0])
    np.testing.assert_array_equal(dp, [[90.0, 105.0, 120.0], [180.0, 210.0, 240.0],
                                       [270.0, 315.0, 360.0], [360.0, 420.0, 480.0],
                                       [450.0, 525.0, 600.0]])


def test_gathered_row_is_a_copy_and_one_dimensional_params_give_scalars():
    run = dg.function(lambda p, i: dg.gather(p, i))
    row = np.asarray(run(dg.constant(P), dg.constant(2)))
    row[...] = 99.0   # the caller's copy: writing it changes nothing in P's tensor
    np.testing.assert_array_equal(np.asarray(run(dg.constant(P), dg.constant(2))), P[2])
    assert float(run(dg.constant(P[:, 1]), dg.constant(4))) == P[4, 1]


@pytest.mark.parametrize("index", [7, -1])
def test_gather_out_of_range_in_a_plan_is_invalid_argument(index):
    run = dg.function(lambda p, i: dg.gather(p, i))
    with pytest.raises(dg.errors.InvalidArgumentError, match="GatherV2"):
        run(dg.constant(P), dg.constant(index))


def test_gather_of_one_row_gradient_checks_numerically_in_a_function():
    f = dg.function(lambda p: dg.gather(p, dg.constant(3)) * dg.gather(p, dg.constant(1)))
    (theoretical,), (numerical,) = dg.test.compute_gradient(f, [P])
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-6)


# -- TensorArray writes (map_fn) with a tape inside ------------------------------------------
def test_map_fn_with_inner_tape_matches_tf():
    xs = np.arange(12, dtype=np.float64).reshape(4, 3) * 0.3 - 1.0
    w = np.array([0.5, -0.25, 1.5])

    def meta(w, xs):
        with dg.GradientTape() as tape:
            tape.watch(w)

            def per(x):
                with dg.GradientTape() as inner:
                    inner.watch(w)
                    loss = dg.reduce_sum(dg.sin(x * w))
                return dg.reduce_mean((w - 0.1 * inner.gradient(loss, w)) * x)
            y = dg.map_fn(per, xs, fn_output_signature=dg.float64)
            loss = dg.reduce_sum(y * y)
        return y, tape.gradient(loss, w)
    y, dw = dg.function(meta)(dg.constant(w), dg.constant(xs))
    np.testing.assert_allclose(y, [-0.35807174214464466, 0.20890467565872653, 0.71618282799079,
                                   1.254090893867826], rtol=1e-14)
    np.testing.assert_allclose(dw, [2.3347237875766975, 2.0557763920984855, 2.5611406019767275],
                               rtol=1e-14)


def test_map_fn_gradient_checks_numerically():
    xs = np.arange(12, dtype=np.float64).reshape(4, 3) * 0.3 - 1.0
    f = dg.function(lambda v: dg.map_fn(lambda x: dg.reduce_sum(dg.tanh(x * v)), dg.constant(xs)))
    (theoretical,), (numerical,) = dg.test.compute_gradient(f, [np.array([0.5, -0.25, 1.5])])
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-6)


# -- interpreted plans (over CODEGEN_LIMIT ops) name the failing op --------------------------
def test_an_interpreted_plan_names_the_failing_op_among_shared_kernels(monkeypatch):
    monkeypatch.setattr(session_module, "CODEGEN_LIMIT", 2)
    graph = dg.Graph()
    with graph.as_default():
        a = dg.compat.v1.placeholder(dg.float64, None)
        b = dg.compat.v1.placeholder(dg.float64, None)
        good = dg.matmul(a, a, name="first_matmul")        # both MatMul steps run np.matmul
        bad = dg.matmul(good, b, name="second_matmul")
        with dg.compat.v1.Session(graph=graph) as session:
            with pytest.raises(dg.errors.InvalidArgumentError) as info:
                session.run(bad, {a: np.ones((2, 2)), b: np.ones((3, 3))})
    assert info.value.op is not None and info.value.op.name == "second_matmul"


# -- ConcatV2 and one-value Pack (x[t] in a loop body) ------------------------------------------
def test_concat_and_pack_of_one_in_a_plan_give_the_eager_values():
    a = np.arange(6.0).reshape(2, 3)
    b = -np.arange(4.0).reshape(2, 2)

    def f(a, b, t):
        return (dg.concat([a, b], axis=-1), dg.concat([a, a], 0), dg.stack([t]),
                dg.stack([a[0]]), a[t])
    eager = [np.asarray(v) for v in f(dg.constant(a), dg.constant(b), dg.constant(1))]
    traced = [np.asarray(v) for v in dg.function(f)(dg.constant(a), dg.constant(b), dg.constant(1))]
    for got, want in zip(traced, eager, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(traced[0], np.concatenate([a, b], axis=1))
    np.testing.assert_array_equal(traced[2], np.array([1], np.int32))


def test_a_concat_of_mismatched_shapes_in_a_plan_is_invalid_argument():
    run = dg.function(lambda a, b: dg.concat([a, b], 0),
                      input_signature=[dg.TensorSpec(None, dg.float64)] * 2)
    with pytest.raises(dg.errors.InvalidArgumentError):
        run(dg.constant(np.ones((2, 3))), dg.constant(np.ones((2, 4))))


# -- TensorArray scatter of every row in order (map_fn's unstack) ------------------------------
def test_tensor_array_unstack_and_permuted_scatter_in_a_function():
    values = np.arange(24, dtype=np.float32).reshape(4, 3, 2)

    @dg.function
    def run(v):
        ta = dg.TensorArray(dg.float32, size=4).unstack(v)
        permuted = dg.TensorArray(dg.float32, size=4).scatter([2, 0, 3, 1], v)
        return ta.stack(), ta.read(2), permuted.stack()
    stacked, row, permuted = (np.asarray(t) for t in run(dg.constant(values)))
    np.testing.assert_array_equal(stacked, values)
    np.testing.assert_array_equal(row, values[2])
    np.testing.assert_array_equal(permuted, values[[1, 3, 0, 2]])
    stacked[...] = -1   # the caller's copy: the input tensor is unchanged
    np.testing.assert_array_equal(np.asarray(run(dg.constant(values))[0]), values)


# -- Split with its piece indices memoised per shape ----------------------------------------------
def test_split_in_a_plan_over_several_shapes_and_a_bad_one():
    run = dg.function(lambda v: dg.split(v, 4, axis=-1),
                      input_signature=[dg.TensorSpec([None, None], dg.float32)])
    for rows, cols in ((2, 8), (3, 12), (2, 8), (1, 4), (5, 16), (2, 20), (2, 8)):
        x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
        pieces = [np.asarray(p) for p in run(dg.constant(x))]
        for got, want in zip(pieces, np.split(x, 4, axis=1), strict=True):
            np.testing.assert_array_equal(got, want)
    with pytest.raises(dg.errors.InvalidArgumentError, match="Split"):
        run(dg.constant(np.ones((2, 6), np.float32)))


# -- AddN of two values as np.add (may write into a dead temporary) ---------------------------
def test_add_n_of_two_in_a_plan_keeps_every_live_value():
    a = np.arange(6.0).reshape(2, 3)

    def f(a):
        p, q = a * 2.0, a * 3.0
        total = dg.add_n([p, q])          # p is read again below: never overwritten
        other = dg.add_n([a * 5.0, a * 7.0])   # both dead afterwards: may be reused
        return total + p, other, dg.add_n([total, total]), dg.add_n([a])
    eager = [np.asarray(v) for v in f(dg.constant(a))]
    traced = [np.asarray(v) for v in dg.function(f)(dg.constant(a))]
    for got, want in zip(traced, eager, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(traced[0], 7 * a)
    np.testing.assert_array_equal(traced[1], 12 * a)
    np.testing.assert_array_equal(traced[2], 10 * a)
    np.testing.assert_array_equal(traced[3], a)
