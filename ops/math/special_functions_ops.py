"""TF's special functions beyond erf and the gamma family: Bessel functions, dawsn,
expint, Fresnel integrals, spence (`dg.math.special.*`), erfinv and ndtri (`dg.math.*`).

Each is an elementwise primitive as in TF, its kernel from `scipy.special` (the
optional `duograd[scipy]` extra, loaded when a kernel first runs), computed in
float64 and returned in the input's float dtype. Gradients:
grad_registry/special_functions_grad.py.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import numpy as np

from ...framework.op_def import declare_op
from ..op_helpers import apply_unary
from ..scipy_support import scipy_module
from ..shape_rules import elementwise_unary

_float_rule = elementwise_unary()


def scipy_kernel(function_name: str, op_type: str,
                 below_domain: Optional[Tuple[Callable, float]] = None) -> Callable:
    """A kernel applying `scipy.special.<function_name>` in float64, quietly (NaN/inf as TF).
    `below_domain` is (where, value): TF's value where SciPy's differs outside the domain
    (TF's K Bessel functions are +inf for x <= 0, its Y functions -inf, SciPy's NaN)."""
    def kernel(*arrays):
        function = getattr(scipy_module("special", op_type), function_name)
        dtype = np.result_type(*arrays)
        with np.errstate(all="ignore"):
            values = [a.astype(np.float64) for a in arrays]
            out = np.asarray(function(*values))
            if below_domain is not None:
                where, value = below_domain
                out = np.where(where(values[0]), value, out)
        return out.astype(dtype)
    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _fresnel(part: int, op_type: str) -> Callable:
    def kernel(x):
        special = scipy_module("special", op_type)
        # scipy's fresnel returns (S, C) for the same argument convention as TF.
        return np.asarray(special.fresnel(x.astype(np.float64))[part]).astype(x.dtype)
    return kernel


def _spence(x):
    # TF's spence(x) = integral_1^x log(t) / (1 - t) dt, scipy's spence(x) the same
    # (defined for x >= 0; NaN below, as TF).
    special = scipy_module("special", "Spence")
    with np.errstate(all="ignore"):
        return np.asarray(special.spence(x.astype(np.float64))).astype(x.dtype)


def _unary(op_type: str, kernel: Callable, grad_outputs=()) -> Any:
    return declare_op(op_type, kernel, _float_rule, input_kinds="f", grad_outputs=grad_outputs)


_Y = (0,)  # the gradient reads the output too
_K_EDGE = (lambda x: x <= 0, np.inf)
_Y_EDGE = (lambda x: x <= 0, -np.inf)
_EI_EDGE = (lambda x: x < 0, np.nan)  # TF's Ei is NaN for x < 0 (SciPy's is finite)
BESSEL_I0 = _unary("BesselI0", scipy_kernel("i0", "BesselI0"))
BESSEL_I0E = _unary("BesselI0e", scipy_kernel("i0e", "BesselI0e"), _Y)
BESSEL_I1 = _unary("BesselI1", scipy_kernel("i1", "BesselI1"), _Y)
BESSEL_I1E = _unary("BesselI1e", scipy_kernel("i1e", "BesselI1e"), _Y)
BESSEL_J0 = _unary("BesselJ0", scipy_kernel("j0", "BesselJ0"))
BESSEL_J1 = _unary("BesselJ1", scipy_kernel("j1", "BesselJ1"), _Y)
BESSEL_K0 = _unary("BesselK0", scipy_kernel("k0", "BesselK0", _K_EDGE))
BESSEL_K0E = _unary("BesselK0e", scipy_kernel("k0e", "BesselK0e", _K_EDGE), _Y)
BESSEL_K1 = _unary("BesselK1", scipy_kernel("k1", "BesselK1", _K_EDGE), _Y)
BESSEL_K1E = _unary("BesselK1e", scipy_kernel("k1e", "BesselK1e", _K_EDGE), _Y)
BESSEL_Y0 = _unary("BesselY0", scipy_kernel("y0", "BesselY0", _Y_EDGE))
BESSEL_Y1 = _unary("BesselY1", scipy_kernel("y1", "BesselY1", _Y_EDGE), _Y)
DAWSN = _unary("Dawsn", scipy_kernel("dawsn", "Dawsn"), _Y)
EXPINT = _unary("Expint", scipy_kernel("expi", "Expint", _EI_EDGE))
FRESNEL_COS = _unary("FresnelCos", _fresnel(1, "FresnelCos"))
FRESNEL_SIN = _unary("FresnelSin", _fresnel(0, "FresnelSin"))
SPENCE = _unary("Spence", _spence)
ERFINV = _unary("Erfinv", scipy_kernel("erfinv", "Erfinv"), _Y)
NDTRI = _unary("Ndtri", scipy_kernel("ndtri", "Ndtri"), _Y)


def _public(op_def: Any, name: str, doc: str) -> Callable:
    def function(x: Any, name: Optional[str] = None):
        return apply_unary(op_def, x, name)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


bessel_i0 = _public(BESSEL_I0, "bessel_i0", "The modified Bessel function of order 0, I0(x).")
bessel_i0e = _public(BESSEL_I0E, "bessel_i0e", "exp(-|x|) I0(x), finite for large |x|.")
bessel_i1 = _public(BESSEL_I1, "bessel_i1", "The modified Bessel function of order 1, I1(x).")
bessel_i1e = _public(BESSEL_I1E, "bessel_i1e", "exp(-|x|) I1(x), finite for large |x|.")
bessel_j0 = _public(BESSEL_J0, "bessel_j0", "The Bessel function of the first kind, order 0.")
bessel_j1 = _public(BESSEL_J1, "bessel_j1", "The Bessel function of the first kind, order 1.")
bessel_k0 = _public(BESSEL_K0, "bessel_k0", "The modified Bessel function K0(x) (x > 0).")
bessel_k0e = _public(BESSEL_K0E, "bessel_k0e", "exp(x) K0(x) (x > 0).")
bessel_k1 = _public(BESSEL_K1, "bessel_k1", "The modified Bessel function K1(x) (x > 0).")
bessel_k1e = _public(BESSEL_K1E, "bessel_k1e", "exp(x) K1(x) (x > 0).")
bessel_y0 = _public(BESSEL_Y0, "bessel_y0", "The Bessel function of the second kind, order 0.")
bessel_y1 = _public(BESSEL_Y1, "bessel_y1", "The Bessel function of the second kind, order 1.")
dawsn = _public(DAWSN, "dawsn", "Dawson's integral exp(-x**2) * integral_0^x exp(t**2) dt.")
expint = _public(EXPINT, "expint", "The exponential integral Ei(x).")
fresnel_cos = _public(FRESNEL_COS, "fresnel_cos", "integral_0^x cos(pi t**2 / 2) dt.")
fresnel_sin = _public(FRESNEL_SIN, "fresnel_sin", "integral_0^x sin(pi t**2 / 2) dt.")
spence = _public(SPENCE, "spence", "Spence's integral integral_1^x log(t) / (1 - t) dt (x >= 0).")
erfinv = _public(ERFINV, "erfinv", "The inverse of erf on (-1, 1) (+-inf at +-1, NaN outside).")
ndtri = _public(NDTRI, "ndtri", "The inverse of the standard normal CDF on (0, 1).")

# dg.math.special.* (TF's tf.math.special) and the four Bessel names TF also has in tf.math.
SPECIAL_NAMES = {f.__name__: f for f in (
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, bessel_j0, bessel_j1, bessel_k0, bessel_k0e,
    bessel_k1, bessel_k1e, bessel_y0, bessel_y1, dawsn, expint, fresnel_cos, fresnel_sin,
    spence)}
__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "erfinv", "ndtri"]
