"""ForwardAccumulator: forward-mode autodiff (Jacobian-vector products), both modes.

An active accumulator sees every op as it runs (eager) or is built (graph),
through `record(op_def, attrs, inputs, outputs)`. When an input has a
tangent, the outputs' tangents come from the op's JVP rule
(grad_registry/jvp_rules.py) or, for ops without one, from its gradient
function by the double-VJP trick: the vector-Jacobian product u -> J^T u is
linear in u, so differentiating <J^T u, t> with respect to u gives J t.

Tangent computations run with this accumulator (and those entered after it)
paused, while tapes and earlier accumulators keep recording them: a tape
around an accumulator differentiates its JVPs (reverse-over-forward), and an
accumulator around a tape tracks the tape's gradient ops
(forward-over-reverse, e.g. Hessian-vector products).
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Optional

from ..framework import nest
from ..framework.func_graph import inner_tensor
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..grad_registry.registry import NOT_REGISTERED, find_gradient
from ..grad_registry.jvp_rules import get_jvp_rule
from ..grad_registry.unconnected import UnconnectedGradients, as_unconnected_gradients
from ..ops.array import array_ops
from ..ops.math import math_ops, reduction_ops
from ..ops.constant_op import convert_to_tensor
from . import context
from .backprop import GradientTape

_state = context.state


class OpView:
    """The op an accumulator saw, as rules and gradient functions read it."""

    __slots__ = ("type", "gradient_name", "name", "attrs", "inputs", "outputs",
                 "skip_input_indices")

    def __init__(self, op_def: Any, attrs: dict, inputs: tuple, outputs: tuple,
                 skip: frozenset) -> None:
        self.type = self.gradient_name = self.name = op_def.type
        self.attrs = attrs
        self.inputs = inputs
        self.outputs = outputs
        self.skip_input_indices = skip

    def get_attr(self, name: str) -> Any:
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Op '{self.type}' has no attr named '{name}'.") from None


def _key(value: Any) -> int:
    """Tangents are keyed by tensor id; a variable by its handle's."""
    if not isinstance(value, Tensor):
        handle = getattr(value, "handle", None)
        if handle is not None:
            return handle.tensor_id
    return value.tensor_id


class ForwardAccumulator:
    """Computes JVPs of everything run inside: `primals` move along `tangents`.

    `with ForwardAccumulator(x, v) as acc: y = f(x)`, then `acc.jvp(y)` is
    J_f(x) v. Primals are tensors or variables (any nesting); each tangent
    has its primal's shape and dtype.
    """

    def __init__(self, primals: Any, tangents: Any) -> None:
        flat_primals = nest.flatten(primals)
        flat_tangents = nest.flatten(tangents)
        if len(flat_primals) != len(flat_tangents):
            raise ValueError(f"primals and tangents must have the same structure: got "
                             f"{len(flat_primals)} primals and {len(flat_tangents)} tangents")
        self._tangents: Dict[int, Any] = {}
        self._refs: Dict[int, Any] = {}
        self._recording = False
        for primal, tangent in zip(flat_primals, flat_tangents, strict=True):
            if not isinstance(primal, Tensor) and getattr(primal, "handle", None) is None:
                raise TypeError(f"primals must be tensors or variables, got {primal!r}")
            if not primal.dtype.is_differentiable:
                raise ValueError(f"primal dtype {primal.dtype.name} is not floating or complex")
            tangent = convert_to_tensor(tangent, dtype_hint=primal.dtype)
            if tangent.dtype != primal.dtype:
                raise ValueError(f"tangent dtype {tangent.dtype.name} does not match primal "
                                 f"dtype {primal.dtype.name}")
            if not primal.shape.is_compatible_with(tangent.shape):
                raise ValueError(f"tangent shape {tangent.shape} does not match primal shape "
                                 f"{primal.shape}")
            if _key(primal) in self._tangents:
                raise ValueError(f"Tensor {primal!r} was specified as a primal multiple times. "
                                 "This may indicate an error. If it was intended, please sum "
                                 "the corresponding tangents.")
            self._watch_primal(primal, tangent)

    def _watch_primal(self, primal: Any, tangent: Any) -> None:
        """Tangent of `primal` (and of its capture inside a traced function), held
        only as long as the primal lives."""
        if isinstance(primal, Tensor):
            self._remember(primal, tangent)
            inner = inner_tensor(primal)
            if inner is not primal:
                self._remember(inner, tangent)
        else:
            self._tangents[_key(primal)] = tangent

    # -- context ----------------------------------------------------------------
    def __enter__(self) -> "ForwardAccumulator":
        if self._recording:
            raise ValueError("Accumulator is already recording: a ForwardAccumulator cannot be "
                             "entered twice.")
        _state.accumulators.append(self)
        self._recording = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recording:
            accumulators = _state.accumulators
            if self in accumulators:
                accumulators.remove(self)
            self._recording = False

    # -- recording ----------------------------------------------------------------
    def record(self, op_def: Any, attrs: dict, inputs: Any, outputs: Any) -> None:
        """Computes the tangents of `outputs` when an input has one."""
        tangents = self._tangents
        in_tangents = [tangents.get(t.tensor_id) for t in inputs]
        if all(t is None for t in in_tangents):
            return
        accumulators = _state.accumulators
        index = accumulators.index(self) if self in accumulators else len(accumulators)
        _state.accumulators = accumulators[:index]   # earlier accumulators watch this work
        try:
            out_tangents = self._output_tangents(op_def, attrs, tuple(inputs), tuple(outputs),
                                                 in_tangents)
        finally:
            _state.accumulators = accumulators
        for out, tangent in zip(outputs, out_tangents, strict=True):
            if tangent is not None and out.dtype.is_differentiable:
                self._remember(out, tangent)

    def _remember(self, out: Any, tangent: Any) -> None:
        tid = out.tensor_id
        self._tangents[tid] = tangent
        try:
            self._refs[tid] = weakref.ref(out, self._forget_callback(tid))
        except TypeError:  # not weak-referenceable: kept for the accumulator's life
            pass

    def _forget_callback(self, tid: int):
        tangents, refs = self._tangents, self._refs

        def forget(_ref: Any) -> None:
            tangents.pop(tid, None)
            refs.pop(tid, None)
        return forget

    def _output_tangents(self, op_def: Any, attrs: dict, inputs: tuple, outputs: tuple,
                         in_tangents: List[Any]) -> List[Any]:
        skip = frozenset(i for i, t in enumerate(in_tangents) if t is None)
        op = OpView(op_def, attrs, inputs, outputs, skip)
        rule = get_jvp_rule(op_def.type)
        if rule is not None:
            result = rule(op, *in_tangents)
        else:
            result = double_vjp(op, in_tangents)
        if not isinstance(result, (list, tuple)):
            result = [result]
        return list(result)

    def tangent_ids(self) -> Any:
        """The ids of the tensors this accumulator holds a tangent for (a live view)."""
        return self._tangents.keys()

    # -- reading ----------------------------------------------------------------
    def jvp(self, primals: Any, unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """The tangent of each tensor in `primals` (None, or zeros, when it has none)."""
        unconnected = as_unconnected_gradients(unconnected_gradients)

        def one(primal: Any) -> Any:
            tangent = self._tangents.get(_key(primal))
            if tangent is None and isinstance(primal, Tensor):
                tangent = self._tangents.get(inner_tensor(primal, capture=False).tensor_id)
            if tangent is None and unconnected is UnconnectedGradients.ZERO:
                if isinstance(primal, Tensor):
                    return array_ops.zeros_like(primal)
                return array_ops.zeros(primal.shape, primal.dtype)
            return tangent

        return nest.map_structure(one, primals)


def has_tangent(tensors: Any) -> bool:
    """Whether an active accumulator of this thread carries a tangent for a tensor in
    `tensors` (any nesting): then the ops run on them now get JVPs."""
    accumulators = _state.accumulators
    if not accumulators:
        return False
    ids = [t.tensor_id for t in nest.flatten(tensors) if isinstance(t, Tensor)]
    return any(tid in accumulator.tangent_ids() for accumulator in accumulators
               for tid in ids)


def double_vjp(op: OpView, in_tangents: List[Any]) -> List[Optional[Any]]:
    """J t from the op's gradient function: d<vjp(u), t>/du, vjp linear in u."""
    grad_fn = find_gradient(op.gradient_name)
    if grad_fn is NOT_REGISTERED:
        raise LookupError(f"No JVP rule and no gradient defined for op type {op.type}: "
                          "forward-mode differentiation through it is not possible")
    if grad_fn is None:   # not differentiable: outputs have no tangent
        return [None] * len(op.outputs)
    dummies = [array_ops.zeros_like(o) if o.dtype.is_differentiable else None
               for o in op.outputs]
    watched = [u for u in dummies if u is not None]
    with GradientTape() as tape:
        tape.watch(watched)
        in_grads = grad_fn(op, *dummies)
        if not isinstance(in_grads, (list, tuple)):
            in_grads = [in_grads]
        total = None
        for g, t in zip(in_grads, in_tangents, strict=True):
            if g is None or t is None:
                continue
            if isinstance(g, IndexedSlices):
                g = convert_to_tensor(g)
            term = reduction_ops.reduce_sum(math_ops.multiply(g, t))
            total = term if total is None else total + term
    if total is None:
        return [None] * len(op.outputs)
    out = iter(tape.gradient(total, watched))
    return [next(out) if u is not None else None for u in dummies]


__all__ = ["ForwardAccumulator"]
