"""Gradients of the debugging ops (ops/debugging/check_ops.py) and of PrintV2."""
from __future__ import annotations

from typing import Any

from ..ops.debugging.check_ops import ASSERT, CHECK_NUMERICS, check_numerics
from ..ops.debugging.print_ops import PRINT_V2
from .registry import NotDifferentiable, RegisterGradient


@RegisterGradient(CHECK_NUMERICS.type)
def _check_numerics_grad(op: Any, grad: Any) -> Any:
    """Returns grad, checked for NaN and Inf as TF does."""
    return check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in "
                                f"gradient. {op.get_attr('message')}")


NotDifferentiable(ASSERT.type)
NotDifferentiable(PRINT_V2.type)
