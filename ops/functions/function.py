"""dg.function: trace a Python function into a FuncGraph once per signature, then run it.

A call's arguments are bound to the Python signature and flattened; each
tensor (or NumPy array) leaf is described by its dtype and shape, every
other leaf by its value (or identity when unhashable). A call reuses a trace
whose tensor shapes are at least as general as its own (a `[None]` trace
serves a `[3]` call); with `reduce_retracing=True` a new trace relaxes the
shapes that differ from earlier traces to unknown dims; with an
`input_signature` there is one trace. The first call from many threads
traces once (one lock per function, re-entered by the same logical thread).

Variables (function_variables.py): the first trace of a function may create
variables, which are lifted out of the graph; if it did, the function is
traced again and that trace, where creating a variable is a ValueError, is
the one that runs. A trace builds a FuncGraph (placeholders for the tensor
arguments, captures for outer values), wrapped as a `ConcreteFunction`; a
call is one `PartitionedCall` op, recorded on tapes and differentiable
(grad_registry/function_grad.py).
"""
from __future__ import annotations

import functools
import inspect
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...eager.owner_lock import OwnerLock
from ...eager.stack_room import with_stack_room
from ...framework import dtypes, nest
from ...framework.errors import InvalidArgumentError
from ...framework.func_graph import FuncGraph, capture_value, tracing, variables_captured
from ...framework.graph import SymbolicTensor
from ...framework.registry import source_converters
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ...framework.tensor_spec import TensorSpec
from .function_text import bound_values, signature_text
from . import function_config
from .auto_control_deps import add_automatic_control_dependencies
from ..constant_op import convert_to_tensor
from .function_variables import FORBID, LIFT, SINGLETON, initialize_deferred
from .graph_function import GraphFunction, call_function, graph_output

_state = context.state


class _TracedGraphs(context.OwnedThreadState):
    """The graphs traced on this thread since `log_traced_graphs` (None: not logging)."""

    def __init__(self) -> None:
        self.graphs: Optional[List[Any]] = None


_traced = context.owned_state(_TracedGraphs)


def log_traced_graphs(on: bool) -> List[Any]:
    """Starts (`on`) or stops logging the graphs functions trace on this thread (what
    dg.summary.trace_on/trace_export record); returns those logged until now."""
    logged = _traced.graphs or []
    _traced.graphs = [] if on else None
    return logged


def _eager_call_key(args: tuple) -> Optional[tuple]:
    """(graph, (NumPy dtype, shape) per argument) when every argument is an EagerTensor
    (a call the full lookup maps to one trace by exactly these), else None."""
    key: List[Any] = [_state.graph]
    for value in args:
        if type(value) is not EagerTensor:
            return None
        array = value.array
        key.append(array.dtype)
        key.append(array.shape)
    return tuple(key)


def _argument_spec(value: Any) -> Any:
    """The spec of an argument traced as one variant placeholder (a dg.data dataset, or
    its DatasetSpec): TF's trace key for it; None for anything else."""
    if isinstance(value, type) or getattr(type(value), "function_argument_spec", None) is None:
        return None   # (looked up on the class: an instance __getattr__ is not asked)
    return value.function_argument_spec()


def _is_tensor_arg(value: Any) -> bool:
    return isinstance(value, (Tensor, np.ndarray, TensorSpec)) or \
        _argument_spec(value) is not None


def _leaf_dtype_shape(value: Any) -> Tuple[Any, Optional[tuple]]:
    if not isinstance(value, (Tensor, np.ndarray, TensorSpec)):   # a dataset argument
        return dtypes.variant, ()
    if isinstance(value, np.ndarray):
        return convert_to_tensor(value).dtype, value.shape
    shape = value.shape
    return value.dtype, (tuple(shape.as_list()) if shape.rank is not None else None)


def _value_key(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return ("O", id(value))
    return ("P", type(value), value)


def _signature_of(flat: Sequence[Any]) -> Tuple[tuple, tuple]:
    """(skeleton, shapes): per leaf a dtype or value key, and per tensor leaf its shape."""
    skeleton: List[Any] = []
    shapes: List[Any] = []
    for leaf in flat:
        if _is_tensor_arg(leaf):
            dtype, shape = _leaf_dtype_shape(leaf)
            if dtype == dtypes.variant:   # a dataset: its spec's key, its dims as a shape
                key, shape = _argument_spec(leaf).trace_signature()
                skeleton.append(("T", dtype, key))
            else:
                skeleton.append(("T", dtype))
            shapes.append(shape)
        else:
            skeleton.append(_value_key(leaf))
    return tuple(skeleton), tuple(shapes)


def _structure_key(value: Any) -> Any:
    """The nesting of an argument structure (leaves excluded), hashable."""
    if isinstance(value, dict):
        return ("dict", tuple((k, _structure_key(value[k])) for k in sorted(value, key=str)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_structure_key(v) for v in value))
    return None


def _shape_serves(general: Optional[tuple], specific: Optional[tuple]) -> bool:
    """Whether a trace of shape `general` accepts a call of shape `specific`."""
    if general is None:
        return True
    if specific is None or len(general) != len(specific):
        return False
    return all(g is None or g == s for g, s in zip(general, specific, strict=True))


def _relax(a: Optional[tuple], b: Optional[tuple]) -> Optional[tuple]:
    """The most specific shape serving both `a` and `b`."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))


def _generality(shapes: tuple) -> int:
    """How many dims (an unknown rank counts many) a trace leaves open."""
    return sum(1000 if s is None else sum(d is None for d in s) for s in shapes)


def _named_spec(spec: Any, name: Optional[str]) -> Any:
    if isinstance(spec, TensorSpec) and spec.name is None and name is not None:
        return TensorSpec(spec.shape, spec.dtype, name=name)
    return spec


class ConcreteFunction:
    """One trace of a Python function: a GraphFunction plus how to map arguments."""

    def __init__(self, fn: GraphFunction, traced_args: Any, structured_outputs: Any,
                 tensor_leaf_mask: List[bool], output_slots: List[Optional[int]],
                 signature: Optional[inspect.Signature]) -> None:
        self.function = fn
        self._traced_args = traced_args   # [list(args), kwargs] with specs for tensor leaves
        self.structured_outputs = structured_outputs
        self._tensor_leaf_mask = tensor_leaf_mask
        self._output_slots = output_slots
        self._num_args = sum(tensor_leaf_mask)
        self._signature = signature

    @property
    def graph(self) -> FuncGraph:
        return self.function.graph

    @property
    def inputs(self) -> List[SymbolicTensor]:
        return list(self.graph.inputs)

    @property
    def outputs(self) -> List[Any]:
        return list(self.function.outputs)

    @property
    def captured_inputs(self) -> List[Any]:
        return [capture_value(source) for source, _ in self.graph.captures]

    @property
    def structured_input_signature(self) -> Any:
        """(args, kwargs) of the trace; an unnamed tensor argument's spec takes its
        parameter's name, as TF names the placeholders."""
        args, kwargs = self._traced_args
        names = list(self._signature.parameters) if self._signature is not None else []
        named = [_named_spec(spec, names[i] if i < len(names) else None)
                 for i, spec in enumerate(args)]
        return tuple(named), {key: _named_spec(spec, key) for key, spec in kwargs.items()}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the trace: tensors where it took tensors, the traced values elsewhere.

        As TF, a call that does not match the traced arguments may instead give
        just the tensor arguments, in order (`f.get_concrete_function(model, x)(x)`)."""
        try:
            return self._call_structured(args, kwargs)
        except TypeError:
            if kwargs or len(args) != self._num_args or self._num_args == len(self._tensor_leaf_mask) \
                    or not all(isinstance(a, (Tensor, np.ndarray)) for a in args):
                raise
            return self.call_flat(list(args), check=True)

    def _call_structured(self, args: tuple, kwargs: dict) -> Any:
        traced = nest.flatten(self._traced_args)
        flat = self._bind(args, kwargs, traced)
        tensors = []
        for leaf, spec, is_t in zip(flat, traced, self._tensor_leaf_mask, strict=True):
            if is_t:
                tensors.append(leaf)
            elif not _same_value(leaf, spec):
                raise TypeError(f"ConcreteFunction {self.graph.name} was traced with "
                                f"{spec!r} for a non-tensor argument, got {leaf!r}")
        return self.call_flat(tensors, check=True)

    def _bind(self, args: tuple, kwargs: dict, traced: list) -> list:
        """The call's leaves in trace order; arguments left out take the traced values."""
        traced_args, traced_kwargs = self._traced_args
        if self._signature is None:
            flat = nest.flatten([list(args), kwargs])
        else:
            try:
                bound = self._signature.bind_partial(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"ConcreteFunction {self.graph.name}: {error}") from None
            names = list(self._signature.parameters)
            full = dict(zip(names, traced_args, strict=False))  # positional ones only
            full.update(traced_kwargs)
            full.update(bound.arguments)
            call_args = [full[n] for n in names[:len(traced_args)]]
            call_kwargs = {k: full[k] for k in traced_kwargs}
            try:
                flat = _flatten_up_to([traced_args, traced_kwargs], [call_args, call_kwargs])
            except (ValueError, TypeError) as error:
                raise TypeError(f"ConcreteFunction {self.graph.name}: the arguments do not "
                                f"match the traced structure: {error}") from None
        if len(flat) != len(traced):
            raise TypeError(f"ConcreteFunction {self.graph.name} called with {len(flat)} "
                            f"argument leaves, traced with {len(traced)}")
        return flat

    def call_flat(self, tensors: Sequence[Any], check: bool = False) -> Any:
        """Runs the graph on tensor arguments (in placeholder order) plus the captures."""
        placeholders = self.graph.inputs[:self._num_args]
        inputs = []
        for k, (value, ph) in enumerate(zip(tensors, placeholders, strict=True)):
            if ph.dtype == dtypes.variant:   # a dataset argument: the object, or the
                value = _variant_value(value)  # tensor standing for it in a graph
            elif not isinstance(value, Tensor):
                value = convert_to_tensor(value, dtype=ph.dtype)
            elif check:
                _check_input(self.graph.name, k, value, ph)
            inputs.append(value)
        for variable in variables_captured(self.graph):
            for tape in _state.tapes:
                tape.variable_accessed(variable)
        inputs += self.captured_inputs
        outputs = call_function(self.function, inputs, name=self.graph.name)
        flat = [None if slot is None else outputs[slot] for slot in self._output_slots]
        return nest.pack_sequence_as(self.structured_outputs, flat)

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """Parameters, output type and captures, in TF's words."""
        args, kwargs = self._traced_args   # unnamed specs, as TF prints them
        parameters, values = bound_values(self._signature, args, kwargs)
        return signature_text(parameters, values, self.structured_outputs,
                              [source for source, _ in self.graph.captures])

    def __repr__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values without a truthful == differ
        return False


def _variant_value(value: Any) -> Any:
    """A dataset argument's value for the call: the dataset itself eagerly; in a graph
    being built, a variant tensor of that graph standing for it."""
    if isinstance(value, Tensor):
        return value
    if _state.graph is None:
        return value.eager_argument_value()
    return value.graph_argument_value()


def _check_input(name: str, k: int, value: Tensor, ph: SymbolicTensor) -> None:
    """TF's check of a concrete function's tensor argument."""
    if ph.dtype == dtypes.variant:
        return
    if value.dtype != ph.dtype:
        raise InvalidArgumentError(
            None, None, f"cannot compute {name} as input #{k}(zero-based) was expected to be a "
            f"{ph.dtype.name} tensor but is a {value.dtype.name} tensor")
    if not ph.shape.is_compatible_with(value.shape):
        raise InvalidArgumentError(
            None, None, f"cannot compute {name}: input #{k}(zero-based) has shape "
            f"{value.shape}, incompatible with the traced shape {ph.shape}")


class Function:
    """A Python function traced into graphs; see `function`."""

    def __init__(self, python_function: Callable, input_signature: Optional[Sequence[Any]] = None,
                 name: Optional[str] = None, reduce_retracing: bool = False,
                 autograph: bool = True) -> None:
        self.python_function = python_function
        self._autograph = autograph
        self.input_signature = None if input_signature is None else _signature_specs(
            input_signature)
        self._name = name or getattr(python_function, "__name__", "function")
        self._reduce_retracing = bool(reduce_retracing)
        self._cache: Dict[Any, ConcreteFunction] = {}      # exact call key -> trace
        # Calls with only eager tensors as positional arguments (no kwargs, defaults or
        # input_signature involved), by (graph, (dtype, shape) per argument): the trace
        # the full lookup found for exactly such a call. Entries mirror `_cache`.
        self._eager_calls: Dict[Any, ConcreteFunction] = {}
        self._traces: Dict[Any, List[Tuple[tuple, ConcreteFunction]]] = {}  # by skeleton
        self._tracing_count = 0
        self._variable_policy = LIFT  # the first trace may create variables
        self._lock = OwnerLock()
        self._descriptor_cache: Any = weakref.WeakKeyDictionary()
        try:
            self._signature: Optional[inspect.Signature] = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        functools.update_wrapper(self, python_function)

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function has been traced."""
        return self._tracing_count

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """A method decorated with dg.function: one Function per instance."""
        if instance is None:
            return self
        bound = self._descriptor_cache.get(instance)
        if bound is None:
            bound = Function(self.python_function.__get__(instance, owner), self.input_signature,
                             self._name, self._reduce_retracing, self._autograph)
            self._descriptor_cache[instance] = bound
        return bound

    # -- binding arguments --------------------------------------------------
    def _canonical(self, args: tuple, kwargs: dict) -> Tuple[tuple, dict]:
        if self._signature is None:
            return args, kwargs
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{self._name}(): {error}") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _signature_args(self, args: tuple, kwargs: dict) -> tuple:
        """Arguments converted to tensors and checked against `input_signature`."""
        if kwargs:
            args, kwargs = self._canonical(args, kwargs)
            args = args + tuple(kwargs.values())
        specs = self.input_signature or []
        if len(args) != len(specs):
            raise TypeError(f"{self._name}() takes {len(specs)} arguments under its "
                            f"input_signature, got {len(args)}")
        try:
            flat_values = _flatten_up_to(list(specs), list(args))
        except (ValueError, TypeError) as error:
            raise TypeError(f"{self._name}(): arguments do not match input_signature: "
                            f"{error}") from None
        flat = []
        for spec, value in zip(nest.flatten(list(specs)), flat_values, strict=True):
            if not isinstance(value, Tensor):
                try:
                    value = convert_to_tensor(value, dtype=spec.dtype)
                except (TypeError, ValueError) as error:
                    raise TypeError(f"{self._name}(): cannot convert {value!r} to {spec}: "
                                    f"{error}") from None
            if value.dtype != spec.dtype or not spec.shape.is_compatible_with(value.shape):
                raise TypeError(f"Binding inputs to dg.function {self._name} failed: can not "
                                f"cast TensorSpec(shape={value.shape}, dtype={value.dtype.name})"
                                f" to {spec}")
            flat.append(value)
        return tuple(nest.pack_sequence_as(list(specs), flat))

    # -- finding or making the trace -------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if function_config.functions_run_eagerly():
            return self.python_function(*args, **kwargs)
        fast_key = None if kwargs else _eager_call_key(args)
        if fast_key is not None:
            concrete = self._eager_calls.get(fast_key)
            if concrete is not None:
                return concrete.call_flat(args)
        signature = self.input_signature
        if signature is not None:
            flat = nest.flatten(list(self._signature_args(args, kwargs)))
            concrete = self._lookup_or_trace(nest.flatten(list(signature)),
                                             lambda: (tuple(signature), {}),
                                             call_values=flat)
        else:
            args, kwargs = self._canonical(args, kwargs)
            structure = [list(args), kwargs]
            flat = nest.flatten(structure)
            concrete = self._lookup_or_trace(flat, lambda: (args, kwargs), structure, flat)
        mask = concrete._tensor_leaf_mask
        if fast_key is not None and signature is None and len(flat) == len(args) and \
                all(a is b for a, b in zip(flat, args, strict=True)) and all(mask):
            self._eager_calls[fast_key] = concrete
        return concrete.call_flat([leaf for leaf, is_t in zip(flat, mask, strict=True) if is_t])

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (TensorSpecs allowed), made if needed."""
        signature = self.input_signature
        if signature is not None:
            if args or kwargs:
                self._signature_specs_match(args, kwargs)
            flat = nest.flatten(list(signature))
            return self._lookup_or_trace(flat, lambda: (tuple(signature), {}))
        args, kwargs = self._canonical(args, kwargs)
        structure = [list(args), kwargs]
        return self._lookup_or_trace(nest.flatten(structure), lambda: (args, kwargs), structure)

    def _signature_specs_match(self, args: tuple, kwargs: dict) -> None:
        given = nest.flatten([list(args), kwargs])
        specs = nest.flatten(list(self.input_signature or []))
        if len(given) > len(specs):  # TF: TypeError (too many arguments); fewer are fine
            raise TypeError(f"{self._name}: {len(given)} arguments for an input_signature of "
                            f"{len(specs)}")
        for spec, value in zip(specs, given, strict=False):  # arguments left out keep their specs
            if isinstance(value, (TensorSpec, Tensor)) and not (
                    value.dtype == spec.dtype and spec.shape.is_compatible_with(value.shape)):
                raise TypeError(f"{self._name}: {value!r} does not match input_signature "
                                f"{spec}")

    def _lookup_or_trace(self, flat: list, traced_args: Callable[[], tuple],
                         structure: Any = None,
                         call_values: Optional[list] = None) -> ConcreteFunction:
        skeleton, shapes = _signature_of(flat)
        key = (_structure_key(structure), skeleton, _state.graph)
        exact = (key, shapes)
        concrete = self._cache.get(exact)
        if concrete is not None:
            return concrete
        with self._lock:  # a first call from many threads traces once
            concrete = self._cache.get(exact) or self._general_trace(key, shapes)
            if concrete is None:
                args, kwargs = traced_args()
                if self._reduce_retracing and self.input_signature is None:
                    shapes = self._relaxed(key, shapes)
                    args, kwargs = _with_shapes([list(args), kwargs], shapes)
                concrete = self._trace_once(args, kwargs, call_values)
                self._traces.setdefault(key, []).append((shapes, concrete))
            self._cache[exact] = concrete
        return concrete

    def _general_trace(self, key: Any, shapes: tuple) -> Optional[ConcreteFunction]:
        """The most specific existing trace whose shapes serve `shapes`."""
        best, best_rank = None, None
        for trace_shapes, concrete in self._traces.get(key, ()):
            if all(_shape_serves(g, s) for g, s in zip(trace_shapes, shapes, strict=True)):
                rank = _generality(trace_shapes)
                if best_rank is None or rank < best_rank:
                    best, best_rank = concrete, rank
        return best

    def _relaxed(self, key: Any, shapes: tuple) -> tuple:
        """`shapes` with every dim that differs from an earlier trace made unknown."""
        for trace_shapes, _ in self._traces.get(key, ()):
            shapes = tuple(_relax(a, b) for a, b in zip(shapes, trace_shapes, strict=True))
        return shapes

    def _trace_once(self, args: tuple, kwargs: dict,
                    call_values: Optional[list]) -> ConcreteFunction:
        """A trace to run: if the first trace created variables, a second one without
        (after initializing those whose initial values read the arguments)."""
        policy = self._variable_policy
        concrete, created = self._trace(args, kwargs, policy)
        if policy == LIFT:
            self._variable_policy = FORBID
            if created:
                mask = concrete._tensor_leaf_mask
                # no call values (get_concrete_function): nothing to take, so not strict
                values = [v for v, is_t in zip(call_values or [], mask, strict=False) if is_t]
                if concrete.graph.deferred_initializers and call_values is None:
                    values = [None]  # get_concrete_function: no argument values
                initialize_deferred(concrete.graph, values)
                concrete, _ = self._trace(args, kwargs, SINGLETON)
        return concrete

    def _trace(self, args: tuple, kwargs: dict, policy: str) -> Tuple[ConcreteFunction, bool]:
        return with_stack_room(self._trace_here, args, kwargs, policy)

    def _trace_here(self, args: tuple, kwargs: dict,
                    policy: str) -> Tuple[ConcreteFunction, bool]:
        graph = FuncGraph(f"{self._name}_{self._tracing_count}", outer_graph=_state.graph)
        graph.variable_policy = policy
        if _traced.graphs is not None:  # dg.summary.trace_on: trace_export writes them
            _traced.graphs.append(graph)
        flat = nest.flatten([list(args), kwargs])
        mask = [_is_tensor_arg(leaf) for leaf in flat]
        with tracing(graph):
            traced, specs = [], []
            for leaf, is_t in zip(flat, mask, strict=True):
                if not is_t:
                    traced.append(leaf)
                    specs.append(leaf)
                    continue
                dtype, shape = _leaf_dtype_shape(leaf)
                placeholder = graph.add_input(dtype, TensorShape(shape), "args")
                if dtype == dtypes.variant:   # a dataset: what the function sees for it
                    spec = _argument_spec(leaf)
                    traced.append(spec.placeholder_value(placeholder))
                    specs.append(spec)
                    continue
                traced.append(placeholder)
                specs.append(TensorSpec(TensorShape(shape), dtype))
            call_args, call_kwargs = nest.pack_sequence_as([list(args), kwargs], traced)
            result = self._traced_callable()(*call_args, **call_kwargs)
            self._tracing_count += 1
            out_flat = nest.flatten(result)
            outputs: List[Any] = []
            slots: List[Optional[int]] = []
            for leaf in out_flat:
                tensor = graph_output(graph, leaf)
                if tensor is None:
                    slots.append(None)
                else:
                    slots.append(len(outputs))
                    outputs.append(tensor)
        graph.outputs = outputs
        add_automatic_control_dependencies(graph)
        fn = GraphFunction(graph, graph.inputs, outputs)
        traced_args = nest.pack_sequence_as([list(args), kwargs], specs)
        concrete = ConcreteFunction(fn, traced_args, result, mask, slots, self._signature)
        return concrete, bool(graph.created_variables)

    def _traced_callable(self) -> Callable:
        """The Python function, converted by AutoGraph unless `autograph=False`."""
        convert = source_converters.get("autograph") if self._autograph else None
        return self.python_function if convert is None else convert(self.python_function)

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """Every trace's signature so far (TF's words), one block each."""
        unique = list({id(c): c for c in self._cache.values()}.values())
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in unique)

    def __repr__(self) -> str:
        return f"<dg.function {self._name}>"


def _key_order(key: Any) -> Any:
    return (str(type(key)), key)  # nest.flatten's order of dict keys


def _flatten_up_to(shallow: Any, deep: Any) -> list:
    """The parts of `deep` at the leaves of `shallow` (ValueError on a mismatch)."""
    out: list = []
    stack = [(shallow, deep)]
    while stack:
        s, d = stack.pop()
        if isinstance(s, dict):
            if not isinstance(d, dict) or set(s) != set(d):
                raise ValueError(f"expected a dict with keys {sorted(s, key=str)}, got {d!r}")
            stack.extend((s[k], d[k]) for k in reversed(sorted(s, key=_key_order)))
        elif isinstance(s, (list, tuple)):
            if not isinstance(d, (list, tuple)) or len(s) != len(d):
                raise ValueError(f"expected a sequence of length {len(s)}, got {d!r}")
            stack.extend(reversed(list(zip(s, d, strict=True))))
        else:
            out.append(d)
    return out


def _signature_specs(input_signature: Sequence[Any]) -> list:
    specs = list(input_signature)
    for spec in nest.flatten(specs):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"input_signature must hold TensorSpecs, got {spec!r}")
    return specs


def _with_shapes(structure: Any, shapes: tuple) -> Tuple[tuple, dict]:
    """The argument structure with each tensor leaf replaced by a spec of its new shape."""
    it = iter(shapes)

    def respec(leaf: Any) -> Any:
        if not _is_tensor_arg(leaf):
            return leaf
        spec = _argument_spec(leaf)
        if spec is not None:   # a dataset: traced with the relaxed spec
            return spec.relaxed(next(it))
        dtype, _ = _leaf_dtype_shape(leaf)
        return TensorSpec(TensorShape(next(it)), dtype)

    args, kwargs = nest.map_structure(respec, structure)
    return tuple(args), kwargs


def function(func: Optional[Callable] = None, input_signature: Optional[Sequence[Any]] = None,
             autograph: bool = True, jit_compile: Any = None, reduce_retracing: bool = False,
             experimental_compile: Any = None, name: Optional[str] = None, **unused: Any) -> Any:
    """Compiles `func` into a graph-backed callable (usable as a decorator, with or
    without arguments). Python side effects run only while tracing."""
    if func is None:
        return functools.partial(function, input_signature=input_signature, name=name,
                                 reduce_retracing=reduce_retracing, autograph=autograph)
    return Function(func, input_signature, name, reduce_retracing=reduce_retracing,
                    autograph=autograph)


__all__ = ["function"]
