"""numpy_function: a Python function on NumPy arrays as an op, in both modes.

The kernel calls `func` on the input arrays and checks what comes back
against `Tout`. In graph mode the outputs have unknown shapes (the function
is opaque until it runs). Like TensorFlow's PyFunc ops it has no gradient of
its own; wrap the call in `custom_gradient` to make it differentiable
(tensorflow/tensorflow#32964).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op


def _results(func: Callable, arrays: Sequence[np.ndarray], Tout: tuple) -> list:  # noqa: N803
    """func's return value as arrays of the declared dtypes; ValueError otherwise."""
    out = func(*arrays)
    values = list(out) if isinstance(out, (list, tuple)) else [out]
    if len(values) != len(Tout):
        raise ValueError(f"numpy_function {getattr(func, '__name__', func)!r} returned "
                         f"{len(values)} values, expected {len(Tout)} (Tout={list(Tout)})")
    arrays_out = []
    for i, (value, dtype) in enumerate(zip(values, Tout, strict=True)):
        array = np.asarray(value)
        target = np.dtype(dtype.as_numpy_dtype)
        if array.dtype != target:
            if not np.can_cast(array.dtype, target, casting="same_kind") and array.size:
                raise ValueError(f"numpy_function {getattr(func, '__name__', func)!r} result "
                                 f"{i} has dtype {array.dtype}, expected {dtype.name}")
            array = array.astype(target)
        arrays_out.append(array)
    return arrays_out


def _stateful_kernel(resources: Any, *arrays: np.ndarray, func: Callable,
                     Tout: tuple) -> list:  # noqa: N803
    return _results(func, arrays, Tout)


def _stateless_kernel(*arrays: np.ndarray, func: Callable, Tout: tuple) -> list:  # noqa: N803
    return _results(func, arrays, Tout)


def _infer(inputs: Any, attrs: dict) -> list:
    return [(dtype, TensorShape(None)) for dtype in attrs["Tout"]]


# TensorFlow's op types: PyFunc (may have side effects) and PyFuncStateless.
PY_FUNC = declare_op("PyFunc", _stateful_kernel, _infer, num_outputs=-1, stateful=True,
                     grad_inputs=(), side_effects=True)
PY_FUNC_STATELESS = declare_op("PyFuncStateless", _stateless_kernel, _infer, num_outputs=-1,
                               grad_inputs=())


def numpy_function(func: Callable, inp: Sequence[Any], Tout: Any,  # noqa: N803 (TF's name)
                   stateful: bool = True, name: Optional[str] = None) -> Any:
    """Runs `func(*arrays)` as an op; returns one tensor if `Tout` is a dtype, else a list."""
    if not callable(func):
        raise TypeError(f"func must be callable, got {func!r}")
    single = not isinstance(Tout, (list, tuple))
    tout = tuple(dtypes.as_dtype(t) for t in ([Tout] if single else Tout))
    inputs = [convert_to_tensor(x) for x in inp]
    op_def = PY_FUNC if stateful else PY_FUNC_STATELESS
    outputs = apply_op(op_def, inputs, {"func": func, "Tout": tout},
                       name or ("PyFunc" if stateful else "PyFuncStateless"))
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else []
    if single:
        return outputs[0]
    return outputs


__all__ = ["numpy_function"]
