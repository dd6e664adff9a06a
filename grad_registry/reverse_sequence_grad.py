"""The gradient of ReverseSequence (ops/array/reverse_sequence_ops.py): the same reversal."""
from __future__ import annotations

from ..ops.array.reverse_sequence_ops import REVERSE_SEQUENCE, reverse_sequence
from .registry import RegisterGradient


@RegisterGradient(REVERSE_SEQUENCE.type)
def _reverse_sequence_grad(op, grad):
    """(reverse_sequence(grad, seq_lengths), None)."""
    return (reverse_sequence(grad, op.inputs[1], op.get_attr("seq_dim"),
                             op.get_attr("batch_dim")), None)
