"""dg.compat.v1.test.compute_gradient / compute_gradient_error (TF1's gradient_checker).

Graph mode: `x` (a tensor or a list of them) and `y` are tensors of the
default graph, evaluated in the default Session by feeding `x`. Each Jacobian
has x.size rows and y.size columns (TF1's orientation, the transpose of
TF2's `dg.test.compute_gradient`); complex values count as two reals.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlicesValue
from ..framework.default_session import get_default_session
from .array.array_ops import placeholder
from .gradients_impl import gradients

_CHECKABLE = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
_Pair = Tuple[np.ndarray, np.ndarray]


def _product(shape: Sequence[int]) -> int:
    size = 1
    for dim in shape:
        size *= int(dim)
    return size


def _session() -> Any:
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default Session "
                         "(`with dg.compat.v1.Session().as_default():`)")
    return sess


def _initial_value(dtype: Any, shape: Sequence[int], value: Optional[np.ndarray]) -> np.ndarray:
    if value is not None:
        assert list(shape) == list(np.shape(value)), (
            f"x_shape = {list(shape)}, init_data shape = {list(np.shape(value))}")
        return np.asarray(value)
    data = np.random.random_sample(shape).astype(dtype.as_numpy_dtype)
    if dtype.is_complex:
        data.imag = np.random.random_sample(shape)
    return data


def _theoretical(x: Any, x_shape: Sequence[int], x_data: np.ndarray, dy: Any,
                 y_shape: Sequence[int], dx: Any, feeds: Dict[Any, Any]) -> np.ndarray:
    x_factor = 2 if x.dtype.is_complex else 1
    y_factor = 2 if dy.dtype.is_complex else 1
    x_size = _product(x_shape) * x_factor
    x_val_size = _product(x_shape[1:]) * x_factor
    dy_size = _product(y_shape) * y_factor
    jacobian = np.zeros((x_size, dy_size), dtype=x.dtype.real_dtype.as_numpy_dtype)
    dy_data = np.zeros(y_shape, dtype=dy.dtype.as_numpy_dtype)
    dy_flat = dy_data.ravel().view(dy.dtype.real_dtype.as_numpy_dtype)
    sess = _session()
    for col in range(dy_size):
        dy_flat[col] = 1
        grad = sess.run(dx, feed_dict={**feeds, x: x_data, dy: dy_data}) if dx is not None else None
        if isinstance(grad, IndexedSlicesValue):
            for index, values in zip(np.asarray(grad.indices).ravel(), np.asarray(grad.values), strict=True):
                begin = int(index) * x_val_size
                jacobian[begin:begin + x_val_size, col] += np.asarray(values).ravel().view(
                    jacobian.dtype)
        elif grad is not None:
            jacobian[:, col] = np.ascontiguousarray(grad).ravel().view(jacobian.dtype)
        dy_flat[col] = 0
    if dy_size == 0 and dx is not None:
        grad = np.asarray(sess.run(dx, feed_dict={**feeds, x: x_data, dy: dy_data}))
        if grad.shape != tuple(x_shape):
            raise ValueError(f"Empty gradient has wrong shape: expected {tuple(x_shape)}, "
                             f"got {grad.shape}")
        if np.any(grad):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _perturbed(x_data: np.ndarray, real_dtype: Any, index: int, step: float) -> np.ndarray:
    """A C-ordered copy of `x_data` with real component `index` (row-major) moved by `step`.

    The copy is made as a 1-D buffer and reshaped, so the write lands in the
    returned array whatever the layout of `x_data` (Fortran-ordered, strided, 0-d).
    """
    buffer = np.array(x_data, order="C").reshape(-1)
    buffer.view(real_dtype)[index] += step
    return buffer.reshape(np.shape(x_data))


def _numerical(x: Any, x_shape: Sequence[int], x_data: np.ndarray, y: Any,
               y_shape: Sequence[int], delta: float, feeds: Dict[Any, Any]) -> np.ndarray:
    real_x = x.dtype.real_dtype.as_numpy_dtype
    real_y = y.dtype.real_dtype.as_numpy_dtype
    x_size = _product(x_shape) * (2 if x.dtype.is_complex else 1)
    y_size = _product(y_shape) * (2 if y.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, y_size), dtype=real_x)
    scale = np.asarray(2 * delta, dtype=real_y)[()]
    sess = _session()
    for row in range(x_size):
        x_pos = _perturbed(x_data, real_x, row, delta)
        y_pos = np.asarray(sess.run(y, feed_dict={**feeds, x: x_pos}))
        x_neg = _perturbed(x_data, real_x, row, -delta)
        y_neg = np.asarray(sess.run(y, feed_dict={**feeds, x: x_neg}))
        jacobian[row, :] = np.ascontiguousarray((y_pos - y_neg) / scale).ravel().view(real_y)
    return jacobian


def _check_dtype(dtype: Any, what: str) -> None:
    assert dtype.base_dtype in _CHECKABLE, (
        f"Cannot compute gradient for unsupported type {dtype.name} of {what}")


def compute_gradient(x: Any, x_shape: Any, y: Any, y_shape: Sequence[int],
                     x_init_value: Any = None, delta: float = 1e-3,
                     init_targets: Optional[Sequence[Any]] = None,
                     extra_feed_dict: Optional[dict] = None) -> Union[_Pair, List[_Pair]]:
    """(theoretical, numerical) Jacobians of `y` w.r.t. `x`, each (x.size, y.size).

    `x` may be a list (then `x_shape` and `x_init_value` are lists too, and the
    result is a list of pairs). Needs a default Session; runs `init_targets` first.
    """
    feeds = dict(extra_feed_dict or {})
    if init_targets is not None:
        assert isinstance(init_targets, (list, tuple))
        _session().run(list(init_targets))
    single = not isinstance(x, list)
    xs = [x] if single else list(x)
    shapes = [x_shape] if single else list(x_shape)
    inits = [x_init_value] if single else (list(x_init_value) if x_init_value is not None
                                           else [None] * len(xs))
    if len(shapes) != len(xs) or len(inits) != len(xs):
        raise ValueError(f"compute_gradient: {len(xs)} x tensors but {len(shapes)} x_shape "
                         f"entries and {len(inits)} x_init_value entries")
    _check_dtype(y.dtype, "y")
    dy = placeholder(y.dtype, y_shape)
    dxs = gradients(y, xs, grad_ys=dy)
    pairs = []
    for i, (xi, shape, init, dx) in enumerate(zip(xs, shapes, inits, dxs, strict=True)):
        _check_dtype(xi.dtype, f"argument {i}")
        data = _initial_value(xi.dtype, shape, init)
        pairs.append((_theoretical(xi, shape, data, dy, y_shape, dx, feeds),
                      _numerical(xi, shape, data, y, y_shape, delta, feeds)))
    return pairs[0] if single else pairs


def compute_gradient_error(x: Any, x_shape: Any, y: Any, y_shape: Sequence[int],
                           x_init_value: Any = None, delta: float = 1e-3,
                           init_targets: Optional[Sequence[Any]] = None,
                           extra_feed_dict: Optional[dict] = None) -> float:
    """The largest |theoretical - numerical| over the Jacobians of compute_gradient."""
    result = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                              extra_feed_dict)
    pairs = [result] if isinstance(result, tuple) else result
    error = 0.0
    for theoretical, numerical in pairs:
        if theoretical.size or numerical.size:
            error = max(error, float(np.max(np.fabs(theoretical - numerical))))
    return error


__all__ = ["compute_gradient", "compute_gradient_error"]
