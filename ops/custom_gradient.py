"""custom_gradient and gradient_override_map, in graph and eager mode.

A call of a `custom_gradient` function runs `f`, then makes its results
fresh tensors whose only producer, for every tape, accumulator and graph
backprop, is one node with the user's `grad_fn` as its gradient:
- eager mode: one tape entry (the results are new identities, recorded with
  tapes paused, so no recorded op of `f` can be reached from them);
- graph mode: an `IdentityN` over results + inputs + variables under
  `gradient_override_map({"IdentityN": "CustomGradient"})`, as TensorFlow
  does (and a tape entry too when a tape records the graph).
Keyword-argument tensors are inputs like positional ones (their gradients
come back by keyword), so the custom gradient is never silently bypassed.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

from ..eager import context
from ..eager.backprop import GradientTape
from ..eager.execute import record
from ..framework import nest
from ..framework.graph import Operation, validate_override_map
from ..framework.op_def import OpDef
from ..framework.tensor import Tensor
from ..grad_registry.registry import ALL_OUTPUTS, RegisterGradient, calls_user_code
from .array import array_ops
from .constant_op import convert_to_tensor

_state = context.state
_log = logging.getLogger("duograd")

CUSTOM_GRADIENT = "CustomGradient"


def _never_run(*args: Any, **attrs: Any) -> None:
    raise RuntimeError("the CustomGradient node is only recorded, never executed")


def _same_as_outputs(inputs: Any, attrs: Any) -> list:
    raise RuntimeError("the CustomGradient node is only recorded, never built")


# The node recorded on tapes and accumulators: it keeps nothing alive itself
# (grad_fn's closure holds what the user's gradient needs). Not an op of the
# op table: it is never executed or added to a graph.
CUSTOM_GRADIENT_OP = OpDef(CUSTOM_GRADIENT, _never_run, _same_as_outputs, grad_inputs=(),
                           grad_outputs=())

# Graph-mode IdentityN ops created by custom_gradient -> their gradient function.
# Weak keys: an entry lives exactly as long as its graph op.
_graph_grad_fns: "weakref.WeakKeyDictionary[Operation, Callable]" = weakref.WeakKeyDictionary()


@RegisterGradient(CUSTOM_GRADIENT, accepts_none=ALL_OUTPUTS)
@calls_user_code
def _custom_gradient_grad(op: Any, *grads: Any) -> Any:
    """The recorded function's own gradient (tape entry attr, or the graph op's table)."""
    if isinstance(op, Operation):
        return _graph_grad_fns[op](*grads)
    return op.get_attr("grad_fn")(*grads)


@contextlib.contextmanager
def recording_paused() -> Iterator[None]:
    """No tape or accumulator sees the ops run inside (they are restored after)."""
    state = _state
    tapes, accumulators = state.tapes, state.accumulators
    state.tapes, state.accumulators = [], []
    try:
        yield
    finally:
        state.tapes, state.accumulators = tapes, accumulators


@contextlib.contextmanager
def gradient_override_map(op_type_map: Dict[str, str]) -> Iterator[None]:
    """Ops of the mapped types use the named registered gradients, in both modes.

    Graph mode: the default graph's `gradient_override_map`. Eager mode: tapes
    record ops run inside under the mapped gradient names. Both sides of the
    map are checked here: a typo is a KeyError, never a silent no-op.
    """
    graph = _state.graph
    if graph is not None:
        with graph.gradient_override_map(op_type_map):
            yield
        return
    if not isinstance(op_type_map, dict):
        raise TypeError("gradient_override_map expects a dict of op type -> gradient name")
    validate_override_map(op_type_map)
    overrides = _state.gradient_overrides
    overrides.append(dict(op_type_map))
    try:
        yield
    finally:
        overrides.pop()


class CustomGradientFunction:
    """The decorated function; binds like a function when used as a method."""

    def __init__(self, f: Callable, record_forward: bool = True) -> None:
        self._f = f
        self._record_forward = record_forward
        functools.update_wrapper(self, f)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        return CustomGradientFunction(self._f.__get__(instance, owner), self._record_forward)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call_with_custom_gradient(self._f, args, kwargs, self._record_forward)


def custom_gradient(f: Optional[Callable] = None) -> Any:
    """Decorator: `f(*x, **kw)` returns `(y, grad_fn)`; gradients of `y` use `grad_fn`.

    `grad_fn(*dys)` returns one gradient per positional input (a tensor or
    None), then, when tensors were passed by keyword, a dict of their
    gradients by keyword (or one flat sequence: positional, then keyword
    inputs in call order). If `f` reads variables that are not inputs,
    `grad_fn` must accept `variables=` and return `(input_grads, variable_grads)`.
    Works with and without parentheses, on functions and methods, in both modes.
    """
    if f is None:
        return custom_gradient
    return CustomGradientFunction(f)


def is_variable(value: Any) -> bool:
    return not isinstance(value, Tensor) and getattr(value, "handle", None) is not None \
        and hasattr(value, "read_value")


def _as_tensor_or_variable(value: Any) -> Any:
    return value if isinstance(value, Tensor) or is_variable(value) else convert_to_tensor(value)


def _as_input(value: Any) -> Any:
    """What an input is recorded as: a tensor, or a variable's handle."""
    return value.handle if is_variable(value) else value


def _is_tensor_kwarg(value: Any) -> bool:
    if is_variable(value):
        return True
    return isinstance(value, Tensor) and value.dtype.is_differentiable


def _accepts_variables(grad_fn: Callable) -> bool:
    try:
        spec = inspect.getfullargspec(grad_fn)
    except TypeError:
        return False
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def call_with_custom_gradient(f: Callable, args: Sequence[Any], kwargs: Dict[str, Any],
                              record_forward: bool = True) -> Any:
    """Runs `f` and gives its results the custom gradient it returns.

    `record_forward=False` runs `f` with every tape and accumulator paused:
    nothing `f` computes is kept for backprop (recompute_grad).
    """
    args = nest.map_structure(_as_tensor_or_variable, list(args))   # nested args keep nesting
    flat_args = nest.flatten(args)
    kw_names = [k for k, v in kwargs.items() if _is_tensor_kwarg(v)]
    collector = GradientTape()
    paused = contextlib.nullcontext() if record_forward else recording_paused()
    with paused:
        with collector:
            result, grad_fn = f(*args, **kwargs)
            flat_result = [convert_to_tensor(t) for t in nest.flatten(result)]
    explicit = [v for v in flat_args + [kwargs[k] for k in kw_names] if is_variable(v)]
    variables = [v for v in collector.watched_variables()
                 if all(v is not e for e in explicit)]
    for tape in _state.tapes:   # reads done while paused still make outer tapes watch
        for v in variables:
            tape.variable_accessed(v)
    wants_variables = _accepts_variables(grad_fn)
    if variables and not wants_variables:
        raise TypeError("If using @custom_gradient with a function that uses variables, then "
                        "grad_fn must accept a keyword argument 'variables'.")
    if wants_variables and not variables and record_forward:
        _log.warning("@custom_gradient grad_fn has 'variables' in signature, but no "
                     "variables were used on the forward pass.")
    inputs = [_as_input(a) for a in flat_args] + [_as_input(kwargs[k]) for k in kw_names] \
        + [v.handle for v in variables]
    n_results = len(flat_result)
    signature = _Signature(len(flat_args), kw_names, variables)

    def tape_grad_fn(*result_grads: Any) -> List[Any]:
        """One gradient per recorded input, from the user's grad_fn."""
        dys = [g if g is not None else _zeros_for(t)
               for g, t in zip(result_grads[:n_results], flat_result, strict=True)]
        return signature.input_grads(grad_fn, dys)

    outputs = _fresh_outputs(flat_result, inputs, tape_grad_fn)
    state = _state
    if state.tapes or state.accumulators:
        record(CUSTOM_GRADIENT_OP, {"grad_fn": tape_grad_fn}, inputs, outputs)
    return nest.pack_sequence_as(result, outputs)


def _fresh_outputs(flat_result: List[Any], inputs: List[Any], tape_grad_fn: Callable) -> list:
    """New tensors for the results, produced by a node with the custom gradient."""
    graph = _state.graph
    with recording_paused():
        if graph is None:
            return array_ops.identity_n(flat_result) if flat_result else []
        n = len(flat_result)
        with graph.gradient_override_map({"IdentityN": CUSTOM_GRADIENT}):
            outputs = array_ops.identity_n(flat_result + inputs)

    def graph_grad_fn(*grads: Any) -> list:
        return [None] * n + list(tape_grad_fn(*grads[:n]))

    _graph_grad_fns[outputs[0].op] = graph_grad_fn
    return list(outputs[:n])


def _zeros_for(t: Any) -> Any:
    if t.shape.is_fully_defined():
        return array_ops.zeros(t.shape, t.dtype)
    return array_ops.zeros_like(t)


class _Signature:
    """What a custom gradient's grad_fn must return, and its checks."""

    def __init__(self, n_args: int, kw_names: List[str], variables: List[Any]) -> None:
        self.n_args = n_args
        self.kw_names = kw_names
        self.variables = variables

    def input_grads(self, grad_fn: Callable, dys: List[Any]) -> List[Any]:
        variables = self.variables
        if variables:
            returned = grad_fn(*dys, variables=variables)
            if not isinstance(returned, (list, tuple)) or len(returned) != 2:
                raise ValueError("@custom_gradient grad_fn of a function that uses variables "
                                 "must return (input_grads, variable_grads).")
            input_grads, variable_grads = returned
            variable_grads = list(variable_grads) if isinstance(variable_grads, (list, tuple)) \
                else [variable_grads]
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from "
                                 "@custom_gradient grad_fn.")
        else:
            input_grads = grad_fn(*dys)
            variable_grads = []
        return self._split(input_grads) + variable_grads

    def _split(self, input_grads: Any) -> List[Any]:
        """Positional gradients, then keyword ones in recorded order."""
        kw_names = self.kw_names
        by_keyword = None
        if isinstance(input_grads, dict):
            positional, by_keyword = [], input_grads
        elif kw_names and isinstance(input_grads, (list, tuple)) and input_grads \
                and isinstance(input_grads[-1], dict):
            positional, by_keyword = nest.flatten(list(input_grads[:-1])), input_grads[-1]
        else:
            positional = nest.flatten(input_grads)
        expected = self.n_args + (0 if by_keyword is not None else len(kw_names))
        if len(positional) != expected:
            what = f"{expected} gradients" if not kw_names else (
                f"{expected} gradients ({self.n_args} positional, then keyword inputs "
                f"{kw_names}, or the keyword ones as a dict)")
            raise ValueError(f"custom_gradient function expected to return {what} but "
                             f"returned {len(positional)} instead.")
        if by_keyword is None:
            return positional
        unknown = sorted(set(by_keyword) - set(kw_names))
        if unknown:
            raise ValueError(f"custom_gradient grad_fn returned gradients for keywords {unknown} "
                             f"that are not tensor inputs (those are {kw_names}).")
        return positional + [by_keyword.get(k) for k in kw_names]


__all__ = ["custom_gradient", "gradient_override_map"]  # CustomGradientFunction: internal
