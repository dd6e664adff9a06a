"""An eager iterator passed to a dg.function as an argument, as TF passes it: one
variant placeholder traced once per element_spec (TF's IteratorSpec is the trace
key), fed the iterator object at each call; the ops built on it (`next(it)`,
`for x in it`) advance whichever iterator the call was given."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from ..framework import dtypes, errors, nest
from ..framework.op_def import declare_op
from ..framework.tensor_shape import TensorShape
from . import structure
from .iterator import END_OF_SEQUENCE


class IteratorSpec:
    """The trace key of an iterator argument: its element_spec."""

    def __init__(self, element_spec: Any) -> None:
        self.element_spec = element_spec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IteratorSpec) and other.element_spec == self.element_spec

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"IteratorSpec({self.element_spec!r})"

    def function_argument_spec(self) -> "IteratorSpec":
        return self

    def trace_signature(self) -> Tuple[Any, tuple]:
        key, dims = structure.DatasetSpec(self.element_spec).trace_signature()
        return ("iterator", key), dims

    def relaxed(self, dims: tuple) -> "IteratorSpec":
        return IteratorSpec(structure.DatasetSpec(self.element_spec).relaxed(dims).element_spec)

    def placeholder_value(self, placeholder: Any) -> "FedIterator":
        return FedIterator(placeholder, self.element_spec)


def _specs(element_spec: Any) -> tuple:
    return tuple(structure.flat_specs(element_spec))


def _next_kernel(resources: Any, iterator: Any, specs: tuple) -> tuple:
    flat = iterator.next_flat()
    if flat is None:
        raise errors.OutOfRangeError(None, None, END_OF_SEQUENCE)
    return tuple(np.asarray(a) for a in flat)


def _has_next_kernel(resources: Any, iterator: Any) -> np.ndarray:
    iterator.fetched_flat = iterator.next_flat()
    return np.array(iterator.fetched_flat is not None)


def _fetched_kernel(resources: Any, iterator: Any, specs: tuple) -> tuple:
    flat = getattr(iterator, "fetched_flat", None)
    if flat is None:
        raise errors.InvalidArgumentError(None, None, "The optional does not have a value")
    return tuple(np.asarray(a) for a in flat)


def _element_outputs(inputs: Any, attrs: dict) -> list:
    return [(spec.dtype, spec.shape) for spec in attrs["specs"]]


FED_GET_NEXT = declare_op("IteratorArgumentGetNext", _next_kernel, _element_outputs,
                          num_outputs=-1, stateful=True, side_effects=True, grad_inputs=())
FED_HAS_NEXT = declare_op("IteratorArgumentGetNextAsOptional", _has_next_kernel,
                          lambda inputs, attrs: [(dtypes.bool_, TensorShape([]))],
                          stateful=True, side_effects=True, grad_inputs=())
FED_FETCHED = declare_op("IteratorArgumentOptionalGetValue", _fetched_kernel,
                         _element_outputs, num_outputs=-1, stateful=True, side_effects=True,
                         grad_inputs=())


class FedIterator:
    """What a traced function sees for an iterator argument: `next()`, `get_next()`
    and AutoGraph's `for` build ops on the iterator fed to `placeholder`."""

    def __init__(self, placeholder: Any, element_spec: Any) -> None:
        self.placeholder = placeholder
        self.element_spec = element_spec
        self._specs = _specs(element_spec)

    def _pack(self, outputs: Any) -> Any:
        tensors: List[Any] = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if not structure.is_structure(self.element_spec):
            return tensors[0]
        return nest.pack_sequence_as(self.element_spec, tensors)

    def get_next(self, name: Optional[str] = None) -> Any:
        from ..ops.dispatch import apply_op
        return self._pack(apply_op(FED_GET_NEXT, [self.placeholder], {"specs": self._specs},
                                   name or "IteratorGetNext"))

    def __next__(self) -> Any:
        return self.get_next()

    def __iter__(self) -> "FedIterator":
        return self

    def graph_iterator(self) -> "FedIterator":
        return self

    def has_next(self) -> Any:
        from ..ops.dispatch import apply_op
        return apply_op(FED_HAS_NEXT, [self.placeholder], {}, "IteratorGetNextAsOptional")

    def fetched(self) -> Any:
        from ..ops.dispatch import apply_op
        return self._pack(apply_op(FED_FETCHED, [self.placeholder], {"specs": self._specs},
                                   "OptionalGetValue"))

    def function_argument_spec(self) -> IteratorSpec:
        return IteratorSpec(self.element_spec)

    def graph_argument_value(self) -> Any:
        return self.placeholder


__all__ = ["IteratorSpec", "FedIterator"]
