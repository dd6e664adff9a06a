"""batch, padded_batch, unbatch and rebatch."""
from __future__ import annotations

import itertools
from typing import Any, Iterator, List, Sequence

import numpy as np

from ..framework import dtypes, errors, nest
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from . import structure
from .dataset import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, ErrorElement,
                      IterationContext, failed_element)
from .slicing import UnknownInt, as_int


def _positive(value: Any, what: str) -> int:
    n = as_int(value, what)
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
    return n


def _batched_cardinality(n: int, size: int, drop_remainder: bool) -> int:
    if n < 0:
        return n
    return n // size if drop_remainder else -(-n // size)


def stack_component(parts: Sequence[np.ndarray], component: int) -> np.ndarray:
    """np.stack of one component of a batch, with TF's error for differing shapes."""
    first = parts[0].shape
    for part in parts:
        if part.shape != first:
            raise errors.InvalidArgumentError(
                None, None, "Cannot add tensor to the batch: number of elements does not "
                f"match. Shapes are: [tensor]: {_shape(part.shape)}, [batch]: {_shape(first)}")
    return np.stack(parts)


def _shape(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def batch_elements(group: List[tuple]) -> tuple:
    return tuple(stack_component(parts, k) for k, parts in enumerate(zip(*group, strict=True)))


class BatchDataset(Dataset):
    """batch(batch_size, drop_remainder): consecutive elements stacked."""

    def __init__(self, source: Dataset, batch_size: Any, drop_remainder: bool) -> None:
        self._size = _positive(batch_size, "batch_size")
        self._drop = bool(drop_remainder)
        dim = self._size if self._drop and not isinstance(self._size, UnknownInt) else None
        spec = structure.map_specs(lambda s: structure.batched_spec(s, dim), source.element_spec)
        super().__init__(spec, (source,))

    @property
    def batch_size(self) -> int:
        return self._size

    @property
    def drop_remainder(self) -> bool:
        return self._drop

    def cardinality_value(self) -> int:
        return _batched_cardinality(self._inputs[0].cardinality_value(), self._size, self._drop)

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        size = self._size
        blocks = self._inputs[0].blocks(ctx, size)
        if blocks is not None:   # consecutive elements already as one block each
            for block in blocks:
                if type(block) is ErrorElement:
                    yield block
                elif self._drop and block[0].shape[0] < size:
                    return
                yield block
            return
        upstream = self._inputs[0].elements(ctx)
        if not self.fused_with_map():
            yield from batches_of(upstream, size, self._drop, batch_elements,
                                  lambda error: failed_element(ctx, self, error))
            return
        while True:
            group = list(itertools.islice(upstream, size))
            if not group or (self._drop and len(group) < size):
                return
            # a batch holding an element that raised is that error (the whole batch
            # is lost, as TF's fused map-and-batch loses it)
            failed = next((e for e in group if type(e) is ErrorElement), None)
            if failed is not None:
                yield failed
                continue
            try:
                batch = batch_elements(group)
            except errors.OpError as error:
                yield failed_element(ctx, self, error)
                continue
            yield batch

    def fused_with_map(self) -> bool:
        """Whether TF fuses this batch with the map before it (map_and_batch_fusion):
        an element's error then loses its whole batch; otherwise only the elements
        gathered before it (see batches_of)."""
        from .mapping import MapDataset
        source = self._inputs[0]
        while getattr(source, "wraps", None) is not None:   # a DatasetV1 around it
            source = source.wraps
        return isinstance(source, MapDataset)


def batches_of(upstream: Iterator[Any], size: int, drop_remainder: bool,
               stack: Any, failed: Any) -> Iterator[Any]:
    """Groups of `size` elements made into batches by `stack`. An element's error
    (an ErrorElement) is that batch's result at once: the elements gathered before
    it are dropped and the next batch starts after it (TF's batch and
    padded_batch)."""
    while True:
        group: List[tuple] = []
        error = None
        for element in upstream:
            if type(element) is ErrorElement:
                error = element
                break
            group.append(element)
            if len(group) == size:
                break
        if error is not None:
            yield error
            continue
        if not group or (drop_remainder and len(group) < size):
            return
        try:
            batch = stack(group)
        except errors.OpError as stack_error:   # shapes that do not stack (the batch's)
            yield failed(stack_error)
            continue
        yield batch


def _padded_shape(value: Any) -> Any:
    """A padded shape; a dimension of -1 or None pads to the batch's longest (as TF)."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    if isinstance(value, (list, tuple)):
        value = [None if d is None or int(d) == -1 else int(d) for d in value]
    return TensorShape(value)


class PaddedBatchDataset(Dataset):
    """padded_batch: batch with each component padded to `padded_shapes` (or the
    batch's largest size in each unknown dimension) with `padding_values` (0)."""

    def __init__(self, source: Dataset, batch_size: Any, padded_shapes: Any,
                 padding_values: Any, drop_remainder: bool) -> None:
        self._size = _positive(batch_size, "batch_size")
        self._drop = bool(drop_remainder)
        specs = structure.flat_specs(source.element_spec)
        for spec in specs:
            if spec.shape.rank is None and padded_shapes is None:
                raise ValueError("You must provide `padded_shapes` argument because component "
                                 f"{specs.index(spec)} has unknown rank.")
        if padded_shapes is None:
            shapes = [TensorShape([None] * spec.shape.rank) for spec in specs]
        else:
            shapes = [_padded_shape(s) for s in _up_to(source.element_spec, padded_shapes)]
        for spec, shape in zip(specs, shapes, strict=True):
            if shape.rank is not None and spec.shape.rank is not None \
                    and shape.rank != spec.shape.rank:
                raise ValueError(f"The padded shape {shape} is not compatible with the shape "
                                 f"{spec.shape} of the corresponding input component.")
            if shape.dims is not None and spec.shape.dims is not None and any(
                    p is not None and d is not None and d > p
                    for p, d in zip(shape.dims, spec.shape.dims, strict=True)):
                raise ValueError(f"The padded shape {shape} is not compatible with the shape "
                                 f"{spec.shape} of the corresponding input component.")
        self._shapes = shapes
        if padding_values is None:
            self._pads = [_zero(s.dtype) for s in specs]
        else:
            values = _up_to(source.element_spec, padding_values) \
                if structure.is_structure(source.element_spec) else [padding_values]
            self._pads = [np.asarray(structure.leaf_array(v), s.dtype.as_numpy_dtype)
                          for v, s in zip(values, specs, strict=True)]
        dim = self._size if self._drop else None
        out = []
        for shape, spec in zip(shapes, specs, strict=True):
            dims = list(shape.dims or [])
            known = spec.shape.dims if spec.shape.dims is not None else [None] * len(dims)
            out.append(TensorSpec(TensorShape([dim] + [p if p is not None else d for p, d in zip(
                dims, known, strict=True)]), spec.dtype))
        spec = nest.pack_sequence_as(source.element_spec, out) \
            if structure.is_structure(source.element_spec) else out[0]
        super().__init__(spec, (source,))

    def cardinality_value(self) -> int:
        return _batched_cardinality(self._inputs[0].cardinality_value(), self._size, self._drop)

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        return batches_of(self._inputs[0].elements(ctx), self._size, self._drop,
                          self._padded, lambda error: failed_element(ctx, self, error))

    def _padded(self, group: List[tuple]) -> tuple:
        return tuple(self._pad(parts, k) for k, parts in enumerate(zip(*group, strict=True)))

    def _pad(self, parts: Sequence[np.ndarray], k: int) -> np.ndarray:
        shape = self._shapes[k]
        largest = np.max([p.shape for p in parts], axis=0) if parts[0].ndim else ()
        target = [int(m) if d is None else d
                  for d, m in zip(shape.dims or [], largest, strict=True)]
        for part in parts:
            if any(s > t for s, t in zip(part.shape, target, strict=True)):
                raise errors.DataLossError(
                    None, None, f"Attempted to pad to a smaller size than the input element. "
                    f"Input shape {_shape(part.shape)} padded shape {_shape(tuple(target))}")
        out = np.full([len(parts)] + target, self._pads[k], dtype=parts[0].dtype)
        for i, part in enumerate(parts):
            out[(i,) + tuple(slice(0, s) for s in part.shape)] = part
        return out


def _zero(dtype: Any) -> np.ndarray:
    """TF's default padding: 0, or the empty string for strings."""
    if dtype == dtypes.string:
        empty = np.empty((), dtype=object)
        empty[()] = b""
        return empty
    return np.zeros((), dtype.as_numpy_dtype)


def _up_to(spec_structure: Any, values: Any) -> List[Any]:
    """The leaves of `values` at the places of `spec_structure`'s leaves."""
    if not structure.is_structure(spec_structure):
        return [values]
    out: List[Any] = []
    stack = [(spec_structure, values)]
    while stack:
        s, v = stack.pop()
        if isinstance(s, dict):
            keys = sorted(s, key=lambda k: (str(type(k)), k))
            stack.extend((s[k], v[k]) for k in reversed(keys))
        elif isinstance(s, tuple):
            if not isinstance(v, (tuple, list)) or len(v) != len(s):
                raise ValueError(f"The two structures don't have the same sequence length. "
                                 f"Input structure has length {len(s)}, while shallow "
                                 f"structure has length {len(v) if hasattr(v, '__len__') else 1}.")
            stack.extend(reversed(list(zip(s, v, strict=True))))
        else:
            out.append(v)
    return out


class UnbatchDataset(Dataset):
    """unbatch(): each batch split back into its elements."""

    def __init__(self, source: Dataset) -> None:
        for spec in structure.flat_specs(source.element_spec):
            if spec.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        known = {s.shape.dims[0] for s in structure.flat_specs(source.element_spec)
                 if s.shape.dims is not None and s.shape.dims[0] is not None}
        if len(known) > 1:
            raise ValueError("Cannot unbatch an input whose components have different "
                             "batch sizes.")
        spec = structure.map_specs(structure.unbatched_spec, source.element_spec)
        super().__init__(spec, (source,))

    def cardinality_value(self) -> int:
        n = self._inputs[0].cardinality_value()
        if n == INFINITE_CARDINALITY:
            return n
        dims = {s.shape.dims[0] for s in structure.flat_specs(self._inputs[0].element_spec)
                if s.shape.dims is not None}
        if n >= 0 and len(dims) == 1 and None not in dims:
            return n * dims.pop()
        return 0 if n == 0 else UNKNOWN_CARDINALITY

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        for batch in self._inputs[0].elements(ctx):
            if type(batch) is ErrorElement:
                yield batch
                continue
            sizes = {part.shape[0] for part in batch}
            if len(sizes) != 1:
                yield failed_element(ctx, self, errors.InvalidArgumentError(
                    None, None, "Input element must have the same batch size in each "
                    f"component. Component 0 had size {batch[0].shape[0]} but component "
                    f"{next(i for i, p in enumerate(batch) if p.shape[0] != batch[0].shape[0])} "
                    f"had size {next(p.shape[0] for p in batch if p.shape[0] != batch[0].shape[0])}."))
                continue
            if len(batch) == 1:
                for row in structure.row_view(batch[0]):
                    yield (row,)
            else:
                yield from zip(*[structure.row_view(part) for part in batch], strict=True)


class RebatchDataset(Dataset):
    """rebatch(batch_size): the input's batches re-cut to `batch_size` (as unbatch+batch)."""

    def __init__(self, source: Dataset, batch_size: Any, drop_remainder: bool) -> None:
        self._size = _positive(batch_size, "batch_size")
        self._drop = bool(drop_remainder)
        self._inner = BatchDataset(UnbatchDataset(source), self._size, self._drop)
        super().__init__(self._inner.element_spec, (source,))

    def cardinality_value(self) -> int:
        return self._inner.cardinality_value()

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        return self._inner.elements(ctx)



__all__ = ["BatchDataset", "PaddedBatchDataset", "UnbatchDataset", "RebatchDataset",
           "stack_component", "batch_elements"]
