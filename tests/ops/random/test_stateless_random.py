"""dg.random's stateless samplers: TF 2.21's dtypes, shapes and exception classes (recorded
with tests/tf_reference-style probes of tf.random.stateless_*), the same values for the
same seed in both modes and run after run, and TF's gradients (mean/stddev/minval/maxval
through the ops after the sampler; None through the samplers themselves).

The numbers are duograd's own (NumPy's Philox), not TF's bit stream
(docs/differences.md)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from gradcheck import check_grads

R = dg.random
S = [1, 2]


def _outcome(call, graph: bool):
    """'ok (dtype, shape)' or the exception class name, eagerly or built and run in a
    Session."""
    try:
        if not graph:
            out = call()
            return f"ok {out.dtype.name} {tuple(out.shape.as_list())}"
        g = dg.Graph()
        with g.as_default():
            out = call()
            with dg.Session(graph=g) as sess:
                sess.run(out)
        return f"ok {out.dtype.name} {tuple(out.shape.as_list())}"
    except Exception as error:  # noqa: BLE001 - the class is the result
        cls = type(error)
        return ("errors." if getattr(dg.errors, cls.__name__, None) is cls else "") + \
            cls.__name__


CASES = {
    "normal": lambda: R.stateless_normal([2, 3], S),
    "normal seed [3]": lambda: R.stateless_normal([2], [1, 2, 3]),
    "normal seed scalar": lambda: R.stateless_normal([2], 5),
    "normal seed float": lambda: R.stateless_normal([2], [1.0, 2.0]),
    "normal seed str": lambda: R.stateless_normal([2], "ab"),
    "normal seed None": lambda: R.stateless_normal([2], None),
    "normal seed 2x2": lambda: R.stateless_normal([2], [[1, 2], [3, 4]]),
    "normal seed int64": lambda: R.stateless_normal([2], dg.constant([1, 2], dg.int64)),
    "normal seed uint32": lambda: R.stateless_normal([2], dg.constant([1, 2], dg.uint32)),
    "normal shape negative": lambda: R.stateless_normal([-1, 2], S),
    "normal shape float": lambda: R.stateless_normal([1.5], S),
    "normal shape 2-D": lambda: R.stateless_normal([[1, 2]], S),
    "normal shape str": lambda: R.stateless_normal("ab", S),
    "normal shape None": lambda: R.stateless_normal(None, S),
    "normal dtype int32": lambda: R.stateless_normal([2], S, dtype=dg.int32),
    "normal float64": lambda: R.stateless_normal([2], S, dtype=dg.float64),
    "normal float16": lambda: R.stateless_normal([2], S, dtype=dg.float16),
    "normal mean vector": lambda: R.stateless_normal([2], S, mean=[1.0, 2.0]),
    "normal mean bad shape": lambda: R.stateless_normal([2], S, mean=[1.0, 2.0, 3.0]),
    "normal mean str": lambda: R.stateless_normal([2], S, mean="a"),
    "uniform": lambda: R.stateless_uniform([2, 3], S),
    "uniform int32": lambda: R.stateless_uniform([2, 3], S, minval=0, maxval=10,
                                                 dtype=dg.int32),
    "uniform int64": lambda: R.stateless_uniform([2, 3], S, minval=0, maxval=10,
                                                 dtype=dg.int64),
    "uniform int no maxval": lambda: R.stateless_uniform([2], S, minval=0, dtype=dg.int32),
    "uniform int full range": lambda: R.stateless_uniform([2], S, minval=None, maxval=None,
                                                          dtype=dg.int32),
    "uniform int64 full range": lambda: R.stateless_uniform([2], S, minval=None, maxval=None,
                                                            dtype=dg.int64),
    "uniform uint32 full range": lambda: R.stateless_uniform([2], S, minval=None,
                                                             maxval=None, dtype=dg.uint32),
    "uniform uint32 bounded": lambda: R.stateless_uniform([2], S, minval=0, maxval=4,
                                                          dtype=dg.uint32),
    "uniform int minval == maxval": lambda: R.stateless_uniform([2], S, minval=3, maxval=3,
                                                                dtype=dg.int32),
    "uniform int minval > maxval": lambda: R.stateless_uniform([2], S, minval=5, maxval=3,
                                                               dtype=dg.int32),
    "uniform int vector bounds": lambda: R.stateless_uniform([2], S, minval=[0, 1],
                                                             maxval=[5, 6], dtype=dg.int32),
    "uniform int8": lambda: R.stateless_uniform([2], S, minval=0, maxval=4, dtype=dg.int8),
    "uniform bool": lambda: R.stateless_uniform([2], S, dtype=dg.bool),
    "uniform float bounds": lambda: R.stateless_uniform([2], S, minval=2.0, maxval=5.0),
    "uniform float maxval None": lambda: R.stateless_uniform([2], S, minval=2.0, maxval=None),
    "uniform float vector bounds": lambda: R.stateless_uniform([2], S, minval=[0.0, 1.0],
                                                               maxval=[5.0, 6.0]),
    "uniform seed [3]": lambda: R.stateless_uniform([2], [1, 2, 3]),
    "uniform int float bound": lambda: R.stateless_uniform([2], S, minval=0.5, maxval=4,
                                                           dtype=dg.int32),
    "truncated normal": lambda: R.stateless_truncated_normal([2, 3], S),
    "truncated normal int32": lambda: R.stateless_truncated_normal([2], S, dtype=dg.int32),
    "truncated normal seed [3]": lambda: R.stateless_truncated_normal([2], [1, 2, 3]),
    "categorical": lambda: R.stateless_categorical([[0.0, 1.0, 2.0]], 5, S),
    "categorical int32": lambda: R.stateless_categorical([[0.0, 1.0, 2.0]], 5, S,
                                                         dtype=dg.int32),
    "categorical float dtype": lambda: R.stateless_categorical([[0.0, 1.0, 2.0]], 5, S,
                                                               dtype=dg.float32),
    "categorical 1-D logits": lambda: R.stateless_categorical([0.0, 1.0, 2.0], 5, S),
    "categorical num_samples -1": lambda: R.stateless_categorical([[0.0, 1.0]], -1, S),
    "categorical num_samples 0": lambda: R.stateless_categorical([[0.0, 1.0]], 0, S),
    "categorical num_samples [2]": lambda: R.stateless_categorical([[0.0, 1.0]], [2], S),
    "categorical seed [3]": lambda: R.stateless_categorical([[0.0, 1.0]], 5, [1, 2, 3]),
    "categorical no classes": lambda: R.stateless_categorical(dg.zeros([2, 0]), 5, S),
    "binomial": lambda: R.stateless_binomial([2, 3], S, counts=10.0, probs=0.5),
    "binomial int64": lambda: R.stateless_binomial([2, 3], S, counts=10, probs=0.5,
                                                   output_dtype=dg.int64),
    "binomial vectors": lambda: R.stateless_binomial([2, 3], S, counts=[10.0, 20.0, 30.0],
                                                     probs=[0.1, 0.5, 0.9]),
    "binomial bad broadcast": lambda: R.stateless_binomial([2, 3], S, counts=[10.0, 20.0],
                                                           probs=0.5),
    "binomial int counts": lambda: R.stateless_binomial([2], S, counts=10, probs=0.5),
    "binomial seed [3]": lambda: R.stateless_binomial([2], [1, 2, 3], counts=10.0, probs=0.5),
    "binomial bool": lambda: R.stateless_binomial([2], S, counts=10.0, probs=0.5,
                                                  output_dtype=dg.bool),
    "gamma": lambda: R.stateless_gamma([2, 3], S, alpha=[1.0, 2.0, 3.0]),
    "gamma bad broadcast": lambda: R.stateless_gamma([2, 3], S, alpha=[1.0, 2.0]),
    "gamma int32": lambda: R.stateless_gamma([2], S, alpha=1.0, dtype=dg.int32),
    "gamma seed [3]": lambda: R.stateless_gamma([2], [1, 2, 3], alpha=1.0),
    "poisson": lambda: R.stateless_poisson([2, 3], S, lam=[1.0, 2.0, 3.0]),
    "poisson int64": lambda: R.stateless_poisson([2, 3], S, lam=3.0, dtype=dg.int64),
    "poisson float64": lambda: R.stateless_poisson([2, 3], S, lam=3.0, dtype=dg.float64),
    "poisson bool": lambda: R.stateless_poisson([2, 3], S, lam=3.0, dtype=dg.bool),
    "poisson bad broadcast": lambda: R.stateless_poisson([2, 3], S, lam=[1.0, 2.0]),
    "poisson seed [3]": lambda: R.stateless_poisson([2], [1, 2, 3], lam=1.0),
    "poisson int lam": lambda: R.stateless_poisson([2], S, lam=3),
    "parameterized truncated normal seed [3]":
        lambda: R.stateless_parameterized_truncated_normal([2], [1, 2, 3]),
    "split": lambda: R.experimental.stateless_split(S, num=3),
    "split int64": lambda: R.experimental.stateless_split(dg.constant([1, 2], dg.int64)),
    "split num 0": lambda: R.experimental.stateless_split(S, num=0),
    "split seed [3]": lambda: R.experimental.stateless_split([1, 2, 3]),
    "fold_in": lambda: R.experimental.stateless_fold_in(S, 7),
    "fold_in int64 seed": lambda: R.experimental.stateless_fold_in(
        dg.constant([1, 2], dg.int64), 7),
    "fold_in vector data": lambda: R.experimental.stateless_fold_in(S, [7, 8]),
}

IAE, VE, TE = "errors.InvalidArgumentError", "ValueError", "TypeError"
# TF 2.21's outcomes (eager, graph), recorded with /work/main/.venv-conformance.
TF = {
    "normal": ("ok float32 (2, 3)",) * 2,
    "normal seed [3]": (IAE, VE), "normal seed scalar": (IAE, VE),
    "normal seed float": (IAE, TE), "normal seed str": (IAE, TE),
    "normal seed None": (VE, VE), "normal seed 2x2": (IAE, VE),
    "normal seed int64": ("ok float32 (2,)",) * 2, "normal seed uint32": (IAE, TE),
    "normal shape negative": (IAE, IAE), "normal shape float": (IAE, TE),
    "normal shape 2-D": (IAE, VE), "normal shape str": (IAE, TE),
    "normal shape None": (VE, VE), "normal dtype int32": (TE, TE),
    "normal float64": ("ok float64 (2,)",) * 2, "normal float16": ("ok float16 (2,)",) * 2,
    "normal mean vector": ("ok float32 (2,)",) * 2, "normal mean bad shape": (IAE, VE),
    "normal mean str": (TE, TE),
    "uniform": ("ok float32 (2, 3)",) * 2, "uniform int32": ("ok int32 (2, 3)",) * 2,
    "uniform int64": ("ok int64 (2, 3)",) * 2, "uniform int no maxval": (VE, VE),
    "uniform int full range": ("ok int32 (2,)",) * 2,
    "uniform int64 full range": ("ok int64 (2,)",) * 2,
    "uniform uint32 full range": ("ok uint32 (2,)",) * 2,
    "uniform uint32 bounded": (VE, VE), "uniform int minval == maxval": (IAE, IAE),
    "uniform int minval > maxval": (IAE, IAE), "uniform int vector bounds": (IAE, VE),
    "uniform int8": (VE, VE), "uniform bool": (VE, VE),
    "uniform float bounds": ("ok float32 (2,)",) * 2,
    "uniform float maxval None": ("ok float32 (2,)",) * 2,
    "uniform float vector bounds": ("ok float32 (2,)",) * 2,
    "uniform seed [3]": (IAE, VE), "uniform int float bound": (TE, TE),
    "truncated normal": ("ok float32 (2, 3)",) * 2, "truncated normal int32": (TE, TE),
    "truncated normal seed [3]": (IAE, VE),
    "categorical": ("ok int64 (1, 5)",) * 2, "categorical int32": ("ok int32 (1, 5)",) * 2,
    "categorical float dtype": (VE, VE), "categorical 1-D logits": (IAE, VE),
    "categorical num_samples -1": (IAE, VE), "categorical num_samples 0": ("ok int64 (1, 0)",) * 2,
    "categorical num_samples [2]": (IAE, VE), "categorical seed [3]": (IAE, VE),
    "categorical no classes": (IAE, IAE),
    "binomial": ("ok int32 (2, 3)",) * 2, "binomial int64": ("ok int64 (2, 3)",) * 2,
    "binomial vectors": ("ok int32 (2, 3)",) * 2, "binomial bad broadcast": (IAE, IAE),
    "binomial int counts": ("ok int32 (2,)",) * 2, "binomial seed [3]": (IAE, VE),
    "binomial bool": (IAE, TE),
    "gamma": ("ok float32 (2, 3)",) * 2, "gamma bad broadcast": (IAE, IAE),
    "gamma int32": (TE, TE), "gamma seed [3]": (IAE, VE),
    "poisson": ("ok int32 (2, 3)",) * 2, "poisson int64": ("ok int64 (2, 3)",) * 2,
    "poisson float64": ("ok float64 (2, 3)",) * 2, "poisson bool": (IAE, TE),
    "poisson bad broadcast": (IAE, IAE), "poisson seed [3]": (IAE, VE),
    "poisson int lam": ("ok int32 (2,)",) * 2,
    "parameterized truncated normal seed [3]": (IAE, VE),
    "split": ("ok int32 (3, 2)",) * 2, "split int64": ("ok int64 (2, 2)",) * 2,
    "split num 0": ("ok int32 (0, 2)",) * 2, "split seed [3]": (IAE, VE),
    "fold_in": ("ok int32 (2,)",) * 2, "fold_in int64 seed": ("ok int32 (2,)",) * 2,
    "fold_in vector data": (IAE, VE),
}


@pytest.mark.parametrize("label", sorted(CASES))
def test_outcomes_are_tensorflows(label):
    ours = (_outcome(CASES[label], graph=False), _outcome(CASES[label], graph=True))
    assert ours == TF[label]


SAMPLERS = {
    "normal": lambda seed: R.stateless_normal([3, 4], seed, mean=1.0, stddev=2.0),
    "uniform": lambda seed: R.stateless_uniform([3, 4], seed, minval=-1.0, maxval=3.0),
    "uniform int": lambda seed: R.stateless_uniform([50], seed, minval=-5, maxval=100,
                                                    dtype=dg.int32),
    "uniform full int64": lambda seed: R.stateless_uniform([4], seed, minval=None,
                                                           maxval=None, dtype=dg.int64),
    "truncated normal": lambda seed: R.stateless_truncated_normal([3, 4], seed),
    "categorical": lambda seed: R.stateless_categorical([[0.0, 1.0, 2.0]] * 2, 20, seed),
    "binomial": lambda seed: R.stateless_binomial([20], seed, counts=30.0, probs=0.4),
    "poisson": lambda seed: R.stateless_poisson([20], seed, lam=4.0),
    "gamma": lambda seed: R.stateless_gamma([20], seed, alpha=2.0),
    "split": lambda seed: R.experimental.stateless_split(seed, 3),
    "fold_in": lambda seed: R.experimental.stateless_fold_in(seed, 11),
}


def _graph_value(build):
    g = dg.Graph()
    with g.as_default():
        out = build()
        with dg.Session(graph=g) as sess:
            return sess.run(out), sess.run(out)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_values_in_both_modes_different_seed_different(name):
    sample = SAMPLERS[name]
    first = sample([7, 9]).numpy()
    np.testing.assert_array_equal(sample([7, 9]).numpy(), first)
    if name != "split":  # split's seeds take the seed's dtype
        np.testing.assert_array_equal(sample(dg.constant([7, 9], dg.int64)).numpy(), first)
    run1, run2 = _graph_value(lambda: sample([7, 9]))
    np.testing.assert_array_equal(run1, first)
    np.testing.assert_array_equal(run2, first)   # stateless: every run the same
    assert not np.array_equal(sample([7, 10]).numpy(), first)


def test_a_fed_seed_picks_the_stream():
    g = dg.Graph()
    with g.as_default():
        seed = dg.placeholder(dg.int32, [2])
        out = R.stateless_normal([5], seed)
        with dg.Session(graph=g) as sess:
            a = sess.run(out, {seed: [3, 4]})
            b = sess.run(out, {seed: [3, 5]})
    np.testing.assert_array_equal(a, R.stateless_normal([5], [3, 4]).numpy())
    np.testing.assert_array_equal(b, R.stateless_normal([5], [3, 5]).numpy())


def test_values_lie_in_their_ranges_and_follow_their_laws():
    u = R.stateless_uniform([4000], S, minval=-1.0, maxval=3.0).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.1
    k = R.stateless_uniform([4000], S, minval=-5, maxval=5, dtype=dg.int32).numpy()
    assert set(np.unique(k)) == set(range(-5, 5))
    t = R.stateless_truncated_normal([4000], S, mean=1.0, stddev=0.5).numpy()
    assert t.min() >= 0.0 and t.max() <= 2.0
    n = R.stateless_normal([4000], S, mean=3.0, stddev=2.0).numpy()
    assert abs(n.mean() - 3.0) < 0.15 and abs(n.std() - 2.0) < 0.15
    half = R.stateless_uniform([4000], S, dtype=dg.float16).numpy()
    assert half.max() < 1.0
    p = R.stateless_poisson([2000, 2], S, lam=[2.0, 20.0]).numpy()
    assert abs(p[:, 0].mean() - 2.0) < 0.2 and abs(p[:, 1].mean() - 20.0) < 0.6
    b = R.stateless_binomial([4000], S, counts=10.0, probs=1.0).numpy()
    np.testing.assert_array_equal(b, 10)


def test_tensorflows_edge_values():
    # TF 2.21: a negative rate draws 0; -inf logits are never drawn; a row with no finite
    # logit answers num_classes; NaN probs give NaN float samples.
    np.testing.assert_array_equal(R.stateless_poisson([4], S, lam=-1.0).numpy(), 0)
    np.testing.assert_array_equal(R.stateless_poisson([4], S, lam=0.0).numpy(), 0)
    np.testing.assert_array_equal(
        R.stateless_categorical([[-np.inf, 0.0]], 5, S).numpy(), [[1] * 5])
    np.testing.assert_array_equal(
        R.stateless_categorical([[np.nan, 0.0]], 5, S).numpy(), [[1] * 5])
    np.testing.assert_array_equal(
        R.stateless_categorical([[-np.inf, -np.inf]], 5, S).numpy(), [[2] * 5])
    assert np.isnan(R.stateless_binomial([4], S, counts=10.0, probs=np.nan,
                                         output_dtype=dg.float32).numpy()).all()


def test_split_and_fold_in_make_seeds():
    seeds = R.experimental.stateless_split(S, 3).numpy()
    assert seeds.shape == (3, 2) and len({tuple(s) for s in seeds}) == 3
    folded = R.experimental.stateless_fold_in(S, 7).numpy()
    assert folded[1] == 7   # TF: [a draw of data's dtype, data]
    assert folded[0] == R.stateless_uniform([], S, minval=None, maxval=None,
                                            dtype=dg.int32).numpy()
    assert not np.array_equal(R.stateless_normal([3], seeds[0]).numpy(),
                              R.stateless_normal([3], seeds[1]).numpy())


def test_gradients_flow_to_the_parameters_not_through_the_samplers():
    m, s = dg.constant(1.0), dg.constant(2.0)
    lam, probs, logits = dg.constant(3.0), dg.constant(0.5), dg.constant([[0.0, 1.0]])
    with dg.GradientTape(persistent=True) as tape:
        tape.watch([m, s, lam, probs, logits])
        y = R.stateless_normal([3], S, mean=m, stddev=s)
        u = R.stateless_uniform([3], S, minval=m, maxval=s + 3)
        poisson = R.stateless_poisson([3], S, lam=lam, dtype=dg.float32)
        binomial = R.stateless_binomial([3], S, counts=10.0, probs=probs,
                                        output_dtype=dg.float32)
        draws = dg.cast(R.stateless_categorical(logits, 3, S), dg.float32)
    rnd = (y.numpy() - 1.0) / 2.0
    dm, ds = tape.gradient(y, [m, s])
    assert float(dm) == 3.0 and np.isclose(float(ds), rnd.sum(), rtol=1e-6)  # TF: 3, sum(z)
    unit = (u.numpy() - 1.0) / 4.0
    dmin, dmax = tape.gradient(u, [m, s])
    assert np.isclose(float(dmin), (1 - unit).sum(), rtol=1e-5)
    assert np.isclose(float(dmax), unit.sum(), rtol=1e-5)
    assert tape.gradient(poisson, lam) is None            # TF: None
    assert tape.gradient(binomial, probs) is None
    assert tape.gradient(draws, logits) is None


@pytest.mark.parametrize("sampler", [
    lambda mean, std: R.stateless_normal([2, 3], S, mean=mean, stddev=std, dtype=dg.float64),
    lambda mean, std: R.stateless_truncated_normal([2, 3], S, mean=mean, stddev=std,
                                                   dtype=dg.float64),
    lambda low, high: R.stateless_uniform([2, 3], S, minval=low, maxval=high,
                                          dtype=dg.float64),
])
def test_parameter_gradients_numerically(sampler):
    # stateless: the same draws at every evaluation, so central differences apply
    check_grads(sampler, [np.array([0.5, -1.0, 2.0]), np.array(1.5)], order=2)


def test_stateless_gamma_gradient_in_alpha_is_the_implicit_reparameterization():
    """d sample / d alpha = -(dP(a, x)/da) / p(a, x) at the drawn x (RandomGamma's, which
    TF registers for StatelessRandomGammaV2/V3 too), checked against SciPy's regularized
    incomplete gamma P differentiated numerically in a."""
    special = pytest.importorskip("scipy.special")
    alpha = dg.constant([1.5, 3.0], dg.float64)
    for mode in ("eager", "graph"):
        if mode == "eager":
            with dg.GradientTape() as tape:
                tape.watch(alpha)
                x = R.stateless_gamma([4, 2], S, alpha=alpha, dtype=dg.float64)
            got, xs = tape.gradient(x, alpha).numpy(), x.numpy()
        else:
            g = dg.Graph()
            with g.as_default():
                a = dg.constant([1.5, 3.0], dg.float64)
                x = R.stateless_gamma([4, 2], S, alpha=a, dtype=dg.float64)
                with dg.Session(graph=g) as sess:
                    got, xs = sess.run([dg.gradients(x, a)[0], x])
        a = np.array([1.5, 3.0])
        h = 1e-6
        dp_da = (special.gammainc(a + h, xs) - special.gammainc(a - h, xs)) / (2 * h)
        density = np.exp((a - 1) * np.log(xs) - xs - special.gammaln(a))
        np.testing.assert_allclose(got, (-dp_da / density).sum(axis=0), rtol=1e-5)
