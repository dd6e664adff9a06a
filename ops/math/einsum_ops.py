"""einsum (any subscripts NumPy accepts, ellipsis included) and tensordot on top of it.

One op, Einsum, whose `equation` attr is always explicit (`ins->out`). As in
TensorFlow's kernel, a label may repeat in the output (`i->ii` writes a
diagonal): the gradient of a diagonal read (`ii->i`) needs it. Gradient:
grad_registry/einsum_grad.py (the transposed einsum).
"""
from __future__ import annotations

import functools
import string
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape, broadcast_shapes
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..shape_rules import check_same_dtype

LETTERS = string.ascii_letters
ELLIPSIS = "."  # "..." is held as this one character while parsing


def parse_equation(equation: str, num_inputs: Optional[int] = None) -> Tuple[List[str], str]:
    """(input terms, output term) with "..." as "."; an implicit output is made explicit
    the way NumPy does (ellipsis first, then the labels seen once, sorted)."""
    terms, out = _parse(equation)
    if num_inputs is not None and len(terms) != num_inputs:
        raise ValueError(f"einsum equation {equation!r} names {len(terms)} operands "
                         f"but {num_inputs} were given")
    return list(terms), out


@functools.lru_cache(maxsize=512)
def _parse(equation: str) -> Tuple[Tuple[str, ...], str]:
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    for term in terms + ([rhs] if arrow else []):
        body = term.replace("...", ELLIPSIS)
        if ELLIPSIS in term.replace("...", "") or body.count(ELLIPSIS) > 1 or \
                any(c not in LETTERS and c != ELLIPSIS for c in body):
            raise ValueError(f"invalid einsum subscripts {term!r} in equation {equation!r}")
    terms = [t.replace("...", ELLIPSIS) for t in terms]
    if arrow:
        out = rhs.replace("...", ELLIPSIS)
        seen = set("".join(terms))
        for c in out:
            if c != ELLIPSIS and c not in seen:
                raise ValueError(f"einsum output label {c!r} does not appear in the inputs "
                                 f"of {equation!r}")
        if ELLIPSIS in out and not any(ELLIPSIS in t for t in terms):
            raise ValueError(f"einsum output has an ellipsis the inputs lack: {equation!r}")
    else:
        joined = "".join(terms)
        once = sorted(c for c in set(joined) if c != ELLIPSIS and joined.count(c) == 1)
        out = (ELLIPSIS if ELLIPSIS in joined else "") + "".join(once)
    return tuple(terms), out


def format_equation(terms: Sequence[str], out: str) -> str:
    return (",".join(terms) + "->" + out).replace(ELLIPSIS, "...")


def _dedupe(term: str) -> str:
    return "".join(c for i, c in enumerate(term) if c not in term[:i])


def _einsum_kernel(*operands, equation):
    terms, out = parse_equation(equation)
    optimize = len(operands) > 2
    unique = _dedupe(out)
    if unique == out:
        return np.asarray(np.einsum(equation, *operands, optimize=optimize))
    # A repeated output label: compute the distinct labels, then write the diagonal.
    value = np.asarray(np.einsum(format_equation(terms, unique), *operands, optimize=optimize))
    n_ell = value.ndim - len(unique.replace(ELLIPSIS, ""))
    sizes, position = {}, 0
    for c in unique:
        if c == ELLIPSIS:
            sizes[c] = value.shape[position:position + n_ell]
            position += n_ell
        else:
            sizes[c] = (value.shape[position],)
            position += 1
    result = np.zeros(sum((sizes[c] for c in out), ()), value.dtype)
    np.einsum(format_equation([out], unique), result)[...] = value
    return result


def _term_dims(term: str, shape: TensorShape, sizes: dict, name: str):
    """Merges the label sizes of one operand into `sizes`; returns its ellipsis shape."""
    labels = term.replace(ELLIPSIS, "")
    if shape.rank is None:
        for c in labels:
            sizes.setdefault(c, None)
        return TensorShape(None)
    n_ell = shape.rank - len(labels)
    if n_ell < 0 or (n_ell > 0 and ELLIPSIS not in term):
        raise ValueError(f"einsum operand {name} of shape {shape} does not match "
                         f"subscripts {term.replace(ELLIPSIS, '...')!r}")
    dims, ell = shape.as_list(), TensorShape(())
    if ELLIPSIS in term:
        start = term.index(ELLIPSIS)
        ell = TensorShape(tuple(dims[start:start + n_ell]))
        del dims[start:start + n_ell]
    for c, d in zip(labels, dims, strict=True):
        sizes[c] = _merge_label(c, sizes[c], d, name, shape) if c in sizes else d
    return ell


def _merge_label(label: str, old, new, name: str, shape: TensorShape):
    """Two sizes of one label: equal, or one of them 1 (NumPy broadcasts it)."""
    if old is None:
        return None if new == 1 else new
    if new is None:
        return None if old == 1 else old
    if old == 1 or new == 1 or old == new:
        return new if old == 1 else old
    raise ValueError(f"einsum label {label!r} has size {old} and {new} (operand {name} "
                     f"of shape {shape})")


def _einsum_infer(inputs, attrs):
    terms, out = parse_equation(attrs["equation"], len(inputs))
    dtype = check_same_dtype(inputs)
    sizes: dict = {}
    ell = TensorShape(())
    for i, (term, t) in enumerate(zip(terms, inputs, strict=True)):
        ell = broadcast_shapes(ell, _term_dims(term, t.shape, sizes, f"#{i}"))
    if ELLIPSIS in out and ell.rank is None:
        return [(dtype, TensorShape(None))]
    dims: tuple = ()
    for c in out:
        dims += tuple(ell.dims) if c == ELLIPSIS else (sizes.get(c),)
    return [(dtype, TensorShape(dims))]


EINSUM = declare_op("Einsum", _einsum_kernel, _einsum_infer, input_kinds="fciu",
                    same_dtype=slice(None))


def einsum(equation: str, *inputs: Any, name: Optional[str] = None, **kwargs: Any):
    """Einstein summation over `inputs` as NumPy's einsum (implicit or explicit output,
    ellipsis broadcasting, repeated labels for diagonals)."""
    kwargs.pop("optimize", None)  # TF's contraction-order hint: NumPy chooses here
    if kwargs:
        raise TypeError(f"einsum got unexpected keyword arguments {sorted(kwargs)}")
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    tensors = [convert_to_tensor(x) for x in inputs]
    terms, out = parse_equation(equation, len(tensors))
    return apply_op(EINSUM, tensors, {"equation": format_equation(terms, out)}, name)


def _tensordot_axes(axes: Any, rank_a: int, rank_b: int) -> Tuple[List[int], List[int]]:
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= min(rank_a, rank_b):
            raise ValueError(f"tensordot axes {axes} must be in [0, {min(rank_a, rank_b)}]")
        return list(range(rank_a - axes, rank_a)), list(range(axes))
    axes = [list(np.atleast_1d(np.asarray(a)).tolist()) for a in axes]
    if len(axes) != 2 or len(axes[0]) != len(axes[1]):
        raise ValueError(f"tensordot axes must be an int or two lists of equal length, got {axes}")
    a_axes = [int(x) % rank_a for x in axes[0]]
    b_axes = [int(x) % rank_b for x in axes[1]]
    return a_axes, b_axes


def tensordot(a: Any, b: Any, axes: Any, name: Optional[str] = None):
    """Sum of products over a's `axes[0]` and b's `axes[1]` (an int N: a's last N with
    b's first N); the free axes of a then of b remain."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    rank_a, rank_b = a.shape.rank, b.shape.rank
    if rank_a is None or rank_b is None:
        raise ValueError("tensordot needs operands of known rank")
    a_axes, b_axes = _tensordot_axes(axes, rank_a, rank_b)
    a_term = list(LETTERS[:rank_a])
    b_term = list(LETTERS[rank_a:rank_a + rank_b])
    for i, j in zip(a_axes, b_axes, strict=True):
        b_term[j] = a_term[i]
    out = [c for i, c in enumerate(a_term) if i not in a_axes] + \
        [c for j, c in enumerate(b_term) if j not in b_axes]
    return einsum(format_equation(["".join(a_term), "".join(b_term)], "".join(out)), a, b,
                  name=name)


__all__ = ["einsum", "tensordot"]
