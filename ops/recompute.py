"""recompute_grad and grad_pass_through: two custom gradients built on custom_gradient.

`recompute_grad(f)` keeps only f's inputs for the backward pass: f runs
with every tape and accumulator paused (so none of its activations is
recorded or kept), and its gradient runs f again under a fresh tape. This is
what TensorFlow's version promises and, because its forward ops still land
on the outer tape, does not deliver (tensorflow/tensorflow#36981).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional

from ..eager.backprop import GradientTape
from ..eager.forwardprop import has_tangent
from ..framework import nest
from ..framework.tensor import Tensor
from .array import array_ops
from .custom_gradient import CustomGradientFunction, custom_gradient, is_variable


def _fresh(value: Any) -> Any:
    """A new tensor for a tensor input (so the recomputation has its own sources)."""
    return array_ops.identity(value) if isinstance(value, Tensor) else value


def _differentiable(value: Any) -> bool:
    return is_variable(value) or (isinstance(value, Tensor) and value.dtype.is_differentiable)


def recompute_grad(f: Callable) -> Callable:
    """`f` whose activations are recomputed in the backward pass instead of stored.

    Gradients flow to positional and keyword tensor inputs and to the
    variables `f` reads; values and gradients equal those of `f`.
    """
    def forward(*args: Any, **kwargs: Any):
        result = f(*args, **kwargs)
        kw_names = [k for k, v in kwargs.items()
                    if isinstance(v, Tensor) and v.dtype.is_differentiable or is_variable(v)]

        def grad(*dresult: Any, variables: Optional[List[Any]] = None):
            variables = list(variables or [])
            with GradientTape() as tape:
                fresh_args = [_fresh(a) for a in args]
                fresh_kwargs = {k: _fresh(v) for k, v in kwargs.items()}
                sources = fresh_args + [fresh_kwargs[k] for k in kw_names] + variables
                live = [s for s in sources if _differentiable(s)]
                tape.watch(live)
                again = f(*fresh_args, **fresh_kwargs)
            live_grads = iter(tape.gradient(nest.flatten(again), live,
                                            output_gradients=list(dresult)))
            grads = [next(live_grads) if _differentiable(s) else None for s in sources]
            n = len(args)
            input_grads = (list(grads[:n]) + [dict(zip(kw_names, grads[n:n + len(kw_names)], strict=True))]
                           if kw_names else list(grads[:n]))
            return input_grads, list(grads[n + len(kw_names):])

        return result, grad

    wrapped = CustomGradientFunction(forward, record_forward=False)

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        if has_tangent([args, kwargs]):
            # TF 2.21 refuses forward mode here (its JVP would transpose the recomputing
            # gradient, which stores no activations), with this message.
            raise NotImplementedError(
                f"recompute_grad tried to transpose grad of {getattr(f, '__name__', f)}. "
                "Consider not using recompute_grad in forward modeautodiff")
        return wrapped(*args, **kwargs)
    return call


def grad_pass_through(f: Callable) -> Callable:
    """`f` in the forward pass, the identity in the backward pass.

    E.g. `grad_pass_through(v.assign)(z ** 2)` has value z**2 and gradient 1
    with respect to `z ** 2`; variables `f` reads get no gradient.
    """
    @custom_gradient
    def pass_through(*args: Any, **kwargs: Any):
        def grad(*dys: Any, variables: Optional[List[Any]] = None):
            if variables:
                return list(dys), [None] * len(variables)
            return list(dys)
        return f(*args, **kwargs), grad

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        return pass_through(*args, **kwargs)
    return call


__all__ = ["recompute_grad", "grad_pass_through"]
