"""Sub-namespaces (dg.math, ...) and the mode-agnostic scope context managers."""
from __future__ import annotations

import contextlib
import types
from typing import Any, Iterator, Optional, Sequence

from .eager import context
from .ops import array_ops, indexed_slices_ops, math_ops, matmul_ops, reduction_ops
from .ops import linalg_ops, matrix_diag_ops, norm_ops
from .ops import math_extra
from .ops import gradient_checker
from .eager import forwardprop
from .ops import conv_ops, nn_ops, pooling_ops, random_ops, softmax_ops

_state = context.state


def _namespace(name: str, *modules: Any, extra: Optional[dict] = None) -> types.SimpleNamespace:
    members = {}
    for module in modules:
        for key in getattr(module, "__all__", ()):
            members[key] = getattr(module, key)
    members.update(extra or {})
    space = types.SimpleNamespace(**members)
    space.__name__ = name
    return space


math = _namespace("duograd.math", math_ops, reduction_ops, matmul_ops, math_extra,
                  extra={"unsorted_segment_sum": indexed_slices_ops.unsorted_segment_sum,
                         "where": array_ops.where})
linalg = _namespace("duograd.linalg", linalg_ops, matrix_diag_ops, norm_ops)
test = _namespace("duograd.test", gradient_checker)
nn = _namespace("duograd.nn", nn_ops, softmax_ops, conv_ops, pooling_ops)
random = _namespace("duograd.random", random_ops)  # noqa: A001
autodiff = _namespace("duograd.autodiff", forwardprop,
                      extra={"GradientTape": forwardprop.GradientTape})


@contextlib.contextmanager
def name_scope(name: Optional[str]) -> Iterator[str]:
    """A scope for op names in graph mode (a no-op in eager mode, as in TF2)."""
    graph = _state.graph
    if graph is None:
        yield (name + "/") if name else ""
        return
    with graph.name_scope(name) as scope:
        yield scope


@contextlib.contextmanager
def control_dependencies(control_inputs: Optional[Sequence[Any]]) -> Iterator[None]:
    """Ops built inside run after `control_inputs` (eager mode: already done)."""
    graph = _state.graph
    if graph is None:
        yield
        return
    with graph.control_dependencies(control_inputs):
        yield


@contextlib.contextmanager
def device(name: Optional[str]) -> Iterator[None]:
    """Recorded on graph ops; has no effect on where they run."""
    graph = _state.graph
    if graph is None:
        yield
        return
    with graph.device(name):
        yield


# dg.config: process-wide settings (run_functions_eagerly).
from .ops import function_config  # noqa: E402 - kept beside the namespace it fills
config = _namespace("duograd.config", function_config)
