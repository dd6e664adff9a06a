"""reduce and scan: a traced function carrying a state across the elements."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from ..autograph.conversion import convert
from ..eager import context
from ..framework import errors, nest
from ..ops.array.array_ops import identity
from ..ops.constant_op import convert_to_tensor
from ..ops.control_flow.while_loop_ops import while_loop
from . import structure
from .dataset import Dataset, ErrorElement, IterationContext, failed_element
from .functions import StructuredFunction


def _state_spec_and_values(initial_state: Any) -> tuple:
    return structure.normalize(initial_state, "initial_state")


def _check_state(new_spec: Any, state_spec: Any, what: str) -> None:
    new_flat, old_flat = structure.flat_specs(new_spec), structure.flat_specs(state_spec)
    if not structure.same_structure(new_spec, state_spec) or len(new_flat) != len(old_flat):
        raise TypeError(f"Invalid `{what}`. The element structure for the new state must match "
                        f"the initial state. Expected {state_spec}; got {new_spec}.")
    old_types = [s.dtype for s in old_flat]
    new_types = [s.dtype for s in new_flat]
    if old_types != new_types:
        expected = old_types[0] if len(old_types) == 1 else tuple(old_types)
        got = new_types[0] if len(new_types) == 1 else tuple(new_types)
        raise TypeError(f"Invalid `{what}`. The element types for the new state must match "
                        f"the initial state. Expected {expected}, got {got}.")


def _relaxed(state_spec: Any, new_spec: Any) -> Any:
    merged = [structure.most_specific_compatible(a, b) for a, b in zip(
        structure.flat_specs(state_spec), structure.flat_specs(new_spec), strict=True)]
    return nest.pack_sequence_as(state_spec, merged) if structure.is_structure(state_spec) \
        else merged[0]


class _StateFunction:
    """func(state, element) traced once with a state spec general enough for every
    step (a dimension the step changes is traced unknown, as TF relaxes it)."""

    def __init__(self, func: Callable, state_spec: Any, element_spec: Any, what: str,
                 outputs_state_only: bool) -> None:
        func = convert(func)

        def split_call(state: Any, element: Any) -> Any:
            return func(state, *element) if type(element) is tuple else func(state, element)

        for _ in range(2):
            function = StructuredFunction(lambda s, e: split_call(s, e), (state_spec,
                                                                          element_spec), what)
            out = function.output_spec
            new_state = out if outputs_state_only else (out[0] if isinstance(out, tuple) and
                                                        len(out) == 2 else None)
            if new_state is None:
                raise TypeError(f"The `scan_func` must return a pair (new_state, output), "
                                f"got {out}")
            _check_state(new_state, state_spec, what)
            relaxed = _relaxed(state_spec, new_state)
            if relaxed == state_spec:
                break
            state_spec = relaxed
        self.function = function
        self.state_spec = state_spec
        self.width = len(structure.flat_specs(state_spec))


def reduce_dataset(dataset: Dataset, initial_state: Any, reduce_func: Callable) -> Any:
    """Dataset.reduce: the final state, as tensors (eagerly)."""
    state_spec, state = _state_spec_and_values(initial_state)
    step = _StateFunction(reduce_func, state_spec, dataset.element_spec, "reduce_func", True)
    if context.state.graph is not None:
        return _graph_reduce(dataset, step, state)
    values = tuple(np.asarray(v) for v in state)
    for element in dataset.run_eagerly():
        values = tuple(step.function(values + element))
    return structure.pack(step.state_spec, values)


def _graph_reduce(dataset: Dataset, step: "_StateFunction", state: list) -> Any:
    """reduce while a graph is built: a while_loop over the dataset's iterator ops."""
    iterator = dataset.graph_iterator()
    specs = structure.flat_specs(step.state_spec)
    with context.state.graph.control_dependencies([iterator.initializer]):  # start first
        initial = [identity(convert_to_tensor(v)) for v in state]

    def cond(*_: Any) -> Any:
        return iterator.has_next()

    def body(*values: Any) -> list:
        element = nest.flatten(iterator.fetched())
        return list(step.function.call_structured(*(list(values) + element)))

    final = while_loop(cond, body, initial, shape_invariants=[s.shape for s in specs])
    final = list(final) if isinstance(final, (list, tuple)) else [final]
    if not structure.is_structure(step.state_spec):
        return final[0]
    return nest.pack_sequence_as(step.state_spec, final)


class ScanDataset(Dataset):
    """scan(initial_state, scan_func): the outputs of a stateful step per element."""

    def __init__(self, source: Dataset, initial_state: Any, scan_func: Callable) -> None:
        state_spec, self._initial = _state_spec_and_values(initial_state)
        self._step = _StateFunction(scan_func, state_spec, source.element_spec, "scan_func", False)
        out_spec = self._step.function.output_spec[1]
        super().__init__(out_spec, (source,))

    @property
    def function(self) -> Any:
        """The traced step (what it captures of a TF1 graph is bound when iterated)."""
        return self._step.function

    def cardinality_value(self) -> int:
        return self._inputs[0].cardinality_value()

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        function, width = self._step.function, self._step.width
        state = tuple(np.asarray(v) for v in self._initial)
        for element in self._inputs[0].elements(ctx):
            if type(element) is ErrorElement:   # passed on; the state is unchanged
                yield element
                continue
            try:
                out = function(state + element, ctx.resources)
            except errors.OpError as error:   # the state is unchanged (as TF)
                yield failed_element(ctx, self, error)
                continue
            state, result = tuple(out[:width]), tuple(out[width:])
            yield result


__all__ = ["reduce_dataset", "ScanDataset"]
