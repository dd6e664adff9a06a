"""Datasets in graphs: iterator ops run by a Session or inside a dg.function.

An `IteratorResource` is the state one iterator op set shares: the running
pipeline (an OwnedIterator) and, for loops, the element just fetched. It lives
in the resource store the kernels receive (a Session's, or eager mode's, which
keeps it on the resource object itself), so every Session has its own
iterator. The ops (TensorFlow's names):

- `MakeIterator(graph tensors...)`: starts a fresh iteration, binding the graph
  tensors the dataset was built from (an initializable iterator's feeds);
- `IteratorGetNext`: the next element, OutOfRangeError("End of sequence") at the
  end; a one-shot iterator starts itself on first use;
- `IteratorGetNextAsOptional` / `OptionalGetValue`: whether there is a next
  element, then that element (the two halves of a `for` loop over a dataset).
"""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..framework import dtypes, errors
from ..framework.op_def import declare_op
from ..framework.tensor_shape import TensorShape
from ..ops.dispatch import apply_op
from . import structure
from .dataset import Dataset
from .iterator import END_OF_SEQUENCE, OwnedIterator


MAX_TRACED_NEXT = 10_000


class IteratorResource:
    """The state of one graph iterator; a key of the resource store."""

    def __init__(self, dataset: Dataset, name: str, one_shot: bool) -> None:
        self.dataset = dataset
        self.name = name
        self.one_shot = one_shot
        self._eager_state: Optional["IteratorState"] = None

    # the eager resource store keeps values on the resource object
    def eager_value(self) -> Optional["IteratorState"]:
        return self._eager_state

    def set_eager_value(self, value: "IteratorState") -> None:
        self._eager_state = value


class IteratorState:
    """A running iteration and the element a has-next test fetched."""

    def __init__(self, iterator: OwnedIterator) -> None:
        self.iterator = iterator
        self.fetched: Optional[tuple] = None

    def release(self) -> None:
        """Stops the pipeline (its threads are joined): Session.close() calls it."""
        self.fetched = None
        self.iterator.close()


def _state(resources: Any, resource: IteratorResource, start: bool,
           bindings: Optional[dict] = None) -> IteratorState:
    found = None
    initialized = getattr(resources, "is_initialized", None)
    if initialized is None or initialized(resource):
        found = resources.read(resource)
    if found is None:
        if not start:
            raise errors.FailedPreconditionError(
                None, None, "GetNext() failed because the iterator has not been initialized. "
                "Ensure that you have run the initializer operation for this iterator before "
                "getting the next element.")
        found = IteratorState(OwnedIterator(resource.dataset, resources, bindings))
        resources.write(resource, found)
    return found


def tensor_bindings(tensors: tuple, values: tuple) -> dict:
    """{id(graph tensor): its value in this run}; a variable handle's value is the
    variable itself."""
    return {id(t): v if t.dtype in (dtypes.resource, dtypes.variant) else np.asarray(v)
            for t, v in zip(tensors, values, strict=True)}


def _make_iterator_kernel(resources: Any, *arrays: Any, resource: IteratorResource,
                          tensors: tuple) -> None:
    bindings = tensor_bindings(tensors, arrays)
    previous = None
    initialized = getattr(resources, "is_initialized", None)
    if initialized is None or initialized(resource):
        previous = resources.read(resource)
    if previous is not None:
        previous.iterator.close()
    resources.write(resource, IteratorState(
        OwnedIterator(resource.dataset, resources, bindings)))


def _get_next_kernel(resources: Any, *arrays: Any, resource: IteratorResource,
                     specs: tuple, tensors: tuple = ()) -> tuple:
    """A one-shot iterator gets the graph tensors its dataset captured (constants and
    what is computed from them) as inputs, bound when it starts itself."""
    state = _state(resources, resource, resource.one_shot, tensor_bindings(tensors, arrays))
    flat = state.iterator.next_flat()
    if flat is None:
        raise errors.OutOfRangeError(None, None, END_OF_SEQUENCE)
    return _checked(flat, specs)


def _has_next_kernel(resources: Any, resource: IteratorResource) -> np.ndarray:
    state = _state(resources, resource, resource.one_shot)
    state.fetched = state.iterator.next_flat()
    return np.array(state.fetched is not None)


def _fetched_kernel(resources: Any, resource: IteratorResource, specs: tuple) -> tuple:
    state = _state(resources, resource, False)
    if state.fetched is None:
        raise errors.InvalidArgumentError(None, None, "The optional does not have a value")
    return _checked(state.fetched, specs)


def _checked(flat: tuple, specs: tuple) -> tuple:
    return tuple(np.asarray(a) for a in flat)


def _element_outputs(inputs: Any, attrs: dict) -> list:
    return [(spec.dtype, spec.shape) for spec in attrs["specs"]]


MAKE_ITERATOR = declare_op("MakeIterator", _make_iterator_kernel, lambda inputs, attrs: [],
                           num_outputs=0, stateful=True, side_effects=True, grad_inputs=())
ITERATOR_GET_NEXT = declare_op("IteratorGetNext", _get_next_kernel, _element_outputs,
                               num_outputs=-1, stateful=True, side_effects=True, grad_inputs=())
HAS_NEXT = declare_op("IteratorGetNextAsOptional", _has_next_kernel,
                      lambda inputs, attrs: [(dtypes.bool_, TensorShape([]))], stateful=True,
                      side_effects=True, grad_inputs=())
FETCHED = declare_op("OptionalGetValue", _fetched_kernel, _element_outputs, num_outputs=-1,
                     stateful=True, side_effects=True, grad_inputs=())


def _tensor_specs(dataset: Dataset) -> tuple:
    specs = tuple(structure.flat_specs(dataset.element_spec))
    for spec in specs:
        if isinstance(spec, structure.DatasetSpec):
            raise TypeError("A dataset of datasets (from `window`) cannot be iterated in a "
                            "graph; flat_map it first.")
    return specs


class GraphIterator:
    """The ops of one iterator over `dataset` in the graph being built."""

    def __init__(self, dataset: Dataset, one_shot: bool, name: str = "Iterator",
                 resource: Optional[IteratorResource] = None) -> None:
        self._dataset = dataset
        self._specs = _tensor_specs(dataset)
        self._resource = resource or IteratorResource(dataset, name, one_shot)
        self._initializer: Any = None
        self._traced_nexts = 0
        self._one_shot_tensors: tuple = ()
        if one_shot:
            self._one_shot_tensors = tuple(dataset.graph_tensors())
        else:
            tensors = tuple(dataset.graph_tensors())
            self._initializer = apply_op(MAKE_ITERATOR, list(tensors),
                                         {"resource": self._resource, "tensors": tensors},
                                         "MakeIterator")

    @property
    def initializer(self) -> Any:
        if self._initializer is None:
            raise ValueError("The iterator does not have an initializer. This means it was "
                             "likely created using `tf.data.Dataset.make_one_shot_iterator()`.")
        return self._initializer

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    @property
    def output_types(self) -> Any:
        return structure.map_specs(lambda s: s.dtype, self._dataset.element_spec)

    @property
    def output_shapes(self) -> Any:
        return structure.map_specs(lambda s: s.shape, self._dataset.element_spec)

    def get_next(self, name: Optional[str] = None) -> Any:
        """The next element as graph tensors (a new IteratorGetNext op per call)."""
        tensors = self._one_shot_tensors
        outputs = apply_op(ITERATOR_GET_NEXT, list(tensors),
                           {"resource": self._resource, "specs": self._specs,
                            "tensors": tensors}, name or "IteratorGetNext")
        return _pack(self._dataset.element_spec, list(outputs))

    def __iter__(self) -> "GraphIterator":
        return self

    def __next__(self) -> Any:
        """`next(iterator)` inside dg.function: get_next (OutOfRangeError past the end,
        when the function runs). A Python loop calling it while tracing would never
        end (get_next cannot know the end then): it stops with an error instead."""
        self._traced_nexts += 1
        if self._traced_nexts > MAX_TRACED_NEXT:
            raise RuntimeError(
                f"{MAX_TRACED_NEXT} next() calls on a dataset iterator while tracing: a Python "
                "loop over a dataset in a graph does not end. Let AutoGraph convert the loop "
                "(dg.function's autograph=True, the default) or iterate eagerly.")
        return self.get_next()

    def has_next(self) -> Any:
        """A bool tensor: whether another element was fetched (kept for `fetched`)."""
        return apply_op(HAS_NEXT, [], {"resource": self._resource}, "IteratorGetNextAsOptional")

    def fetched(self) -> Any:
        """The element the last `has_next` fetched, as graph tensors."""
        outputs = apply_op(FETCHED, [], {"resource": self._resource, "specs": self._specs},
                           "OptionalGetValue")
        return _pack(self._dataset.element_spec, list(outputs))


def eager_iterator_ops(iterator: OwnedIterator) -> GraphIterator:
    """The ops of an eager iterator used inside a dg.function (a closure or an
    argument): they advance that iterator when the function runs, as TF's iterator
    resource captured by a tf.function."""
    resource = IteratorResource(iterator.dataset, "Iterator", one_shot=True)
    resource.set_eager_value(IteratorState(iterator))
    return GraphIterator(iterator.dataset, one_shot=True, resource=resource)


def _pack(element_spec: Any, tensors: List[Any]) -> Any:
    if not structure.is_structure(element_spec):
        return tensors[0]
    from ..framework import nest
    return nest.pack_sequence_as(element_spec, tensors)


__all__ = ["GraphIterator", "IteratorResource"]
