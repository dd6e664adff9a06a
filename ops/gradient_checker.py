"""dg.test.compute_gradient: theoretical vs numerical Jacobians (tf.test.compute_gradient).

The theoretical Jacobian is built row by row from reverse-mode gradients
(one unit cotangent per output element) on a GradientTape; the numerical one
by central differences of `f`, perturbing one input element at a time. Both are returned as lists with one 2-D array per input, of
shape (x.size * r, y.size * r) with r = 2 for complex values, as TF does.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..eager.backprop import GradientTape
from ..framework import nest
from .constant_op import constant, convert_to_tensor


def _to_array(value: Any) -> np.ndarray:
    return np.asarray(convert_to_tensor(value))


def _default_delta(dtype: np.dtype) -> float:
    return 1e-3 if np.dtype(dtype).itemsize <= 4 or np.dtype(dtype) == np.complex64 else 1e-6


def _eval(f: Callable, xs: List[np.ndarray]) -> np.ndarray:
    return _to_array(f(*[constant(x) for x in xs]))


def _theoretical(f: Callable, xs: List[np.ndarray], y: np.ndarray) -> List[np.ndarray]:
    complex_y = np.iscomplexobj(y)
    y_parts = 2 if complex_y else 1
    jacobians = []
    for x in xs:
        x_parts = 2 if np.iscomplexobj(x) else 1
        jacobians.append(np.zeros((x.size * x_parts, y.size * y_parts),
                                  dtype=np.real(np.zeros((), x.dtype)).dtype))
    ts = [constant(x) for x in xs]
    with GradientTape(persistent=True) as tape:
        tape.watch(ts)
        out = convert_to_tensor(f(*ts))
    for col in range(y.size * y_parts):
        seed = np.zeros(y.size, dtype=y.dtype)
        seed[col // y_parts] = 1j if col % y_parts else 1
        grads = tape.gradient(out, ts, output_gradients=[constant(seed.reshape(y.shape))])
        for jac, x, g in zip(jacobians, xs, grads):
            if g is None:
                continue
            g = _to_array(g).reshape(-1)
            if np.iscomplexobj(x):
                # a complex input is two real rows per element: (Re, Im), interleaved
                jac[0::2, col] = np.real(g)
                jac[1::2, col] = np.imag(g)
            else:
                jac[:, col] = np.real(g)
    return jacobians


def _numerical(f: Callable, xs: List[np.ndarray], y: np.ndarray,
               delta: Optional[float]) -> List[np.ndarray]:
    y_parts = 2 if np.iscomplexobj(y) else 1
    jacobians = []
    for i, x in enumerate(xs):
        x_parts = 2 if np.iscomplexobj(x) else 1
        step = delta if delta is not None else _default_delta(x.dtype)
        jac = np.zeros((x.size * x_parts, y.size * y_parts),
                       dtype=np.real(np.zeros((), x.dtype)).dtype)
        flat = x.reshape(-1)
        for row in range(x.size * x_parts):
            unit = np.zeros(x.size, dtype=x.dtype)
            unit[row // x_parts] = 1j * step if row % x_parts else step
            plus = list(xs)
            minus = list(xs)
            plus[i] = (flat + unit).reshape(x.shape)
            minus[i] = (flat - unit).reshape(x.shape)
            diff = (_eval(f, plus) - _eval(f, minus)).reshape(-1) / (2 * step)
            if y_parts == 2:
                jac[row, 0::2] = np.real(diff)
                jac[row, 1::2] = np.imag(diff)
            else:
                jac[row, :] = np.real(diff)
        jacobians.append(jac)
    return jacobians


def compute_gradient(f: Callable, x: Sequence[Any],
                     delta: Optional[float] = None) -> Tuple[List[np.ndarray], List[np.ndarray]]:
    """(theoretical, numerical) Jacobians of `f` at `x` (a list of inputs), one per input.

    Each Jacobian has shape (x_i.size, y.size): entry [j, k] is dy_k / dx_ij.
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of inputs to `f`")
    xs = [np.array(_to_array(v)) for v in nest.flatten(list(x))]
    y = _eval(f, xs)
    return _theoretical(f, xs, y), _numerical(f, xs, y, delta)


def max_error(grad1: Sequence[np.ndarray], grad2: Sequence[np.ndarray]) -> float:
    """The largest absolute difference between two lists of Jacobians."""
    error = 0.0
    for a, b in zip(grad1, grad2):
        if a.size or b.size:
            error = max(error, float(np.max(np.abs(np.asarray(a) - np.asarray(b)))))
    return error


__all__ = ["compute_gradient"]
