"""User functions of a pipeline (map, filter, reduce, ...), traced once into a graph.

As TensorFlow does, the function is converted by AutoGraph and traced once,
with placeholders of the input element's spec, when the transformation is
built; the trace gives the output's element_spec, and every element then runs
the compiled graph on NumPy arrays (no retracing, no Python per op).
"""
from __future__ import annotations

from typing import Any, Callable, List, Sequence

from ..autograph.conversion import convert
from ..eager.execute import EAGER_RESOURCES
from ..framework import errors, nest
from ..framework.errors import OpError
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from ..ops.constant_op import convert_to_tensor
from ..ops.functions.function import Function
from ..ops.array.join_ops import stack
from . import structure


def should_unpack(element: Any) -> bool:
    """tf.data passes a plain tuple as positional arguments, anything else as one."""
    return type(element) is tuple


def call_with_element(func: Callable, element: Any) -> Any:
    return func(*element) if should_unpack(element) else func(element)


def lists_as_tuples(value: Any) -> Any:
    """A function's result with its lists made tuples (structure), as tf.data does."""
    if isinstance(value, list):
        return tuple(lists_as_tuples(v) for v in value)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(lists_as_tuples(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, lists_as_tuples(v)) for k, v in value.items())
    return value


def as_tensor(value: Any) -> Any:
    """A returned leaf as a tensor; a Python list holding tensors is stacked (as TF packs
    it), lists nested in it too."""
    if isinstance(value, list) and any(isinstance(v, (Tensor, list)) for v in value):
        return stack([as_tensor(v) for v in value])
    return convert_to_tensor(value)


class StructuredFunction:
    """`func` of one element of `input_spec`, traced once; runs on flat arrays."""

    def __init__(self, func: Callable, input_spec: Any, transformation: str) -> None:
        if not callable(func):
            raise TypeError(f"`{transformation}` function must be callable, got {func!r}")
        self.transformation = transformation
        self.input_spec = input_spec
        specs = structure.flat_specs(input_spec)
        for spec in specs:
            if isinstance(spec, structure.DatasetSpec):
                raise TypeError(f"`{transformation}`: a function of dataset elements (from "
                                "`window`) is supported by `flat_map` and `interleave` only.")
        converted = convert(func)
        self._output_structure: Any = None

        def flat_call(*tensors: Any) -> List[Any]:
            element = tensors[0] if not structure.is_structure(input_spec) \
                else nest.pack_sequence_as(input_spec, list(tensors))
            result = lists_as_tuples(call_with_element(converted, element))
            if isinstance(result, Tensor) or not isinstance(result, (tuple, dict)):
                result_structure, leaves = None, [result]
            else:
                result_structure, leaves = structure.flatten_value(result)
            self._output_structure = result_structure
            return [as_tensor(leaf) for leaf in leaves]

        name = getattr(func, "__name__", "fn").replace("<", "").replace(">", "")
        traced = Function(flat_call, input_signature=list(specs), autograph=False,
                          name=f"{transformation}_{name}")
        self._concrete = traced.get_concrete_function()
        outputs = self._concrete.outputs
        out_specs = [TensorSpec(t.shape, t.dtype) for t in outputs]
        if self._output_structure is None:
            self.output_spec: Any = out_specs[0]
        else:
            self.output_spec = nest.pack_sequence_as(self._output_structure, out_specs)
        self._graph_function = self._concrete.function
        from ..framework import dtypes
        self._string_outputs = [k for k, t in enumerate(outputs) if t.dtype == dtypes.string]
        kind = transformation[0].upper() + transformation[1:].replace("_", "")
        self._prefix = f"Error in user-defined function passed to {kind}Dataset " \
            "transformation: "
        captured = list(self._concrete.captured_inputs)
        self._captures = [getattr(c, "array", c) for c in captured]
        # TF1 graph mode: captured tensors of the graph the dataset was built in
        # (placeholders, constants, variable handles) take the values the iterator
        # bound when it started (BoundResources.bindings)
        self.graph_captures = [c for c in captured
                               if isinstance(c, Tensor) and not hasattr(c, "array")]
        self._graph_slots = [i for i, c in enumerate(captured)
                             if isinstance(c, Tensor) and not hasattr(c, "array")]

    @property
    def graph(self) -> Any:
        return self._concrete.graph

    @property
    def is_stateful(self) -> bool:
        """Whether the trace has stateful ops (random, py_function, variable writes)."""
        return bool(self._graph_function.is_stateful)

    def __call__(self, flat: Sequence[Any], resources: Any = None) -> tuple:
        """The outputs (flat arrays) for one element given as flat arrays; an error of
        the function names the transformation, keeping its class (as TF)."""
        captures = self._captures
        if self._graph_slots:
            captures = self._bound_captures(resources)
        arrays = list(flat) + captures if captures else flat
        try:
            out = self._graph_function.run(resources or EAGER_RESOURCES, arrays)
        except OpError as error:
            raise type(error)(error.node_def, error.op, self._prefix + error.message) from None
        if self._string_outputs:
            out = structure.string_results(out, self._string_outputs)
        return out

    def _bound_captures(self, resources: Any) -> list:
        bindings = getattr(resources, "bindings", None) or {}
        captures = list(self._captures)
        for slot in self._graph_slots:
            tensor = self._captures[slot]
            try:
                captures[slot] = bindings[id(tensor)]
            except KeyError:
                raise errors.InvalidArgumentError(
                    None, None, f"{self._prefix}the function captured the graph tensor "
                    f"{tensor.name}: iterate the dataset with dg.compat.v1.data."
                    "make_initializable_iterator (or make_one_shot_iterator) in a "
                    "Session.") from None
        return captures

    def call_structured(self, *tensors: Any) -> Any:
        """Calls the trace with tensors in the current mode (reduce, graph loops)."""
        return self._concrete.call_flat(list(tensors))


def scalar_bool_check(function: StructuredFunction, what: str) -> None:
    """TF's check that a predicate returns one scalar boolean."""
    from ..framework import dtypes
    spec = function.output_spec
    if not isinstance(spec, TensorSpec) or spec.dtype != dtypes.bool_ or \
            not spec.shape.is_compatible_with([]):
        raise ValueError(f"Invalid `{what}`. `{what}` must return a `dg.bool` scalar tensor, "
                         f"but its return type is {spec}.")
