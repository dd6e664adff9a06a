"""The regularized incomplete gamma functions igamma / igammac, their derivative in `a`
(TF's IgammaGradA, which their gradients use), the regularized incomplete beta function
betainc and the Hurwitz zeta function, as TF's primitives. Kernels from `scipy.special`
(the optional `duograd[scipy]` extra); gradients in grad_registry/special_functions_grad.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..op_helpers import apply_binary
from ..scipy_support import scipy_module
from ..shape_rules import broadcast_binary, check_same_dtype


def _float64(*arrays):
    return [a.astype(np.float64) for a in arrays]


def _igamma(a, x):
    special = scipy_module("special", "Igamma")
    af, xf = _float64(a, x)
    with np.errstate(all="ignore"):
        out = special.gammainc(af, xf)
        out = np.where((af <= 0) | (xf < 0), np.nan, out)  # TF: NaN outside a > 0, x >= 0
    return out.astype(np.result_type(a, x))


def _igammac(a, x):
    special = scipy_module("special", "Igammac")
    af, xf = _float64(a, x)
    with np.errstate(all="ignore"):
        out = special.gammaincc(af, xf)
        out = np.where((af <= 0) | (xf < 0), np.nan, out)
    return out.astype(np.result_type(a, x))


_MAX_TERMS = 20000


def igamma_grad_a_values(a, x):
    """d igamma(a, x) / da from the series igamma = sum_n x**(a+n) e**-x / Gamma(a+n+1):
    each term differentiates to the term times (log x - digamma(a + n + 1)); summed in log
    space until the terms stop mattering (about x + 12 sqrt(x) terms)."""
    special = scipy_module("special", "IgammaGradA")
    af, xf = np.broadcast_arrays(*_float64(a, x))
    out = np.full(af.shape, np.nan)
    valid = (af > 0) & (xf > 0) & np.isfinite(af) & np.isfinite(xf)
    out[(af > 0) & (xf == 0)] = 0.0
    av, xv = af[valid], xf[valid]
    if av.size:
        log_x = np.log(xv)
        total = np.zeros_like(av)
        terms = int(min(_MAX_TERMS, np.ceil(xv.max() + 12 * np.sqrt(xv.max()) + 40)))
        for n in range(terms):
            log_term = (av + n) * log_x - xv - special.gammaln(av + n + 1)
            total += np.exp(log_term) * (log_x - special.digamma(av + n + 1))
        out[valid] = total
    return out.astype(np.result_type(a, x))


def _zeta(x, q):
    special = scipy_module("special", "Zeta")
    xf, qf = _float64(x, q)
    with np.errstate(all="ignore"):
        out = special.zeta(xf, qf)
    return np.asarray(out).astype(np.result_type(x, q))


IGAMMA = declare_op("Igamma", _igamma, broadcast_binary, input_kinds="f")
IGAMMAC = declare_op("Igammac", _igammac, broadcast_binary, input_kinds="f")
IGAMMA_GRAD_A = declare_op("IgammaGradA", igamma_grad_a_values, broadcast_binary, input_kinds="f")
ZETA = declare_op("Zeta", _zeta, broadcast_binary, input_kinds="f")


def _betainc_shape(shapes) -> TensorShape:
    """a, b and x share one shape, or are scalars (TF does not broadcast otherwise)."""
    result = TensorShape(())
    for shape in shapes:
        if shape.rank == 0:
            continue
        if result.rank == 0:
            result = shape
            continue
        if not result.is_compatible_with(shape):
            raise ValueError(f"Betainc: shapes of a, b and x must be equal or scalar: "
                             f"{result} vs. {shape}")
        result = result.merge_with(shape)
    return result


def _betainc_infer(inputs, attrs):
    dtype = check_same_dtype(inputs)
    if any(t.shape.rank is None for t in inputs):
        return [(dtype, TensorShape(None))]
    return [(dtype, _betainc_shape([t.shape for t in inputs]))]


def _betainc(a, b, x):
    shapes = [s.shape for s in (a, b, x) if s.ndim]
    if any(s != shapes[0] for s in shapes):
        names = [n for n, s in zip("abx", (a, b, x), strict=True) if s.ndim]
        first = [s for s in (a, b, x) if s.ndim][0]
        bad = next(i for i, s in enumerate(shapes) if s != shapes[0])
        raise InvalidArgumentError(None, None, (
            f"Shapes of {names[0]} and {names[bad]} are inconsistent: {list(first.shape)} vs. "
            f"{list(shapes[bad])} [Op:Betainc]"))
    special = scipy_module("special", "Betainc")
    af, bf, xf = _float64(a, b, x)
    with np.errstate(all="ignore"):
        out = special.betainc(af, bf, xf)
        out = np.where((af <= 0) | (bf <= 0) | (xf < 0) | (xf > 1), np.nan, out)
    return np.asarray(out).astype(np.result_type(a, b, x))


BETAINC = declare_op("Betainc", _betainc, _betainc_infer, input_kinds="f", grad_inputs=(0, 1, 2))


def igamma(a: Any, x: Any, name: Optional[str] = None):
    """The lower regularized incomplete gamma function P(a, x) (a > 0, x >= 0)."""
    return apply_binary(IGAMMA, a, x, name)


def igammac(a: Any, x: Any, name: Optional[str] = None):
    """The upper regularized incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return apply_binary(IGAMMAC, a, x, name)


def igamma_grad_a(a: Any, x: Any, name: Optional[str] = None):
    """d igamma(a, x) / da (TF's raw op IgammaGradA; not differentiable, as in TF)."""
    return apply_binary(IGAMMA_GRAD_A, a, x, name)


def zeta(x: Any, q: Any, name: Optional[str] = None):
    """The Hurwitz zeta function sum_n (q + n)**-x."""
    return apply_binary(ZETA, x, q, name)


def betainc(a: Any, b: Any, x: Any, name: Optional[str] = None):
    """The regularized incomplete beta function I_x(a, b); a, b, x of one shape or scalars."""
    # As TF's op helper: the first tensor among the inputs decides the dtype of the others.
    first = next((v for v in (a, b, x) if isinstance(v, Tensor)), None)
    dtype = first.dtype if first is not None else convert_to_tensor(a).dtype
    a, b, x = (convert_to_tensor(v, dtype=dtype) for v in (a, b, x))
    return apply_op(BETAINC, (a, b, x), name=name)


__all__ = ["igamma", "igammac", "zeta", "betainc"]
