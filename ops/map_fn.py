"""dg.map_fn: apply a function to each element along axis 0 (TF's map_fn).

Eagerly a Python loop; in a graph a while_loop reading the elements from
TensorArrays and writing each result to one, so it is one While op,
differentiable like any loop. `elems` may be a nested structure; the results
have the structure of `fn_output_signature` (or `dtype`), by default that of
`elems`.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..eager import context
from ..framework import dtypes, nest
from ..framework.tensor_spec import TensorSpec
from .array_ops import shape
from .constant_op import convert_to_tensor
from .join_ops import stack, unstack
from .tensor_array_ops import TensorArray
from .while_loop_ops import while_loop

_state = context.state


def _output_dtypes(signature: Any, elems: Any) -> Any:
    if signature is None:
        return nest.map_structure(lambda t: t.dtype, elems)
    return nest.map_structure(
        lambda s: s.dtype if isinstance(s, TensorSpec) else dtypes.as_dtype(s), signature)


def map_fn(fn: Callable, elems: Any, dtype: Any = None, parallel_iterations: Optional[int] = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: Optional[str] = None, fn_output_signature: Any = None) -> Any:
    """`stack([fn(e) for e in unstack(elems)])` over the first axis of `elems`."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    elems = nest.map_structure(convert_to_tensor, elems)
    flat = nest.flatten(elems)
    if not flat:
        raise ValueError("elems must be a Tensor or a nested structure of Tensors, got none.")
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars: {t}")
    out_dtypes = _output_dtypes(fn_output_signature if fn_output_signature is not None
                                else dtype, elems)
    if _state.graph is None:
        n = int(flat[0].shape[0])
        rows = [nest.flatten(fn(nest.pack_sequence_as(elems, [unstack(t)[i] for t in flat])))
                for i in range(n)]
        if not rows:
            raise ValueError("map_fn over zero elements needs a graph (unknown output shape)")
        columns = zip(*rows, strict=True)
        return nest.pack_sequence_as(out_dtypes, [stack(list(col)) for col in columns])
    n = flat[0].shape[0] if flat[0].shape[0] is not None else shape(flat[0])[0]
    inputs = [TensorArray(t.dtype, size=n, element_shape=t.shape[1:]).unstack(t) for t in flat]
    outputs = [TensorArray(d, size=n) for d in nest.flatten(out_dtypes)]

    def body(i, outs):
        value = fn(nest.pack_sequence_as(elems, [ta.read(i) for ta in inputs]))
        results = nest.flatten(value)
        if len(results) != len(outs):
            raise ValueError(f"fn returned {len(results)} tensors, expected {len(outs)} "
                             "(set fn_output_signature for another output structure)")
        return i + 1, [ta.write(i, r) for ta, r in zip(outs, results, strict=False)]

    _, outputs = while_loop(lambda i, _: i < n, body, [0, outputs], back_prop=back_prop,
                            name=name or "map")
    return nest.pack_sequence_as(out_dtypes, [ta.stack() for ta in outputs])


__all__ = ["map_fn"]
