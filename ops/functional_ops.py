"""map_fn, scan, foldl and foldr: loops over the first dimension, composed of while_loop
and TensorArrays as in TF, so they are differentiable in both modes."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..framework import dtypes, nest
from ..framework.tensor_spec import TensorSpec
from . import array_ops
from .constant_op import convert_to_tensor
from .tensor_array_ops import TensorArray
from .while_loop_ops import while_loop


def _length(flat: list) -> Any:
    """The number of elements along the first dimension (static when known)."""
    first = flat[0]
    if first.shape.rank == 0:
        raise ValueError("Elements to iterate over must have rank at least 1, got a scalar")
    static = first.shape[0] if first.shape.rank is not None else None
    return static if static is not None else array_ops.shape(first)[0]


def _element(structure: Any, flat: list, i: Any) -> Any:
    """Row i of every tensor (a strided slice: its gradient is dense, as TF's)."""
    return nest.pack_sequence_as(structure, [t[i] for t in flat])


def _signature_dtypes(signature: Any) -> list:
    out = []
    for spec in nest.flatten(signature):
        out.append(spec.dtype if isinstance(spec, TensorSpec) else dtypes.as_dtype(spec))
    return out


def map_fn(fn: Callable, elems: Any, dtype: Any = None, parallel_iterations: Optional[int] = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: Optional[str] = None, fn_output_signature: Any = None) -> Any:
    """fn applied to each element of `elems` (unstacked on the first dimension), stacked.

    The output structure and dtypes are `fn_output_signature` (or `dtype`), else those
    of `elems`, as in TF."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or a (possibly nested) sequence of Tensors")
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if signature is None:
        signature = nest.pack_sequence_as(elems, [t.dtype for t in flat])
    out_dtypes = _signature_dtypes(signature)
    n = _length(flat)
    outputs = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]

    def body(i, tas):
        value = fn(_element(elems, flat, i))
        values = nest.flatten(value)
        if len(values) != len(tas):
            raise ValueError(f"map_fn: fn returned {len(values)} tensors, but the output "
                             f"signature has {len(tas)}")
        return i + 1, [ta.write(i, v) for ta, v in zip(tas, values)]

    _, outputs = while_loop(lambda i, _: i < n, body, (0, outputs),
                            parallel_iterations=parallel_iterations or 10,
                            maximum_iterations=n)
    return nest.pack_sequence_as(signature, [ta.stack() for ta in outputs])


def _accumulate(fn, elems, initializer, reverse, keep_all):
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    n = _length(flat)

    def element(i):
        return _element(elems, flat, i)

    if initializer is None:
        start = n - 1 if reverse else 0
        acc = element(start)
        acc_structure = elems
        first = 1
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
        acc_structure = initializer
        first = 0
    acc_flat = nest.flatten(acc)
    outputs = [TensorArray(t.dtype, size=n) for t in acc_flat]
    if initializer is None and keep_all:
        outputs = [ta.write(n - 1 if reverse else 0, t) for ta, t in zip(outputs, acc_flat)]

    def body(i, acc_flat, tas):
        index = n - 1 - i if reverse else i
        new = fn(nest.pack_sequence_as(acc_structure, acc_flat), element(index))
        new_flat = nest.flatten(new)
        if keep_all:
            tas = [ta.write(index, v) for ta, v in zip(tas, new_flat)]
        return i + 1, new_flat, tas

    _, acc_flat, outputs = while_loop(lambda i, a, t: i < n, body, (first, acc_flat, outputs),
                                      maximum_iterations=n)
    if keep_all:
        return nest.pack_sequence_as(acc_structure, [ta.stack() for ta in outputs])
    return nest.pack_sequence_as(acc_structure, acc_flat)


def scan(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: Optional[str] = None) -> Any:
    """The accumulators fn(acc, x) of every step, stacked (the first is elems[0] when
    there is no initializer)."""
    return _accumulate(fn, elems, initializer, reverse, keep_all=True)


def foldl(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """fn(...fn(fn(initializer, x0), x1)...): the last accumulator, left to right."""
    return _accumulate(fn, elems, initializer, reverse=False, keep_all=False)


def foldr(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """As foldl, right to left."""
    return _accumulate(fn, elems, initializer, reverse=True, keep_all=False)


__all__ = ["map_fn", "scan", "foldl", "foldr"]
