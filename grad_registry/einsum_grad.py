"""Gradient of Einsum (ops/math/einsum_ops.py): the transposed einsum."""
from __future__ import annotations

from ..ops.array import array_ops
from ..ops.math import einsum_ops
from ..ops.math.complex_ops import conj_if_complex as conj
from ..ops.math.einsum_ops import EINSUM, ELLIPSIS, LETTERS, format_equation, parse_equation
from .broadcast import unbroadcast
from .registry import RegisterGradient


def _spell_out_ellipsis(terms, out, inputs):
    """The terms with each "..." replaced by letters (right-aligned, as broadcasting is)."""
    if not any(ELLIPSIS in t for t in terms):
        return terms, out
    free = [c for c in LETTERS if c not in "".join(terms) + out]
    counts = []
    for term, x in zip(terms, inputs, strict=True):
        if ELLIPSIS in term and x.shape.rank is None:
            raise ValueError("the gradient of an einsum with '...' needs operands of known rank")
        counts.append(x.shape.rank - len(term) + 1 if ELLIPSIS in term else 0)
    letters = "".join(free[:max(counts)])
    terms = [t.replace(ELLIPSIS, letters[len(letters) - n:] if n else "")
             for t, n in zip(terms, counts, strict=True)]
    return terms, out.replace(ELLIPSIS, letters)


@RegisterGradient(EINSUM.type)
def _einsum_grad(op, grad):
    """d input_i = einsum(out, other terms -> term_i)(grad, conj(other inputs)).

    Labels only input i has are restored by a ones_like(input_i) operand, repeated
    labels by the kernel's diagonal write, broadcast dims by unbroadcast.
    """
    inputs = op.inputs
    terms, out = parse_equation(op.get_attr("equation"), len(inputs))
    terms, out = _spell_out_ellipsis(terms, out, inputs)
    skip = op.skip_input_indices
    grads = []
    for i, (term, x) in enumerate(zip(terms, inputs, strict=True)):
        if i in skip:
            grads.append(None)
            continue
        others = [j for j in range(len(inputs)) if j != i]
        subscripts = [out] + [terms[j] for j in others]
        operands = [grad] + [conj(inputs[j]) for j in others]
        if any(c not in "".join(subscripts) for c in term):
            subscripts.append(term)
            operands.append(array_ops.ones_like(x))
        dx = einsum_ops.einsum(format_equation(subscripts, term), *operands)
        grads.append(unbroadcast(dx, x))
    return grads
