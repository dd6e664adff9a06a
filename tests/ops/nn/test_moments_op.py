"""tf.nn.moments: one op eagerly (ops/nn/moments_ops.py), TF's composite in graphs. Values
and gradients recorded with TF 2.21 (float32); second derivatives against the exact
Hessian of the variance (TF's stopped mean drops its 1/n term: a documented difference)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = np.array([[[1.0683854818344116, 3.7194950580596924, 3.449442148208618, -0.020614152774214745],
                [0.4040609896183014, -0.054768387228250504, 2.1394526958465576, 0.8878711462020874],
                [2.4937713146209717, -2.6946496963500977, 4.1330976486206055, 0.8071357011795044]],
               [[2.3607568740844727, 0.7268673181533813, 0.2418028712272644, 1.9262202978134155],
                [2.649027109146118, 0.5949402451515198, 0.6944276690483093, 2.3713972568511963],
                [-0.7406812906265259, -2.0287671089172363, 1.789963722229004, -0.34113165736198425]]], np.float32)
# (axes, keepdims): mean, variance, gradients of sum(mean * WM) + sum(variance * WV),
# of the variance term alone, of the mean term alone (flattened)
TF = {
    ((-1,), True): (
        [2.0541770458221436, 0.8441541194915771, 1.1848387718200684, 1.31391179561615,
          1.5774481296539307, -0.33015406131744385],
        [2.49914813041687, 0.6703633069992065, 6.399656295776367, 0.7412112951278687,
          0.8809208869934082, 1.8872095346450806],
        [-1.235791563987732, 1.4153180122375488, 1.1452651023864746, -2.324791193008423,
          -0.5100815296173096, -0.9115571975708008, 1.008386254310608, -0.08674760162830353,
          0.9816994071006775, -2.909616470336914, 2.2111940383911133, -0.283277302980423,
          0.7792781591415405, -0.24190279841423035, -0.5450681447982788, 0.507692813873291,
          0.7857894897460938, -0.24125394225120544, -0.19151023030281067, 0.6469745635986328,
          0.22105228900909424, -0.261979877948761, 1.170044183731079, 0.37088340520858765],
        [-0.9857915639877319, 1.6653180122375488, 1.3952651023864746, -2.074791193008423,
          -0.3850814998149872, -0.7865571975708008, 1.133386254310608, 0.03825239837169647,
          0.9816994071006775, -2.909616470336914, 2.2111940383911133, -0.283277302980423,
          0.6542781591415405, -0.36690279841423035, -0.6700681447982788, 0.382692813873291,
          0.5357894897460938, -0.49125394225120544, -0.44151023030281067, 0.3969745635986328,
          -0.15394771099090576, -0.636979877948761, 0.7950441241264343, -0.004116598516702652],
        [-0.25, -0.25, -0.25, -0.25, -0.125, -0.125, -0.125, -0.125, 0.0, 0.0, 0.0, 0.0, 0.125,
          0.125, 0.125, 0.125, 0.25, 0.25, 0.25, 0.25, 0.375, 0.375, 0.375, 0.375],
    ),
    ((0, 2), False): (
        [1.6840444803237915, 1.210801124572754, 0.4273422956466675],
        [1.7571778297424316, 0.9100721478462219, 4.717233657836914],
        [-0.43282949924468994, 0.8927252292633057, 0.7576988339424133, -0.9773293137550354,
          -0.4154488146305084, -0.6161866784095764, 0.34378504753112793, -0.2037818729877472,
          0.7749109268188477, -1.1707470417022705, 1.3896582126617432, 0.14242252707481384,
          0.21335619688034058, -0.6035885810852051, -0.8461208343505859, -0.003912091255187988,
          0.5667238831520081, -0.33193913102149963, -0.288413405418396, 0.44526082277297974,
          -0.4380088448524475, -0.9210410714149475, 0.5109830498695374, -0.2881777286529541],
        [-0.30782949924468994, 1.0177252292633057, 0.8826988339424133, -0.8523293137550354,
          -0.3529488146305084, -0.5536866784095764, 0.40628504753112793, -0.1412818729877472,
          0.7749109268188477, -1.1707470417022705, 1.3896582126617432, 0.14242252707481384,
          0.3383561968803406, -0.4785885810852051, -0.7211208343505859, 0.12108790874481201,
          0.6292238831520081, -0.26943913102149963, -0.2259133905172348, 0.5077608227729797,
          -0.4380088448524475, -0.9210410714149475, 0.5109830498695374, -0.2881777286529541],
        [-0.125, -0.125, -0.125, -0.125, -0.0625, -0.0625, -0.0625, -0.0625, 0.0, 0.0, 0.0, 0.0,
          -0.125, -0.125, -0.125, -0.125, -0.0625, -0.0625, -0.0625, -0.0625, 0.0, 0.0, 0.0,
          0.0],
    ),
    ((0, 1, 2), False): (
        [1.107395887374878],
        [2.730057716369629],
        [-0.048168402165174484, 0.39368322491645813, 0.34867438673973083, -0.22966834902763367,
          -0.15888915956020355, -0.23536072671413422, 0.13034279644489288, -0.07825412601232529,
          0.18939590454101562, -0.6753409504890442, 0.46261700987815857, -0.09171003103256226,
          0.16722683608531952, -0.10508809983730316, -0.18593217432498932, 0.0948040634393692,
          0.21527187526226044, -0.1270759403705597, -0.1104947030544281, 0.16900022327899933,
          -0.34967952966690063, -0.5643605589866638, 0.0720946341753006, -0.28308793902397156],
        [-0.006501734256744385, 0.43534988164901733, 0.39034104347229004, -0.18800167739391327,
          -0.11722248792648315, -0.19369405508041382, 0.17200946807861328, -0.03658745810389519,
          0.23106257617473602, -0.6336742639541626, 0.5042836666107178, -0.050043366849422455,
          0.20889350771903992, -0.06342142820358276, -0.14426550269126892, 0.1364707350730896,
          0.25693854689598083, -0.08540927618741989, -0.0688280388712883, 0.21066689491271973,
          -0.30801287293434143, -0.5226938724517822, 0.113761305809021, -0.24142126739025116],
        [-0.0416666679084301, -0.0416666679084301, -0.0416666679084301, -0.0416666679084301,
          -0.0416666679084301, -0.0416666679084301, -0.0416666679084301, -0.0416666679084301,
          -0.0416666679084301, -0.0416666679084301, -0.0416666679084301, -0.0416666679084301,
          -0.0416666679084301, -0.0416666679084301, -0.0416666679084301, -0.0416666679084301,
          -0.0416666679084301, -0.0416666679084301, -0.0416666679084301, -0.0416666679084301,
          -0.0416666679084301, -0.0416666679084301, -0.0416666679084301, -0.0416666679084301],
    ),
}


def _weights(t, scale, offset):
    return dg.reshape(dg.range(dg.size(t), dtype=t.dtype) * scale + offset, dg.shape(t))


def _moments_and_gradients(x, axes, keepdims):
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        mean, variance = dg.nn.moments(x, axes=list(axes), keepdims=keepdims)
        mean_term = dg.reduce_sum(mean * _weights(mean, 0.5, -1.0))
        variance_term = dg.reduce_sum(variance * _weights(variance, -0.25, 2.0))
        both = mean_term + variance_term
    return (mean, variance, tape.gradient(both, x), tape.gradient(variance_term, x),
            tape.gradient(mean_term, x))


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("axes, keepdims", list(TF))
def test_moments_and_gradients_match_tf(axes, keepdims, mode):
    run = _moments_and_gradients if mode == "eager" else dg.function(
        _moments_and_gradients, autograph=False)
    got = run(dg.constant(X), axes, keepdims)
    shape = [1 if i in [a % 3 for a in axes] else d for i, d in enumerate(X.shape)]
    if not keepdims:
        shape = [d for i, d in enumerate(X.shape) if i not in [a % 3 for a in axes]]
    assert got[0].shape == shape and got[1].shape == shape
    for value, want in zip(got, TF[(axes, keepdims)]):
        assert value.dtype == dg.float32
        # bit-equal but for the summation order of the means (NumPy's pairwise, Eigen's)
        np.testing.assert_allclose(value.numpy().ravel(), want, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axes, keepdims", [((-1,), True), ((0, 2), False), ((1,), False)])
def test_eager_moments_are_bit_equal_to_the_graph_composite(dtype, axes, keepdims):
    x = dg.constant(np.random.default_rng(5).standard_normal((6, 7, 9)).astype(dtype) * 3 + 2)
    eager = dg.nn.moments(x, axes=list(axes), keepdims=keepdims)
    graph = dg.function(lambda t: dg.nn.moments(t, axes=list(axes), keepdims=keepdims),
                        autograph=False)(x)
    for e, g in zip(eager, graph):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e.numpy(), g.numpy())


def test_graph_keeps_tf_composite():
    graph = dg.Graph()
    with graph.as_default():
        dg.nn.moments(dg.compat.v1.placeholder(dg.float32, [4, 5]), axes=[1])
    types = {op.type for op in graph.get_operations()}
    assert "Moments" not in types and "Mean" in types


def test_gradients_check_numerically_and_second_derivative_is_exact():
    x = np.random.default_rng(2).standard_normal((3, 5))
    for axes in ([1], [0, 1]):
        f = lambda v: dg.add_n(dg.nn.moments(v, axes=axes))  # noqa: E731
        (theoretical,), (numerical,) = dg.test.compute_gradient(f, [x])
        np.testing.assert_allclose(theoretical, numerical, rtol=1e-7, atol=1e-9)
    # the variance's Hessian over a vector of n: 2/n (I - 1/n), with nested tapes
    v = dg.constant(np.array([0.5, -1.0, 2.0, 3.5]))
    with dg.GradientTape() as outer:
        outer.watch(v)
        with dg.GradientTape() as inner:
            inner.watch(v)
            variance = dg.nn.moments(v, axes=[0])[1]
        gradient = inner.gradient(variance, v)
    hessian = outer.jacobian(gradient, v).numpy()
    n = 4
    np.testing.assert_allclose(hessian, 2 / n * (np.eye(n) - 1 / n), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gradient.numpy(), 2 / n * (v.numpy() - v.numpy().mean()),
                               rtol=1e-12)


def test_forward_mode_through_moments():
    x = dg.constant(np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]]))
    tangent = dg.constant(np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]]))
    with dg.autodiff.ForwardAccumulator(x, tangent) as acc:
        mean, variance = dg.nn.moments(x, axes=[1])
    xs, ts = x.numpy(), tangent.numpy()
    np.testing.assert_allclose(acc.jvp(mean).numpy(), ts.mean(axis=1), rtol=1e-12)
    centred = xs - xs.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(acc.jvp(variance).numpy(),
                               2 * (centred * (ts - ts.mean(axis=1, keepdims=True))).mean(axis=1),
                               rtol=1e-12)


@pytest.mark.parametrize("x, axes", [(np.float16([[1, 2], [3, 5]]), [1]),
                                     (np.float32(3.0), []),
                                     (np.float32([[1, 2], [3, 5]]), dg.constant([1]))])
def test_other_inputs_take_the_composite_with_the_same_values(x, axes):
    mean, variance = dg.nn.moments(dg.constant(x), axes=axes)
    wide = np.asarray(x, np.float64)
    reduced = tuple(np.asarray(axes.numpy() if isinstance(axes, dg.Tensor) else axes, int))
    assert mean.dtype.as_numpy_dtype == np.asarray(x).dtype
    np.testing.assert_allclose(mean.numpy(), wide.mean(axis=reduced), rtol=1e-3)
    np.testing.assert_allclose(variance.numpy(), wide.var(axis=reduced), rtol=1e-3)


@pytest.mark.parametrize("axes", [[2], [0, 0], [-3]])
def test_bad_axes_raise_tf_errors_eagerly(axes):
    with pytest.raises(dg.errors.InvalidArgumentError, match="Invalid reduction"):
        dg.nn.moments(dg.constant(np.ones((2, 3), np.float32)), axes=axes)
