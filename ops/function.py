"""dg.function: trace a Python function into a FuncGraph once per signature, then run it.

The cache key of a call is the structure of its arguments with, for each
tensor (or NumPy array) its dtype and shape, for each variable its identity,
and for every other Python value the value itself; with an
`input_signature` there is one key. A trace builds a FuncGraph (placeholders
for the tensor arguments, captures for outer values), wrapped as a
`ConcreteFunction`; a call is one `PartitionedCall` op, recorded on tapes and
differentiable (grad_registry/function_grad.py).
"""
from __future__ import annotations

import functools
import inspect
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from ..eager import context
from ..framework import nest
from ..framework.func_graph import FuncGraph, capture_value, tracing, variables_captured
from ..framework.graph import SymbolicTensor
from ..framework.registry import source_converters
from ..framework.tensor import Tensor
from ..framework.dtypes import DType
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from .constant_op import convert_to_tensor
from .graph_function import GraphFunction, call_function, graph_output

_state = context.state


def _is_tensor_arg(value: Any) -> bool:
    return isinstance(value, (Tensor, np.ndarray))


def _leaf_key(value: Any) -> Any:
    if isinstance(value, Tensor):
        return ("T", value.dtype, tuple(value.shape.as_list()) if value.shape.rank is not None
                else None)
    if isinstance(value, np.ndarray):
        return ("T", str(value.dtype), value.shape)
    try:
        hash(value)
    except TypeError:
        return ("O", id(value))
    return ("P", type(value), value)


def _structure_key(value: Any) -> Any:
    """A hashable description of a nested argument structure and its leaves."""
    if isinstance(value, dict):
        return ("dict", tuple((k, _structure_key(value[k])) for k in sorted(value, key=str)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_structure_key(v) for v in value))
    return _leaf_key(value)


class ConcreteFunction:
    """One trace of a Python function: a GraphFunction plus how to map arguments."""

    def __init__(self, fn: GraphFunction, arg_structure: Any, structured_outputs: Any,
                 tensor_leaf_mask: List[bool], output_slots: List[Optional[int]]) -> None:
        self.function = fn
        self._arg_structure = arg_structure
        self.structured_outputs = structured_outputs
        self._tensor_leaf_mask = tensor_leaf_mask
        self._output_slots = output_slots
        self._num_args = sum(tensor_leaf_mask)

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

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        flat = nest.flatten([list(args), kwargs])
        if len(flat) != len(self._tensor_leaf_mask):
            raise TypeError(f"ConcreteFunction {self.graph.name} called with {len(flat)} "
                            f"argument leaves, traced with {len(self._tensor_leaf_mask)}")
        tensors = [leaf for leaf, is_t in zip(flat, self._tensor_leaf_mask, strict=True) if is_t]
        return self.call_flat(tensors)

    def call_flat(self, tensors: Sequence[Any]) -> Any:
        """Runs the graph on tensor arguments (in placeholder order) plus the captures."""
        placeholders = self.graph.inputs[:self._num_args]
        inputs = []
        for value, ph in zip(tensors, placeholders, strict=True):
            if not isinstance(value, Tensor):
                value = convert_to_tensor(value, dtype=ph.dtype)
            inputs.append(value)
        for variable in variables_captured(self.graph):
            for tape in _state.tapes:
                tape.variable_accessed(variable)
        inputs += self.captured_inputs
        outputs = call_function(self.function, inputs, name=self.graph.name)
        flat = [None if slot is None else outputs[slot] for slot in self._output_slots]
        return nest.pack_sequence_as(self.structured_outputs, flat)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.graph.name}>"


class Function:
    """A Python function traced into graphs; see `function`."""

    def __init__(self, python_function: Callable, input_signature: Optional[Sequence[Any]] = None,
                 name: Optional[str] = None, autograph: bool = True) -> None:
        self.python_function = python_function
        self._autograph = autograph
        self.input_signature = None if input_signature is None else list(input_signature)
        if self.input_signature is not None:
            for spec in nest.flatten(self.input_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"input_signature must hold TensorSpecs, got {spec!r}")
        self._name = name or getattr(python_function, "__name__", "function")
        self._cache: Dict[Any, ConcreteFunction] = {}
        self._tracing_count = 0
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
                             self._name, self._autograph)
            self._descriptor_cache[instance] = bound
        return bound

    def _canonical(self, args: tuple, kwargs: dict):
        if self._signature is None:
            return args, kwargs
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{self._name}(): {error}") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _signature_args(self, args: tuple, kwargs: dict) -> tuple:
        """Arguments converted and checked against `input_signature`."""
        if kwargs:
            args = args + tuple(kwargs.values())
        specs = self.input_signature or []
        if len(args) != len(specs):
            raise TypeError(f"{self._name}() takes {len(specs)} arguments under its "
                            f"input_signature, got {len(args)}")
        nest.assert_same_structure(list(specs), list(args))
        flat_specs = nest.flatten(list(specs))
        flat = []
        for spec, value in zip(flat_specs, nest.flatten(list(args)), strict=True):
            if isinstance(value, Tensor):
                if value.dtype != spec.dtype:
                    raise TypeError(f"{self._name}(): argument of dtype {value.dtype.name} does "
                                    f"not match input_signature {spec}")
            else:
                value = convert_to_tensor(value, dtype=spec.dtype)
            if not spec.shape.is_compatible_with(value.shape):
                raise ValueError(f"{self._name}(): argument of shape {value.shape} is "
                                 f"incompatible with input_signature {spec}")
            flat.append(value)
        return tuple(nest.pack_sequence_as(list(specs), flat))

    def _concrete(self, args: tuple, kwargs: dict):
        if self.input_signature is not None:
            args, kwargs = self._signature_args(args, kwargs), {}
            key = ("signature", _state.graph)
        else:
            args, kwargs = self._canonical(args, kwargs)
            key = (_structure_key([list(args), kwargs]), _state.graph)
        concrete = self._cache.get(key)
        if concrete is None:
            traced = (tuple(self.input_signature), {}) if self.input_signature is not None \
                else (args, kwargs)
            concrete = self._cache[key] = self._trace(*traced)
        return concrete, args, kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete, args, kwargs = self._concrete(args, kwargs)
        return concrete(*args, **kwargs)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (TensorSpecs allowed), made if needed."""
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        if any(isinstance(a, TensorSpec) for a in nest.flatten([list(args), kwargs])):
            return self._trace_specs(args, kwargs)
        return self._concrete(args, kwargs)[0]

    def _trace_specs(self, args: tuple, kwargs: dict) -> ConcreteFunction:
        args, kwargs = self._canonical(args, kwargs)
        key = (_structure_key(nest.map_structure(_spec_stand_in, [list(args), kwargs])),
               _state.graph)
        if self.input_signature is not None:
            key = ("signature", _state.graph)
            args, kwargs = tuple(self.input_signature), {}
        concrete = self._cache.get(key)
        if concrete is None:
            concrete = self._cache[key] = self._trace(args, kwargs)
        return concrete

    def _trace(self, args: tuple, kwargs: dict) -> ConcreteFunction:
        graph = FuncGraph(f"{self._name}_{self._tracing_count}", outer_graph=_state.graph)
        flat = nest.flatten([list(args), kwargs])
        mask = [_is_tensor_arg(leaf) or isinstance(leaf, TensorSpec) for leaf in flat]
        with tracing(graph):
            traced = []
            for leaf, is_t in zip(flat, mask, strict=True):
                if not is_t:
                    traced.append(leaf)
                    continue
                if isinstance(leaf, np.ndarray):
                    leaf = convert_to_tensor(leaf)
                traced.append(graph.add_input(leaf.dtype, leaf.shape, "args"))
            call_args, call_kwargs = nest.pack_sequence_as([list(args), kwargs], traced)
            self._tracing_count += 1
            result = self._traced_callable()(*call_args, **call_kwargs)
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
        fn = GraphFunction(graph, graph.inputs, outputs)
        return ConcreteFunction(fn, [list(args), kwargs], result, mask, slots)

    def _traced_callable(self) -> Callable:
        """The Python function, converted by AutoGraph unless `autograph=False`."""
        convert = source_converters.get("autograph") if self._autograph else None
        return self.python_function if convert is None else convert(self.python_function)

    def __repr__(self) -> str:
        return f"<dg.function {self._name}>"


def _spec_stand_in(value: Any) -> Any:
    if isinstance(value, TensorSpec):
        return _SpecKey(value)
    return value


class _SpecKey(Tensor):
    """Lets a TensorSpec argument key the cache like a tensor of that spec."""

    __slots__ = ("dtype", "shape")
    dtype: DType
    shape: TensorShape

    def __init__(self, spec: TensorSpec) -> None:
        self.dtype = spec.dtype
        self.shape = spec.shape


def function(func: Optional[Callable] = None, input_signature: Optional[Sequence[Any]] = None,
             autograph: bool = True, jit_compile: Any = None, reduce_retracing: bool = False,
             experimental_compile: Any = None, name: Optional[str] = None, **unused: Any) -> Any:
    """Compiles `func` into a graph-backed callable (usable as a decorator, with or
    without arguments). Python side effects run only while tracing."""
    if func is None:
        return functools.partial(function, input_signature=input_signature, name=name,
                                 autograph=autograph)
    return Function(func, input_signature, name, autograph)


__all__ = ["function"]
