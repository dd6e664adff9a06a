"""Eager iterators over a dataset: `iter(dataset)` and `as_numpy_iterator()`.

An iterator owns one run of the pipeline (a generator of flat elements). When
the iterator is closed or garbage-collected the generator is closed, which
runs the `finally` blocks of every stage: background threads are told to stop
and are joined there (threads.py), so no thread outlives its iterator.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Iterator, Optional

from ..eager import context
from ..framework import errors
from . import structure
from .dataset import Dataset, ErrorElement
from .threads import prefetched

END_OF_SEQUENCE = "End of sequence"


def _building_function() -> bool:
    graph = context.state.graph
    return graph is not None and bool(getattr(graph, "building_function", False))


class OwnedIterator:
    """tf.data.Iterator in eager mode: `next()`, `get_next()`, `get_next_as_optional()`."""

    def __init__(self, dataset: Dataset, resources: Any = None,
                 bindings: Optional[dict] = None) -> None:
        self._dataset = dataset
        self._spec = dataset.element_spec
        if context.state.graph is not None:
            # a kernel of a graph being run (a Session in graph mode): the pipeline's
            # Python functions must run eagerly, so the pipeline runs on its own thread,
            # with the Session's resources held weakly (it must not keep the Session
            # alive; Session.close() releases the iterator first)
            store = None if resources is None else weakref.proxy(resources)
            elements = prefetched(dataset.run_eagerly(store, bindings, True), 1,
                                  "graph_iterator")
        else:
            elements = dataset.run_eagerly(resources, bindings, True)
        self._elements: Optional[Iterator[tuple]] = elements
        self._lock = threading.Lock()
        self._graph_view: Any = None

    @property
    def element_spec(self) -> Any:
        return self._spec

    @property
    def dataset(self) -> Dataset:
        return self._dataset

    # -- as a dg.function argument (data/iterator_arguments.py) ----------------------
    def function_argument_spec(self) -> Any:
        from .iterator_arguments import IteratorSpec
        return IteratorSpec(self._spec)

    def eager_argument_value(self) -> Any:
        from .arguments import VariantHandle
        return VariantHandle(self)

    def graph_argument_value(self) -> Any:
        """Passed in a graph being built: the iterator itself, as a capture."""
        from .arguments import object_variant
        return object_variant(self)

    def graph_iterator(self) -> Any:
        """This iterator's ops inside a dg.function (AutoGraph's `for x in iterator`,
        `next(iterator)`): running them advances this iterator (see graph_ops)."""
        if self._graph_view is None:
            from .graph_ops import eager_iterator_ops
            self._graph_view = eager_iterator_ops(self)
        return self._graph_view

    def next_flat(self) -> Optional[tuple]:
        """The next flat element, or None at the end (the iterator then stays ended)."""
        with self._lock:
            elements = self._elements
            if elements is None:
                return None
            try:
                element = next(elements)
            except StopIteration:
                self._elements = None
                return None
            except BaseException:
                # the pipeline stops at an error (its generators are finished): the
                # next call ends the iteration instead of running a dead generator
                self._elements = None
                raise
        if type(element) is ErrorElement:
            # an element's error: raised here, and the iteration goes on after it
            raise element.error
        return element

    def __iter__(self) -> "OwnedIterator":
        return self

    def __next__(self) -> Any:
        if _building_function():
            return self.graph_iterator().get_next()
        flat = self.next_flat()
        if flat is None:
            raise StopIteration
        return structure.pack(self._spec, flat)

    def get_next(self, name: Optional[str] = None) -> Any:
        """The next element; OutOfRangeError at the end (TF's get_next)."""
        if _building_function():
            return self.graph_iterator().get_next(name)
        flat = self.next_flat()
        if flat is None:
            raise errors.OutOfRangeError(None, None, END_OF_SEQUENCE)
        return structure.pack(self._spec, flat)

    def get_next_as_optional(self) -> "Optional_":
        flat = self.next_flat()
        return Optional_(self._spec, None if flat is None else structure.pack(self._spec, flat))

    def close(self) -> None:
        """Stops the pipeline now (its threads are joined); later calls end at once."""
        with self._lock:
            elements, self._elements = self._elements, None
        if elements is not None:
            close = getattr(elements, "close", None)
            if close is not None:
                close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


class Optional_:
    """tf.experimental.Optional: a value or nothing (get_next_as_optional's result)."""

    def __init__(self, element_spec: Any, value: Any) -> None:
        self.element_spec = element_spec
        self._value = value

    def has_value(self, name: Optional[str] = None) -> Any:
        from ..ops.constant_op import constant
        return constant(self._value is not None)

    def get_value(self, name: Optional[str] = None) -> Any:
        if self._value is None:
            raise errors.InvalidArgumentError(None, None, "The optional does not have a value")
        return self._value


class NumpyIterator:
    """as_numpy_iterator(): the elements as NumPy values."""

    def __init__(self, dataset: Dataset) -> None:
        self._iterator = OwnedIterator(dataset)
        self._spec = dataset.element_spec

    def __iter__(self) -> "NumpyIterator":
        return self

    def __next__(self) -> Any:
        flat = self._iterator.next_flat()
        if flat is None:
            raise StopIteration
        return structure.pack_numpy(self._spec, [a.copy() if a.ndim else a for a in flat])

    def next(self) -> Any:
        return self.__next__()


Iterator_ = OwnedIterator

__all__ = ["OwnedIterator", "NumpyIterator", "Optional_", "END_OF_SEQUENCE"]
