"""dg.test.compute_gradient: theoretical vs numerical Jacobians (tf.test.compute_gradient).

With y = f(*xs), each Jacobian has y.size rows and x.size columns, as in
TensorFlow 2. Complex values count as two reals (real part, imaginary part,
interleaved), on both sides. The theoretical Jacobian is built one row at a
time from reverse-mode gradients with a unit cotangent; the numerical one one
column at a time by central differences. In eager mode `f` runs eagerly under
a GradientTape; inside a graph it is traced once on placeholders and run in
the default Session, as TensorFlow does.

Given anything but a callable first, `compute_gradient` is TF1's checker
(`compute_gradient(x, x_shape, y, y_shape, ...)`, see gradient_checker_v1),
so that the `tf.compat.v1.test` spelling ported to `dg.test` keeps working.
"""
from __future__ import annotations

from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

from ..eager import context
from ..eager.backprop import GradientTape
from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from ..framework.default_session import get_default_session
from ..framework.tensor import Tensor
from .array.array_ops import placeholder
from .constant_op import convert_to_tensor
from . import gradient_checker_v1
from .gradients_impl import gradients

_CHECKABLE = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
_CHECKABLE_NAMES = ("bfloat16",)   # dg.bfloat16 exists only with its extra (ml_dtypes)


def _jacobian_dtype(dtype: Any) -> Any:
    """The NumPy dtype a Jacobian of `dtype` values is held in: its real part's, except
    bfloat16's, which holds too few bits for a difference quotient (float32, as TF)."""
    if dtype.name == "bfloat16":
        return np.float32
    return dtype.real_dtype.as_numpy_dtype


def _real_row(values: Any, real: Any, into: Any) -> np.ndarray:
    """`values` flattened, complex ones as (real, imaginary) pairs, in dtype `into`."""
    row = np.ascontiguousarray(values).ravel().view(real)
    return row if row.dtype == into else row.astype(into)
_Runner = Callable[..., Any]


def _product(shape: Sequence[int]) -> int:
    size = 1
    for dim in shape:
        size *= dim
    return size


def _session() -> Any:
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient in graph mode needs a default Session "
                         "(`with dg.compat.v1.Session().as_default():`)")
    return sess


def _to_numpy(value: Any) -> Any:
    """An array (or IndexedSlicesValue) for an eager or graph tensor or slices."""
    if isinstance(value, IndexedSlices):
        if context.executing_eagerly():
            shape = value.dense_shape
            return IndexedSlicesValue(np.asarray(value.values), np.asarray(value.indices),
                                      None if shape is None else np.asarray(shape))
        return _session().run(value)
    if isinstance(value, Tensor):
        if context.executing_eagerly():
            return np.asarray(value)
        return _session().run(value)
    return value


def _prepare(f: Callable, xs: List[Tensor]) -> _Runner:
    """A function of NumPy inputs returning f's output as an array."""
    if context.executing_eagerly():
        return lambda *data: _to_numpy(f(*[convert_to_tensor(d) for d in data]))
    phs = [placeholder(x.dtype, x.shape) for x in xs]
    y = convert_to_tensor(f(*phs))
    sess = _session()
    return lambda *data: sess.run(y, feed_dict=dict(zip(phs, data, strict=True)))


def _prepare_grad(f: Callable, xs: List[Tensor], param: int, y_dtype: Any) -> _Runner:
    """A function (dy, *xs data) -> the gradient of <f(xs), dy> w.r.t. xs[param]."""
    if context.executing_eagerly():
        def grad_eager(dy: np.ndarray, *data: np.ndarray) -> Any:
            ts = [convert_to_tensor(d) for d in data]
            with GradientTape() as tape:
                tape.watch(ts[param])
                y = f(*ts)
            return _to_numpy(tape.gradient(y, ts[param],
                                           output_gradients=convert_to_tensor(dy, y_dtype)))
        return grad_eager
    phs = [placeholder(x.dtype, x.shape) for x in xs]
    y = convert_to_tensor(f(*phs))
    dy_ph = placeholder(y.dtype)
    (grad,) = gradients(y, phs[param], grad_ys=dy_ph)
    sess = _session()

    def grad_graph(dy: np.ndarray, *data: np.ndarray) -> Any:
        if grad is None:
            return None
        return sess.run(grad, feed_dict={dy_ph: dy, **dict(zip(phs, data, strict=True))})
    return grad_graph


def _scatter_row(jacobian: np.ndarray, row: int, grad: Any, x_val_size: int) -> None:
    if isinstance(grad, IndexedSlicesValue):
        for index, values in zip(np.asarray(grad.indices).ravel(), np.asarray(grad.values), strict=True):
            begin = int(index) * x_val_size
            values = np.asarray(values)
            jacobian[row, begin:begin + x_val_size] += _real_row(
                values, _real_numpy(values.dtype), jacobian.dtype)
    elif grad is not None:
        grad = np.asarray(grad)
        jacobian[row, :] = _real_row(grad, _real_numpy(grad.dtype), jacobian.dtype)


def _real_numpy(np_dtype: Any) -> Any:
    """The NumPy dtype of the real parts of `np_dtype` values."""
    return np.finfo(np_dtype).dtype if np_dtype.kind == "c" else np_dtype


def _theoretical(f: Callable, y_shape: Tuple[int, ...], y_dtype: Any, xs: List[Tensor],
                 data: List[np.ndarray], param: int) -> np.ndarray:
    x = xs[param]
    x_shape = tuple(data[param].shape) + ((2,) if x.dtype.is_complex else ())
    y_size = _product(y_shape) * (2 if y_dtype.is_complex else 1)
    jacobian = np.zeros((y_size, _product(x_shape)), dtype=_jacobian_dtype(x.dtype))
    dy = np.zeros(y_shape, dtype=y_dtype.as_numpy_dtype)
    dy_flat = dy.ravel().view(y_dtype.real_dtype.as_numpy_dtype)
    grad_fn = _prepare_grad(f, xs, param, y_dtype)
    for row in range(y_size):
        dy_flat[row] = 1
        _scatter_row(jacobian, row, grad_fn(dy, *data), _product(x_shape[1:]))
        dy_flat[row] = 0
    if y_size == 0:
        grad = grad_fn(dy, *data)
        if grad is not None:
            grad = np.asarray(grad)
            if grad.shape != data[param].shape:
                raise ValueError(f"Empty gradient has wrong shape: expected "
                                 f"{data[param].shape}, got {grad.shape}")
            if np.any(grad):
                raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numerical(run: _Runner, y_size: int, y_dtype: Any, xs: List[Tensor],
               data: List[np.ndarray], param: int, delta: float) -> np.ndarray:
    x_dtype = xs[param].dtype
    real_x = x_dtype.real_dtype.as_numpy_dtype
    real_y = y_dtype.real_dtype.as_numpy_dtype
    x_size = data[param].size * (2 if x_dtype.is_complex else 1)
    held = _jacobian_dtype(x_dtype)
    jacobian = np.zeros((y_size * (2 if y_dtype.is_complex else 1), x_size), dtype=held)
    values = list(data)
    # One C-ordered 1-D buffer, and the input as a reshape of it: a reshape of a
    # contiguous 1-D array is always a view, so writing `flat` perturbs the input
    # whatever the caller's layout (Fortran-ordered, strided, 0-d).
    buffer = np.array(data[param], order="C").reshape(-1)
    values[param] = buffer.reshape(np.shape(data[param]))
    flat = buffer.view(real_x)
    wide_y = _jacobian_dtype(y_dtype)   # bfloat16 outputs are differenced in float32
    scale = np.asarray(2 * delta, dtype=wide_y)[()]
    for col in range(x_size):
        original = flat[col]
        flat[col] = original + delta
        y_pos = _real_row(run(*values), real_y, wide_y)
        flat[col] = original - delta
        y_neg = _real_row(run(*values), real_y, wide_y)
        flat[col] = original
        jacobian[:, col] = (y_pos - y_neg) / scale
    return jacobian


def _check_dtype(dtype: Any, what: str) -> None:
    assert dtype.base_dtype in _CHECKABLE or dtype.name in _CHECKABLE_NAMES, (
        f"Cannot compute gradient for unsupported type {dtype.name} of {what}")


def compute_gradient(f: Any, x: Any = None, delta: float = 1e-3, *args: Any,
                     **kwargs: Any) -> Tuple[Tuple[np.ndarray, ...], Tuple[np.ndarray, ...]]:
    """(theoretical, numerical) Jacobians of `f` at `x` (a list of inputs), one per input.

    Each has shape (y.size, x_i.size), doubled per complex side; entry [k, j]
    is dy_k / dx_ij, as `tf.test.compute_gradient`. Raises ValueError when `x`
    is not a list or tuple, or when f's output is empty but its gradient is not.
    """
    if not callable(f):
        # a graph tensor `f` (v1 calling convention) gets v1's (theoretical, numerical) pairs
        return gradient_checker_v1.compute_gradient(f, x, delta, *args, **kwargs)  # type: ignore[return-value]
    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of values convertible to a Tensor "
                         f"(arguments to `f`), not a {type(x)}")
    xs = [convert_to_tensor(v) for v in x]
    data = [np.array(_to_numpy(v), order="C") for v in xs]
    run = _prepare(f, xs)
    y = np.asarray(run(*data))
    y_dtype = dtypes.as_dtype(y.dtype)
    theoretical, numerical = [], []
    for param, x_tensor in enumerate(xs):
        _check_dtype(x_tensor.dtype, f"argument {param}")
        _check_dtype(y_dtype, "y")
        returned = x_tensor.dtype.real_dtype.as_numpy_dtype   # bfloat16's stay bfloat16
        theoretical.append(_theoretical(f, y.shape, y_dtype, xs, data, param).astype(
            returned, copy=False))
        numerical.append(_numerical(run, y.size, y_dtype, xs, data, param, delta).astype(
            returned, copy=False))
    return tuple(theoretical), tuple(numerical)


def max_error(grad1: Sequence[np.ndarray], grad2: Sequence[np.ndarray]) -> float:
    """The largest absolute difference between two lists of Jacobians."""
    error = 0.0
    for a, b in zip(grad1, grad2, strict=True):
        if a.size or b.size:
            error = max(error, float(np.max(np.abs(np.asarray(a) - np.asarray(b)))))
    return error


__all__ = ["compute_gradient"]
