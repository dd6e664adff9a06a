"""tf.nn.gelu: one op eagerly (ops/nn/gelu_ops.py), TF's composite in graphs. Values,
gradients and second derivatives recorded with TF 2.21 (nested GradientTapes)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import duograd as dg

X = [-6.0, -3.1, -1.0, -0.3, 0.0, 0.25, 0.9, 2.2, 5.5, 12.0]
DY = [0.5, -1.0, 2.0, 0.25, 1.0, -0.75, 1.5, 0.1, -2.0, 1.0]
# dtype_approximate: (gelu(x), gradient with output gradient DY, d/dx of that gradient)
TF = {
    "float32_True": (
        [-0.0, -0.002626660279929638, -0.15880799293518066, -0.11462908238172531, 0.0, 0.14967535436153412, 0.7342284917831421, 2.1696786880493164, 5.5, 12.0],
        [0.0, 0.008739592507481575, -0.1659281849861145, 0.06692613661289215, 0.5, -0.5215156078338623, 1.582600712776184, 0.10649187117815018, -2.0, 1.0],
        [0.0, 0.025292662903666496, 0.4842963218688965, 0.1820371150970459, 0.7978845834732056, -0.5617114901542664, 0.47465720772743225, -0.010170737281441689, 0.0, 0.0]),
    "float32_False": (
        [-5.9195350843310734e-09, -0.002999571617692709, -0.15865525603294373, -0.11462657898664474, 0.0, 0.14967657625675201, 0.7343458533287048, 2.16941237449646, 5.5, 12.0],
        [-1.7734389956558516e-08, 0.009159542620182037, -0.16663098335266113, 0.06691805273294449, 0.5, -0.521530032157898, 1.5831247568130493, 0.1064140647649765, -2.0000011920928955, 1.0],
        [-1.0329019772825632e-07, 0.024860510602593422, 0.4839414954185486, 0.1821126937866211, 0.7978845834732056, -0.5618771314620972, 0.4749622344970703, -0.010074786841869354, 6.084920187277021e-06, -3.0478877685747692e-30]),
    "float64_True": (
        [-8.439615672983791e-11, -0.0026266112569035397, -0.15880800972132364, -0.11462907965324604, 0.0, 0.14967535069936944, 0.734228463311712, 2.169678577031686, 5.499999994072358, 12.0],
        [-3.8549726804945213e-10, 0.008739398917861371, -0.16592816586887607, 0.06692613493552699, 0.5, -0.5215155713360601, 1.5826007946087919, 0.10649189608465104, -2.000000093531092, 1.0],
        [-3.4121108909928936e-09, 0.025292111155785682, 0.48429639433408983, 0.18203711062623892, 0.7978845608028654, -0.5617114603539708, 0.4746572094684852, -0.010170770591289924, 7.095965691691464e-07, 0.0]),
    "float64_False": (
        [-5.919529613662353e-09, -0.0029995713717862692, -0.15865525807260966, -0.11462657712166158, 0.0, 0.1496765810071345, 0.7343458583362014, 2.169412463274014, 5.499999895557351, 12.0],
        [-1.7734365333353283e-08, 0.009159539550837922, -0.1666309328930673, 0.06691805705728797, 0.5, -0.5215300137586978, 1.5831248807034304, 0.10641406715944075, -2.0000011466950527, 1.0],
        [-1.0329006657423861e-07, 0.024860501024530572, 0.4839414656028968, 0.18211267800664244, 0.7978845471476527, -0.561877098834425, 0.4749622079109971, -0.010074784280264195, 6.084917247076588e-06, -3.0478722580210334e-30]),
}
CASES = [(np.float32, True), (np.float32, False), (np.float64, True), (np.float64, False)]
# float32: cancellation in 1 + tanh near -1; float64: TF's float64 gelu is off by up to
# ~2e-8 (float32-rounded constants: conformance's known deviation), duograd's is exact
TOLERANCE = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-8, atol=3e-8)}


def _derivatives(run, x, dy, approximate):
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            y = dg.nn.gelu(x, approximate=approximate)
        g = inner.gradient(y, x, output_gradients=dy)
    return y, g, outer.gradient(g, x)


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("dtype, approximate", CASES)
def test_gelu_values_and_two_derivatives_match_tf(dtype, approximate, mode):
    # (recorded from the float32 values widened, as here)
    x = dg.constant(np.array(X, np.float32).astype(dtype))
    dy = dg.constant(np.array(DY, np.float32).astype(dtype))
    run = _derivatives if mode == "eager" else dg.function(_derivatives)
    y, g, h = (np.asarray(t) for t in run(None, x, dy, approximate))
    want_y, want_g, want_h = TF[f"{np.dtype(dtype).name}_{approximate}"]
    assert y.dtype == dtype and g.dtype == dtype and h.dtype == dtype
    np.testing.assert_allclose(y, want_y, **TOLERANCE[dtype])
    np.testing.assert_allclose(g, want_g, **TOLERANCE[dtype])
    np.testing.assert_allclose(h, want_h, **TOLERANCE[dtype])


@pytest.mark.parametrize("approximate", [True, False])
def test_eager_gelu_is_bit_equal_to_the_graph_composite(approximate):
    x = dg.constant(np.random.default_rng(3).standard_normal((64, 33)).astype(np.float32) * 4)
    eager = dg.nn.gelu(x, approximate=approximate)
    traced = dg.function(lambda v: dg.nn.gelu(v, approximate=approximate))(x)
    np.testing.assert_array_equal(eager.numpy(), traced.numpy())


@pytest.mark.parametrize("approximate", [True, False])
def test_gelu_gradients_check_numerically(approximate):
    _check_two_derivatives(lambda v: dg.nn.gelu(v, approximate=approximate),
                           np.linspace(-3.0, 3.0, 13), rtol=1e-5, atol=1e-6)


def _check_two_derivatives(f, x, rtol, atol):
    """f's gradient and the gradient of that against central differences."""
    (theoretical,), (numerical,) = dg.test.compute_gradient(f, [x])
    np.testing.assert_allclose(theoretical, numerical, rtol=rtol, atol=atol)

    def first(v):
        with dg.GradientTape() as tape:
            tape.watch(v)
            y = f(v)
        return tape.gradient(y, v)
    (theoretical,), (numerical,) = dg.test.compute_gradient(first, [x])
    np.testing.assert_allclose(theoretical, numerical, rtol=rtol, atol=atol)


def test_forward_mode_through_eager_gelu():
    x = dg.constant(np.array([-1.5, 0.2, 2.0]))
    with dg.autodiff.ForwardAccumulator(x, dg.ones_like(x)) as acc:
        y = dg.nn.gelu(x, approximate=True)
    with dg.GradientTape() as tape:
        tape.watch(x)
        z = dg.nn.gelu(x, approximate=True)
    np.testing.assert_allclose(acc.jvp(y).numpy(), tape.gradient(z, x).numpy(), rtol=1e-14)


def test_gelu_keeps_nan_and_infinities():
    x = dg.constant(np.array([np.nan, np.inf, -np.inf, 100.0, -100.0], np.float32))
    for approximate in (True, False):
        y = dg.nn.gelu(x, approximate=approximate).numpy()
        assert np.isnan(y[0]) and y[1] == np.inf and y[3] == 100.0 and y[4] == 0.0
        traced = dg.function(lambda v: dg.nn.gelu(v, approximate=approximate))(x).numpy()
        np.testing.assert_array_equal(y, traced)


def test_gelu_of_an_integer_tensor_is_a_value_error():
    with pytest.raises(ValueError, match="gelu"):
        dg.nn.gelu(dg.constant([1, 2]))


@pytest.mark.parametrize("approximate", [True, False])
def test_jacobian_and_hessian_through_eager_gelu_are_vectorised_and_exact(approximate, caplog):
    v = np.linspace(-2.0, 2.0, 5)
    x = dg.constant(v)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = dg.nn.gelu(x, approximate=approximate)
        total = dg.reduce_sum(y)
    with caplog.at_level("WARNING"):
        jacobian = tape.jacobian(y, x).numpy()      # pfor over GeluGrad
        hessian = np.diag(tape.hessian(total, x).numpy())
    assert "using a loop" not in caplog.text      # Gelu and GeluGrad batch elementwise
    if approximate:
        c, a = np.sqrt(2 / np.pi), 0.044715
        t = np.tanh(c * (v + a * v ** 3))
        s, slope = 1 - t * t, c * (1 + 3 * a * v * v)
        first = 0.5 * (1 + t) + 0.5 * v * s * slope
        second = s * slope - v * t * s * slope ** 2 + 0.5 * v * s * 6 * a * c * v
    else:
        density = np.exp(-v * v / 2) / np.sqrt(2 * np.pi)
        first = 0.5 * (1 + np.array([math.erf(u / np.sqrt(2)) for u in v])) + v * density
        second = density * (2 - v * v)
    np.testing.assert_allclose(jacobian, np.diag(first), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hessian, second, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("approximate", [True, False])
def test_gelu_grad_broadcasts_and_its_gradients_take_the_inputs_shapes(approximate):
    from duograd.ops.dispatch import apply_op
    from duograd.ops.nn.gelu_ops import GELU_GRAD
    rng = np.random.default_rng(7)
    dy, x = rng.standard_normal((3, 4)), rng.standard_normal(4)
    # the reserve t as an independent input: each partial is checked on its own
    t = np.tanh(0.8 * x) if approximate else np.tanh(0.6 * x) * 0.9

    def f(a, b, c):
        return apply_op(GELU_GRAD, (a, b, c), {"approximate": approximate})
    theoretical, numerical = dg.test.compute_gradient(f, [dy, x, t])
    assert [j.shape for j in theoretical] == [(12, 12), (12, 4), (12, 4)]
    # x's partial is nonlinear: the central difference's truncation error is ~1e-7
    for j, n, atol in zip(theoretical, numerical, (1e-8, 3e-7, 1e-8), strict=True):
        np.testing.assert_allclose(j, n, rtol=1e-6, atol=atol)


@pytest.mark.parametrize("approximate", [True, False])
def test_gelu_reserve_output_has_its_own_gradient(approximate):
    """tf.nn.gelu returns only the first output; the reserve t is differentiable all the
    same (tanh(...) or erf(x / sqrt 2)), and mixing it in gives the total derivative."""
    from duograd.ops.dispatch import apply_op
    from duograd.ops.nn.gelu_ops import GELU

    def f(v):
        y, t = apply_op(GELU, (v,), {"approximate": approximate})
        return y + 0.7 * t * t
    _check_two_derivatives(f, np.linspace(-2.5, 2.5, 7), rtol=1e-6, atol=1e-8)


def test_gelu_grad_reads_the_forward_reserve_not_a_recomputed_tanh(monkeypatch):
    """The backward pass of an eager tf.nn.gelu computes no tanh (nor cube) again."""
    x = dg.constant(np.random.default_rng(5).standard_normal((4, 8)).astype(np.float32))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.nn.gelu(x, approximate=True)
    calls = []
    real_tanh = np.tanh
    monkeypatch.setattr(np, "tanh", lambda *a, **k: calls.append(1) or real_tanh(*a, **k))
    grad = tape.gradient(y, x).numpy()
    assert not calls
    v = x.numpy().astype(np.float64)
    t = np.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3))
    want = 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * 0.7978845608028654 * (1 + 3 * 0.044715 * v * v)
    np.testing.assert_allclose(grad, want, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("approximate", [True, False])
def test_forward_over_reverse_hessian_through_eager_gelu_matches_the_composite(approximate):
    """The forward-mode tangent of GeluGrad (with the reserve t among its inputs) gives
    the Hessian-vector product that reverse over reverse and TF's composite (traced) give."""
    x = dg.constant(np.linspace(-2.0, 2.0, 5))
    v = dg.constant(np.array([1.0, -0.5, 2.0, 0.25, -1.0]))
    with dg.autodiff.ForwardAccumulator(x, v) as acc:
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(dg.nn.gelu(x, approximate=approximate))
        g = tape.gradient(y, x)
    # in a function the composite runs: its second derivative, elementwise
    _, _, hessian_diagonal = dg.function(_derivatives)(None, x, dg.ones_like(x), approximate)
    np.testing.assert_allclose(acc.jvp(g).numpy(), hessian_diagonal.numpy() * v.numpy(),
                               rtol=1e-12, atol=1e-14)
