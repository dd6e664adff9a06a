"""dg.switch_case: run the branch picked by an integer index (TF's `Case` op).

Eagerly the chosen Python function runs; in a graph every branch is traced
and one `Case` op (`StatelessCase` when no branch holds a stateful op) runs
the chosen branch graph, with the machinery of dg.cond's `If` op
(cond_ops.build_if). An index out of range runs the last branch (`default`
when given), as TensorFlow's does. Gradient: grad_registry/control_flow_grad.py.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ...eager import context
from ...framework import dtypes
from ...framework.func_graph import unique_graph_name
from ...framework.tensor import Tensor
from .cond_ops import build_if, check_branches, run_branch, trace_branch
from ..constant_op import convert_to_tensor
from ..functions.graph_function import declare_function_ops
from .tensor_array_ops import pack_with_flows

_state = context.state


def _case_kernel(resources: Any, index: Any, *ext: Any, branches: tuple, branch_inputs: tuple,
                 branch_outputs: tuple, output_specs: tuple) -> list:
    b = int(index)
    if not 0 <= b < len(branches):
        b = len(branches) - 1   # out of range: the default (last) branch
    return run_branch(resources, b, ext, branches, branch_inputs, branch_outputs,
                      len(output_specs))


def _case_infer(inputs: Any, attrs: dict) -> list:
    return list(attrs["output_specs"])


CASE, STATELESS_CASE = declare_function_ops("Case", "StatelessCase", _case_kernel,
                                            _case_infer)


def _branch_list(branch_fns: Any, default: Optional[Callable]) -> list:
    """The branches in index order (a list, a dict {index: fn} or (index, fn) pairs),
    `default` last."""
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError(f"branch_fns must be a list, tuple, or dict, got "
                        f"{type(branch_fns).__name__}")
    items = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in items):
        items = list(enumerate(items))
    for pair in items:  # TF's checks, each a TypeError
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"branch_fns must hold callables or (int, callable) pairs, got "
                            f"{pair!r}")
        if not isinstance(pair[0], int):
            raise TypeError(f"branch_fns keys must be ints, got {pair[0]!r}")
        if not callable(pair[1]):
            raise TypeError(f"branch_fns must hold callables, got {pair[1]!r}")
    pairs = sorted(items, key=lambda pair: pair[0])
    if [k for k, _ in pairs] != list(range(len(pairs))):
        raise ValueError(f"branch_fns keys must be 0, 1, ..., n-1, got {[k for k, _ in pairs]}")
    fns = [fn for _, fn in pairs]
    if default is not None:
        fns.append(default)
    if not fns:
        raise ValueError("branch_fns must not be empty.")
    for fn in fns:
        if not callable(fn):
            raise TypeError(f"branch_fns must hold callables, got {fn!r}")
    return fns


def switch_case(branch_index: Any, branch_fns: Any, default: Optional[Callable] = None,
                name: Optional[str] = "switch_case") -> Any:
    """`branch_fns[branch_index]()`; an index out of range runs `default` (or the last)."""
    fns = _branch_list(branch_fns, default)
    if not isinstance(branch_index, Tensor):  # TF's check, even eagerly
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if _state.graph is None:
        b = int(convert_to_tensor(branch_index))  # type: ignore[call-overload]  # eager: EagerTensor.__int__
        return fns[b if 0 <= b < len(fns) else -1]()
    index = convert_to_tensor(branch_index)
    if index.dtype != dtypes.int32 or index.shape.rank not in (None, 0):
        raise TypeError(f"branch_index must be a scalar int32 tensor, got {index.dtype.name} "
                        f"of shape {index.shape}")
    name = name or "switch_case"
    prefix = _state.graph.unique_name(name, mark_as_used=False).replace("/", "_")
    traced = [trace_branch(unique_graph_name(f"{prefix}_branch{k}"), fn)
              for k, fn in enumerate(fns)]
    first_graph, first_struct, first_flat = traced[0]
    for _, struct, flat in traced[1:]:
        check_branches(first_struct, struct, first_flat, flat)
    outs = build_if(index, [g for g, _, _ in traced], [flat for _, _, flat in traced], name,
                    op_defs=(CASE, STATELESS_CASE))
    return pack_with_flows(first_struct, outs)


__all__ = ["switch_case"]
