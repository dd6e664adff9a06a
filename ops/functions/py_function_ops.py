"""dg.py_function: a Python function on eager tensors as an op (TF's EagerPyFunc).

Eagerly `func` simply runs, so the ops it calls are recorded on open tapes.
In a graph the `EagerPyFunc` op runs `func` at execution time, in eager
mode, on eager tensors; its outputs have unknown shapes. Unlike
numpy_function it is differentiable: the gradient (grad_registry/
py_function_grad.py) is another EagerPyFunc that reruns `func` under a tape.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, List, Optional, Sequence

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...framework.errors import InvalidArgumentError, from_python_error
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op

_state = context.state


@contextlib.contextmanager
def eager_execution() -> Iterator[None]:
    """Runs the body eagerly, with no tapes of the caller recording it."""
    saved = _state.tapes, _state.accumulators
    _state.tapes, _state.accumulators = [], []
    context.push_graph(None)
    try:
        yield
    finally:
        context.pop_graph(None)
        _state.tapes, _state.accumulators = saved


def _as_outputs(func: Callable, result: Any, tout: tuple) -> List[Any]:
    """func's result as tensors of the declared dtypes."""
    values = list(result) if isinstance(result, (list, tuple)) else \
        ([] if result is None and not tout else [result])
    if len(values) != len(tout):
        raise InvalidArgumentError(None, None, (
            f"py_function {getattr(func, '__name__', func)!r} returned {len(values)} values, "
            f"expected {len(tout)} (Tout={[t.name for t in tout]})"))
    outs = []
    for k, (value, dtype) in enumerate(zip(values, tout, strict=True)):
        tensor = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtype)
        if tensor.dtype != dtype:
            raise InvalidArgumentError(None, None, (
                f"py_function {getattr(func, '__name__', func)!r}: result {k} has dtype "
                f"{tensor.dtype.name}, expected {dtype.name}"))
        outs.append(tensor)
    return outs


def _call(func: Callable, inputs: Sequence[Any]) -> Any:
    try:
        return func(*inputs)
    except Exception as error:  # noqa: BLE001 - every Python error becomes TF's status
        raise from_python_error(
            error, f"in the py_function {getattr(func, '__name__', 'func')!r}") from error


def _kernel(resources: Any, *arrays: np.ndarray, func: Callable, Tout: tuple) -> list:  # noqa: N803
    with eager_execution():
        outs = _as_outputs(func, _call(func, [constant(a) for a in arrays]), Tout)
        return [np.asarray(t.numpy()) for t in outs]


def _infer(inputs: Any, attrs: dict) -> list:
    return [(dtype, TensorShape(None)) for dtype in attrs["Tout"]]


# side_effects: inside dg.function it runs (in program order) even when nothing reads it
EAGER_PY_FUNC = declare_op("EagerPyFunc", _kernel, _infer, num_outputs=-1, stateful=True,
                           grad_inputs=None, grad_outputs=(), side_effects=True)


def py_function(func: Optional[Callable] = None, inp: Optional[Sequence[Any]] = None,
                Tout: Any = None, name: Optional[str] = None) -> Any:  # noqa: N803 (TF's name)
    """Runs `func(*tensors)` as an op; one tensor if `Tout` is a dtype, else a list.

    Without `func` it is a decorator, as TF's: `@py_function(Tout=dg.float32)` makes
    `f(*inputs)` run `py_function(f, inputs, Tout)`."""
    if func is None:
        def decorator(fn: Callable) -> Callable:
            @functools.wraps(fn)
            def wrapped(*args: Any) -> Any:
                return py_function(fn, list(args), Tout, name)
            return wrapped
        return decorator
    if inp is None:
        return py_function(None, None, Tout, name)(func)
    if not callable(func):
        raise TypeError(f"func must be callable, got {func!r}")
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    tout = () if Tout is None else tuple(dtypes.as_dtype(t) for t in ([Tout] if single else Tout))
    inputs = [convert_to_tensor(x) for x in inp]
    if _state.graph is None:
        outputs = _as_outputs(func, _call(func, inputs), tout)
    else:
        outputs = apply_op(EAGER_PY_FUNC, inputs, {"func": func, "Tout": tout},
                           name or "EagerPyFunc")
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else []
    if Tout is None:
        return None
    return outputs[0] if single else outputs


__all__ = ["py_function"]
