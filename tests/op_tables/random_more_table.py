"""Op-table rows for random.gamma, random.stateless_gamma, the truncated normal with
parameters, random.categorical and RandomGammaGrad (issue 22). Sampled values are
duograd's own: rows check graph against eager under one seed; the truncated normal's
samples are smooth in their parameters (inverse CDF of fixed uniforms), so its gradient
is checked against central differences."""
from __future__ import annotations

import numpy as np
import scipy.special as sp

import duograd as dg
from duograd.ops.random import more_random_ops
from .spec import OpSpec, inputs, normal, positive


def _seeded(fn):
    def run(*args):
        dg.random.set_seed(1234)
        try:
            return fn(*args)
        finally:
            dg.random.set_seed(None)
    return run


def _gamma_grad_ref(alpha, sample):
    h = 1e-6
    d_a = (sp.gammainc(alpha + h, sample) - sp.gammainc(alpha - h, sample)) / (2 * h)
    density = np.exp((alpha - 1) * np.log(sample) - sample - sp.gammaln(alpha))
    return -d_a / density


ROWS = [
    OpSpec("random.gamma", _seeded(lambda a: dg.random.gamma([3], a, dtype=dg.float64)), None,
           inputs(positive(2)), order=0),
    OpSpec("random.stateless_gamma", lambda a: dg.random.stateless_gamma(
        [3, 2], [4, 5], a, dtype=dg.float64), None, inputs(positive(2)), order=0),
    OpSpec("raw_ops.StatelessRandomGammaV2", lambda a: more_random_ops.stateless_random_gamma_v2(
        [3, 2], [4, 5], a), None, inputs(positive(2)), order=0),
    OpSpec("raw_ops.RandomGammaGrad", more_random_ops.random_gamma_grad, _gamma_grad_ref,
           inputs(positive(3), positive(3)), order=0, rtol=1e-6),
    # TF's gradient in mean and stddev holds the standardized bounds fixed (dmean = 1,
    # dstddev = the standardized sample), not the total derivative the central differences
    # measure: the bounds' gradients are checked here, mean/stddev against TF's values in
    # ops/test_tf_recorded_gradients.py.
    OpSpec("random.stateless_parameterized_truncated_normal",
           lambda lo, hi: dg.random.stateless_parameterized_truncated_normal(
               [4, 2], [7, 8], dg.constant(0.2, dg.float64), dg.constant(1.3, dg.float64),
               lo - 1.5, hi + 1.0), None,
           inputs(lambda r: r.uniform(-0.5, 0.5, (2,)), lambda r: r.uniform(-0.5, 0.5, (2,))),
           order=1, grad_rtol=1e-4),
    OpSpec("random.categorical", _seeded(lambda z: dg.random.categorical(z, 4)), None,
           inputs(lambda r: r.standard_normal((2, 3))), order=0),
]

# The stateless samplers (issue 22): values are a function of the seed, so graph and eager
# agree and the parameters' gradients (applied after the sampler) are checked against
# central differences; the integer samplers are not differentiable.
_SEED = [3, 4]
ROWS += [
    OpSpec("random.stateless_normal", lambda m, s: dg.random.stateless_normal(
        [2, 3], _SEED, m, s, dtype=dg.float64), None, inputs(normal(3), positive(3)),
        order=2),
    OpSpec("random.stateless_truncated_normal", lambda m, s: dg.random.stateless_truncated_normal(
        [2, 3], _SEED, m, s, dtype=dg.float64), None, inputs(normal(3), positive(3)),
        order=2),
    OpSpec("random.stateless_uniform", lambda lo, hi: dg.random.stateless_uniform(
        [2, 3], _SEED, lo, hi + 3.0, dtype=dg.float64), None, inputs(normal(3), normal(3)),
        order=2),
    OpSpec("random.stateless_uniform(int)", lambda: dg.random.stateless_uniform(
        [2, 3], _SEED, minval=-4, maxval=9, dtype=dg.int32), None, inputs(), order=0),
    OpSpec("random.stateless_categorical", lambda z: dg.random.stateless_categorical(
        z, 4, _SEED), None, inputs(normal(2, 3)), order=0),
    OpSpec("random.stateless_binomial", lambda p: dg.random.stateless_binomial(
        [3, 2], _SEED, counts=5.0, probs=p, output_dtype=dg.float64), None,
        inputs(lambda r: r.uniform(0.1, 0.9, (2,))), order=0),
    OpSpec("random.stateless_poisson", lambda lam: dg.random.stateless_poisson(
        [3, 2], _SEED, lam, dtype=dg.float64), None, inputs(positive(2)), order=0),
    OpSpec("random.experimental.stateless_split", lambda: dg.random.experimental.stateless_split(
        _SEED, 3), None, inputs(), order=0),
]
