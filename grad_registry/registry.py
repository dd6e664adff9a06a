"""RegisterGradient / NotDifferentiable / get_gradient_function: one registry, both modes."""
from __future__ import annotations

from typing import Any, Callable, Container, Optional, Sequence

from ..framework.registry import gradient_functions, gradients_accepting_none


class RegisterGradient:
    """Decorator registering `fn(op, *output_grads) -> input grads` for an op type.

    `accepts_none` lists output indices whose missing gradient the function
    takes as None instead of zeros (saves building zeros it would ignore).
    """

    def __init__(self, op_type: str, accepts_none: Sequence[int] = ()) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type
        self._accepts_none = frozenset(accepts_none)

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


def get_gradient_function(op: Any) -> Optional[Callable]:
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


def accepts_none(op: Any) -> Container[int]:
    """Output indices at which `op`'s gradient function takes None for no gradient."""
    return gradients_accepting_none.get(op.gradient_name, frozenset())


def _op_name(op: Any) -> str:
    return getattr(op, "name", op.type)
