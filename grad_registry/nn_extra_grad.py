"""Gradient of softsign (ops/nn/nn_extra_ops.py), as TF's."""
from __future__ import annotations

from ..ops.math import math_ops
from ..ops.nn.nn_extra_ops import SOFTSIGN
from .registry import RegisterGradient


@RegisterGradient(SOFTSIGN.type)
def _softsign_grad(op, grad):
    """grad / (1 + |x|)**2."""
    return grad / math_ops.square(1 + math_ops.abs(op.inputs[0]))
