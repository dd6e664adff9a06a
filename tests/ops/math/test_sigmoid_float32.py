"""float32 sigmoid (e / (1 + e), e = exp(x), in float64, rounded once) against TF 2.21's
values, recorded with TF, eagerly and in a dg.function; its gradient numerically."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = np.array([-120, -90, -87, -30, -17, -9.5, -3.3, -1, -0.25, 0, 0.7, 2.5, 8, 16.7, 20,
              np.inf, -np.inf, np.nan], np.float32)
TF_Y = [0.0, 0.0, 1.6458111734947008e-38, 9.357624267472553e-14, 4.139937104241653e-08,
        7.484622619813308e-05, 0.03557119518518448, 0.26894140243530273, 0.43782344460487366,
        0.5, 0.6681877374649048, 0.9241418242454529, 0.9996646642684937, 1.0, 1.0, 1.0, 0.0,
        np.nan]
GRID = np.array([
    [1.4161587953567505, -0.01986147277057171, -2.126392126083374, -9.106266021728516,
     0.07486151158809662, 3.70947527885437, 4.173338890075684, -2.144792318344116],
    [8.917455673217773, 7.774767875671387, -0.9129046201705933, -0.6207245588302612,
     3.835860013961792, -1.019061803817749, 0.8990641832351685, 4.879440784454346],
    [4.75888204574585, -2.119202136993408, -1.8224841356277466, -2.1961939334869385,
     -0.05663285404443741, 0.29965952038764954, -1.5547486543655396, 3.098775863647461],
    [0.19844666123390198, 0.05345921218395233, -7.875024318695068, -5.5393548011779785,
     -2.7809016704559326, 1.4418236017227173, -3.4646570682525635, 6.237034320831299]],
    np.float32)
TF_GRID = [
    [0.804735541343689, 0.4950348138809204, 0.10655798763036728, 0.00011095601803390309,
     0.5187066197395325, 0.9760950803756714, 0.9848328232765198, 0.10481887310743332],
    [0.9998660087585449, 0.9995799660682678, 0.2864058315753937, 0.3496167063713074,
     0.9788731932640076, 0.26521018147468567, 0.7107571363449097, 0.9924560785293579],
    [0.9914976954460144, 0.10724444687366486, 0.13913604617118835, 0.100092813372612,
     0.48584556579589844, 0.5743591785430908, 0.17440147697925568, 0.9568422436714172],
    [0.5494495034217834, 0.5133616328239441, 0.0003799752739723772, 0.003913684282451868,
     0.05836498364806175, 0.8087368607521057, 0.03033474087715149, 0.9980481266975403]]
TF_GRAD = [
    [0.0, 0.24997535347938538, 0.19040676951408386, 0.00033283111406490207, 0.9986002445220947,
     0.11666737496852875, 0.08962280303239822, 0.6568230986595154],
    [0.0010717862751334906, 0.0037787174805998802, 2.0437755584716797, 2.5012335777282715,
     0.2481655776500702, 2.5333588123321533, 2.8781399726867676, 0.1123051568865776],
    [0.13488024473190308, 1.6276322603225708, 2.155989646911621, 1.7114105224609375,
     4.995993137359619, 5.133884906768799, 3.1676831245422363, 0.9497887492179871],
    [5.941313743591309, 6.245536804199219, 0.009875603020191193, 0.10525591671466827,
     1.538838267326355, 4.485764980316162, 0.8824363946914673, 0.06038996949791908]]


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.view(np.int32).astype(np.int64) - np.asarray(b, np.float32).view(np.int32))


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_float32_sigmoid_is_within_a_few_ulp_of_tf(mode):
    run = dg.sigmoid if mode == "eager" else dg.function(dg.sigmoid)
    y = np.asarray(run(dg.constant(X)))
    assert y.dtype == np.float32 and y.shape == X.shape
    assert np.isnan(y[-1])
    assert y[-3] == 1.0 and y[-2] == 0.0 and y[X == 0][0] == 0.5
    normal = np.abs(X) < 88
    assert _ulps(y[normal], np.array(TF_Y, np.float32)[normal]).max() <= 6
    assert y[0] == 0.0   # below float32's smallest denormal
    assert 0 <= y[1] < 1e-38   # TF flushes to 0 below -87.3; the true value is 8e-40
    grid = np.asarray(run(dg.constant(GRID)))
    assert _ulps(grid, TF_GRID).max() <= 6


def test_float32_sigmoid_gradient_matches_tf_and_checks_numerically():
    weights = dg.reshape(dg.range(32, dtype=dg.float32), [4, 8])

    @dg.function
    def grad(v):
        with dg.GradientTape() as tape:
            tape.watch(v)
            y = dg.reduce_sum(dg.sigmoid(v) * weights)
        return tape.gradient(y, v)
    # y * (1 - y) near saturation: one ulp of y near 1 moves the product by 3e-5 relative
    # (the stable float32 form is as far from TF there)
    np.testing.assert_allclose(grad(dg.constant(GRID)), TF_GRAD, rtol=5e-5, atol=1e-7)
    (theoretical,), (numerical,) = dg.test.compute_gradient(
        lambda v: dg.sigmoid(v) * weights, [GRID / 4])
    np.testing.assert_allclose(theoretical, numerical, rtol=2e-2, atol=2e-3)


def test_float32_sigmoid_of_a_strided_view_and_a_scalar():
    gates = dg.constant(np.arange(-8, 8, dtype=np.float32).reshape(4, 4) * 0.75)
    pieces = dg.split(gates, 2, axis=1)          # non-contiguous views
    y = np.asarray(dg.sigmoid(pieces[1]))
    np.testing.assert_allclose(y, 1 / (1 + np.exp(-np.asarray(pieces[1], np.float64))), rtol=1e-7)
    assert np.asarray(dg.sigmoid(dg.constant(np.float32(-1.0)))).dtype == np.float32


def test_float32_sigmoid_is_the_float64_value_rounded_once():
    """Bit-equal to 1 / (1 + exp(-x)) in float64 rounded to float32 over the whole
    float32 range (the reference widened with no cap: exp(-x) overflows to inf for
    x < -709, which gives the right 0), with the non-finite inputs."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(200_000) * 12,
                        rng.uniform(-3e38, 3e38, 2_000),
                        [-1e38, 1e38, -800, 800, -104, 88.7, 0, -0.0, 1e-40, -1e-40]]
                       ).astype(np.float32)
    with np.errstate(over="ignore"):
        reference = (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)
    y = np.asarray(dg.sigmoid(dg.constant(x)))
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.view(np.int32), reference.view(np.int32))
