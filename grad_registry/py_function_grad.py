"""EagerPyFunc's gradient: another py_function that reruns `func` under a tape."""
from __future__ import annotations

from typing import Any

from ..eager.backprop import GradientTape
from ..ops.array.array_ops import reshape, shape
from ..ops.functions.py_function_ops import EAGER_PY_FUNC, py_function
from .unconnected import UnconnectedGradients
from .registry import RegisterGradient, calls_user_code


def _differentiable(dtype: Any) -> bool:
    return dtype.is_floating or dtype.is_complex


@RegisterGradient(EAGER_PY_FUNC.type)
@calls_user_code
def _eager_py_func_grad(op: Any, *grads: Any) -> list:
    """Returns the VJP of `func` at the op's inputs (func rerun under a tape)."""
    func = op.get_attr("func")
    xs = list(op.inputs)
    wanted = [k for k, x in enumerate(xs) if _differentiable(x.dtype)]

    def vjp(*args: Any) -> list:
        inputs, upstream = list(args[:len(xs)]), list(args[len(xs):])
        with GradientTape() as tape:
            tape.watch([inputs[k] for k in wanted])
            ys = func(*inputs)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        return tape.gradient(ys, [inputs[k] for k in wanted], output_gradients=upstream,
                             unconnected_gradients=UnconnectedGradients.ZERO)

    dxs = py_function(vjp, xs + list(grads), [xs[k].dtype for k in wanted]) if wanted else []
    result: list = [None] * len(xs)
    for k, dx in zip(wanted, dxs, strict=True):
        result[k] = reshape(dx, shape(xs[k]))  # the input's static shape, for later ops
    return result
