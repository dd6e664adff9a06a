"""map_fn and scan (tf.map_fn, tf.scan): a while_loop over TensorArrays, as TensorFlow.

Both run `fn` once per slice along axis 0 of `elems` (any nesting), in both
modes, and are differentiable through the loop and its TensorArrays. This is
the one map_fn: `dg.map_fn` and the control-flow API (ops/control_flow/control_flow_api.py)
both export it.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from ...eager import context
from ...framework import dtypes, nest
from ...framework.graph import SymbolicTensor
from ...framework.tensor_spec import TensorSpec
from ..array.array_ops import shape as shape_of, stop_gradient
from ..constant_op import convert_to_tensor
from .tensor_array_ops import TensorArray
from .while_loop_ops import while_loop


def _length(flat: List[Any]) -> Any:
    """The number of slices along axis 0 (static when known)."""
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors; "
                         "got an empty structure.")
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars: {t}")
    first = flat[0].shape.as_list()[0] if flat[0].shape.rank is not None else None
    return first if first is not None else shape_of(flat[0])[0]


def _unstacked(flat: List[Any], n: Any) -> List[TensorArray]:
    return [TensorArray(t.dtype, size=n, element_shape=t.shape[1:] if t.shape.rank else None)
            .unstack(t) for t in flat]


def _stacked(ta: TensorArray, n: Any) -> Any:
    """The TensorArray stacked, with its static length when known (graph mode)."""
    out = ta.stack()
    if isinstance(n, int) and isinstance(out, SymbolicTensor) and out.shape.rank is not None:
        out.set_shape([n] + out.shape.as_list()[1:])
    return out


def _dtype_of(spec: Any) -> Any:
    return spec.dtype if isinstance(spec, TensorSpec) else dtypes.as_dtype(spec)


def map_fn(fn: Callable, elems: Any, dtype: Any = None, parallel_iterations: Optional[int] = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: Optional[str] = None, fn_output_signature: Any = None) -> Any:
    """fn(elems[i]) for every i, stacked; the output structure is `fn_output_signature`
    (or `dtype`), or that of `elems` when neither is given. One While op in a graph, so
    differentiable (to any order) like any loop; `back_prop=False` stops its gradients.
    `parallel_iterations` and `swap_memory` are accepted for TF's signature (one loop runs
    its iterations in order here)."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    n = _length(flat)
    inputs = _unstacked(flat, n)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    out_structure = elems if signature is None else signature
    out_dtypes = ([t.dtype for t in flat] if signature is None
                  else [_dtype_of(s) for s in nest.flatten(signature)])
    outputs = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]

    def body(i: Any, tas: List[TensorArray]):
        piece = nest.pack_sequence_as(elems, [ta.read(i) for ta in inputs])
        result = nest.flatten(fn(piece))
        if len(result) != len(tas):
            raise ValueError(f"The structure of fn's output ({len(result)} tensors) does not "
                             f"match fn_output_signature/dtype ({len(tas)}); set "
                             "fn_output_signature for another output structure.")
        return i + 1, [ta.write(i, r) for ta, r in zip(tas, result, strict=True)]

    _, outputs = while_loop(lambda i, _: i < n, body, (0, outputs),
                            maximum_iterations=n, name=name or "map")
    results = [_stacked(ta, n) for ta in outputs]
    if not back_prop and not context.executing_eagerly():   # TF: eagerly back_prop is ignored
        results = [stop_gradient(t) for t in results]
    return nest.pack_sequence_as(out_structure, results)


def scan(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: Optional[str] = None) -> Any:
    """The running values a_i = fn(a_{i-1}, elems[i]), stacked (a_0 = initializer, or
    elems[0] when there is none); `reverse` runs from the last slice to the first."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    n = _length(flat)
    inputs = _unstacked(flat, n)

    def piece(i: Any) -> Any:
        return nest.pack_sequence_as(elems, [ta.read(i) for ta in inputs])

    last = n - 1
    if initializer is None:
        state = piece(last if reverse else 0)
        start = 1
    else:
        state = nest.map_structure(convert_to_tensor, initializer)
        start = 0
    flat_state = nest.flatten(state)
    outputs = [TensorArray(t.dtype, size=n) for t in flat_state]
    if initializer is None:
        outputs = [ta.write(last if reverse else 0, t) for ta, t in zip(outputs, flat_state, strict=True)]

    def body(i: Any, a: List[Any], tas: List[TensorArray]):
        index = last - i if reverse else i
        result = fn(nest.pack_sequence_as(state, a), piece(index))
        nest.assert_same_structure(state, result)  # TF: ValueError, not a dropped output
        value = nest.flatten(result)
        return i + 1, value, [ta.write(index, v) for ta, v in zip(tas, value, strict=True)]

    _, _, outputs = while_loop(lambda i, a, tas: i < n, body, (start, flat_state, outputs),
                               name=name or "scan")
    return nest.pack_sequence_as(state, [_stacked(ta, n) for ta in outputs])


__all__ = ["map_fn", "scan"]
