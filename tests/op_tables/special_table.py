"""Op-table rows for TF's special functions (Bessel, dawsn, expint, Fresnel, spence, erfinv,
ndtri) and igamma / igammac / betainc / zeta: references from SciPy (the scipy extra)."""
from __future__ import annotations

import numpy as np
import scipy.special as sp

import duograd as dg
from duograd.ops.math import incomplete_gamma_ops
from .spec import OpSpec, inputs, positive, unit

special = dg.math.special


def _spread(low, high, *shape):
    return lambda rng: rng.uniform(low, high, shape)


def _signed_away_from_zero(*shape):
    """|x| in [0.4, 3] with random signs: the Bessel gradients substitute a constant at 0."""
    return lambda rng: rng.uniform(0.4, 3.0, shape) * rng.choice([-1.0, 1.0], shape)


_UNARY = [
    ("bessel_i0", sp.i0, _signed_away_from_zero(3, 2)),
    ("bessel_i0e", sp.i0e, _signed_away_from_zero(3, 2)),
    ("bessel_i1", sp.i1, _signed_away_from_zero(3, 2)),
    ("bessel_i1e", sp.i1e, _signed_away_from_zero(3, 2)),
    ("bessel_j0", sp.j0, _signed_away_from_zero(3, 2)),
    ("bessel_j1", sp.j1, _signed_away_from_zero(3, 2)),
    ("bessel_k0", sp.k0, _spread(0.4, 3.0, 3, 2)),
    ("bessel_k0e", sp.k0e, _spread(0.4, 3.0, 3, 2)),
    ("bessel_k1", sp.k1, _spread(0.4, 3.0, 3, 2)),
    ("bessel_k1e", sp.k1e, _spread(0.4, 3.0, 3, 2)),
    ("bessel_y0", sp.y0, _spread(0.4, 3.0, 3, 2)),
    ("bessel_y1", sp.y1, _spread(0.4, 3.0, 3, 2)),
    ("dawsn", sp.dawsn, _spread(-2.0, 2.0, 3, 2)),
    ("expint", sp.expi, _spread(0.3, 2.5, 3, 2)),
    ("fresnel_cos", lambda x: sp.fresnel(x)[1], _spread(-1.5, 1.5, 3, 2)),
    ("fresnel_sin", lambda x: sp.fresnel(x)[0], _spread(-1.5, 1.5, 3, 2)),
    ("spence", sp.spence, _spread(0.2, 0.8, 3, 2)),
]

ROWS = [OpSpec(f"math.special.{name}", getattr(special, name), ref, inputs(make))
        for name, ref, make in _UNARY]
ROWS += [
    OpSpec("math.bessel_i1e", dg.math.bessel_i1e, sp.i1e, inputs(_signed_away_from_zero(4))),
    OpSpec("math.erfinv", dg.math.erfinv, sp.erfinv, inputs(unit(3, 2))),
    OpSpec("math.ndtri", dg.math.ndtri, sp.ndtri, inputs(_spread(0.05, 0.95, 3, 2))),
    # IgammaGradA has no gradient (as in TF): the a-gradient is checked to first order.
    OpSpec("math.igamma", dg.math.igamma, sp.gammainc, inputs(positive(3, 2), positive(2)),
           order=1),
    OpSpec("math.igammac", dg.math.igammac, sp.gammaincc, inputs(positive(3, 1), positive(2)),
           order=1),
    OpSpec("math.igamma_x_only", lambda x: dg.math.igamma(1.5, x),
           lambda x: sp.gammainc(1.5, x), inputs(positive(3, 2))),
    OpSpec("raw_ops.IgammaGradA", incomplete_gamma_ops.igamma_grad_a,
           lambda a, x: (sp.gammainc(a + 1e-6, x) - sp.gammainc(a - 1e-6, x)) / 2e-6,
           inputs(positive(3), positive(3)), order=0, rtol=1e-6),
    # TF differentiates betainc in x only, zeta in q only.
    OpSpec("math.betainc", lambda x: dg.math.betainc(2.5, 1.5, x),
           lambda x: sp.betainc(2.5, 1.5, x), inputs(_spread(0.1, 0.9, 3, 2))),
    OpSpec("math.betainc_vector_ab", lambda x: dg.math.betainc([1.5, 2.0], [3.0, 0.5], x),
           lambda x: sp.betainc([1.5, 2.0], [3.0, 0.5], x), inputs(_spread(0.1, 0.9, 2))),
    OpSpec("math.zeta", lambda q: dg.math.zeta(3.0, q), lambda q: sp.zeta(3.0, q),
           inputs(positive(3, 2))),
]
