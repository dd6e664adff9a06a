"""RegisterGradient / NotDifferentiable / get_gradient_function: one registry, both modes.

This module is the one door to the gradient table (framework/registry.py holds
it): engines find a function with `find_gradient` or `get_gradient_function`,
and ask `is_pure` before they trace one for reuse.

The reuse rule (docs/architecture.md): a gradient function may be traced once and
its trace replayed (an adjoint program, a Jacobian plan, a replayed gradient) only
when it is pure: one of duograd's own gradient functions (defined in the duograd
package: `grad_registry` and the few op families that register their own), whose
contract is to compute from the op view and the output gradients alone, through
ops (no Python state, no value read, no user code), and not marked
`calls_user_code`. Every other function (registered by a user,
reached through `gradient_override_map`, a `custom_gradient`'s) runs as Python on
every backward pass, as in TensorFlow's eager mode.
"""
from __future__ import annotations

from typing import Any, Callable, Container, Optional, Sequence, Union

from ..framework.registry import gradient_functions, gradients_accepting_none
from .op_view import OpView

NOT_REGISTERED = object()
_LIBRARY = __name__.split(".", 1)[0] + "."   # "duograd."


class AllOutputs:
    """`i in ALL_OUTPUTS` is always true: a gradient function that takes None for any
    output's missing gradient (`RegisterGradient(..., accepts_none=ALL_OUTPUTS)`)."""

    def __contains__(self, index: object) -> bool:
        return True


ALL_OUTPUTS = AllOutputs()


class RegisterGradient:
    """Decorator registering `fn(op, *output_grads) -> input grads` for an op type.

    `accepts_none` lists output indices whose missing gradient the function
    takes as None instead of zeros (saves building zeros it would ignore), or is
    `ALL_OUTPUTS`.
    """

    def __init__(self, op_type: str,
                 accepts_none: Union[Sequence[int], AllOutputs] = ()) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type
        self._accepts_none: Container[int] = accepts_none \
            if isinstance(accepts_none, AllOutputs) else frozenset(accepts_none)

    def __call__(self, fn: Callable) -> Callable:
        gradient_functions.register(self._op_type, fn)
        if self._accepts_none:
            gradients_accepting_none[self._op_type] = self._accepts_none
        return fn


def NotDifferentiable(op_type: str) -> None:  # noqa: N802 (TF's name)
    """Declares that ops of `op_type` have no gradient (their inputs get None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    gradient_functions.register(op_type, None)


NoGradient = NotDifferentiable


def calls_user_code(fn: Callable) -> Callable:
    """Marks one of duograd's own gradient functions that runs code the user wrote
    (a py_function's function, a function body's gradients): it is not pure, and is
    never traced for reuse (see the module docstring). Apply below RegisterGradient."""
    fn.calls_user_code = True  # type: ignore[attr-defined]
    return fn


def find_gradient(name: str) -> Any:
    """The function registered under `name`: None for a non-differentiable op type,
    NOT_REGISTERED when nothing is (`get_gradient_function` raises the error)."""
    return gradient_functions.get(name, NOT_REGISTERED)


def is_pure(name: str) -> bool:
    """Whether the gradient registered under `name` may be traced and its trace reused:
    None (no gradient) or one of duograd's own functions not marked `calls_user_code`."""
    fn = gradient_functions.get(name, NOT_REGISTERED)
    if fn is None:
        return True
    if fn is NOT_REGISTERED or getattr(fn, "calls_user_code", False):
        return False
    return (getattr(fn, "__module__", None) or "").startswith(_LIBRARY)


def get_gradient_function(op: OpView) -> Optional[Callable]:
    """The gradient function for `op` (graph Operation or tape entry), honouring
    gradient overrides; None for non-differentiable ops; LookupError if unknown."""
    name = op.gradient_name
    try:
        return gradient_functions.lookup(name)
    except LookupError:
        if name != op.type:
            raise LookupError(f"gradient override for op '{_op_name(op)}' (op type: {op.type}) "
                              f"names gradient '{name}', which is not registered") from None
        raise LookupError(f"No gradient defined for operation '{_op_name(op)}' "
                          f"(op type: {op.type})") from None


def accepts_none(op: OpView) -> Container[int]:
    """Output indices at which `op`'s gradient function takes None for no gradient."""
    return gradients_accepting_none.get(op.gradient_name, frozenset())


def _op_name(op: OpView) -> str:
    return getattr(op, "name", op.type)
