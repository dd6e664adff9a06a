"""Gradient of placeholder_with_default (ops/array/static_value_ops.py): the identity, as TF's."""
from __future__ import annotations

from ..ops.array.static_value_ops import PLACEHOLDER_WITH_DEFAULT
from .registry import RegisterGradient


@RegisterGradient(PLACEHOLDER_WITH_DEFAULT.type)
def _placeholder_with_default_grad(op, grad):
    """grad: the op passes its input through."""
    return grad
