"""Source datasets: from_tensor_slices, from_tensors, range, from_generator."""
from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional

import numpy as np

from ..framework import dtypes, errors, nest
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from . import structure
from .slicing import as_int
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, IterationContext


class TensorDataset(Dataset):
    """One element: the given value (Dataset.from_tensors)."""

    def __init__(self, value: Any) -> None:
        spec, self._leaves = structure.normalize(value, "from_tensors")
        super().__init__(spec)

    def graph_tensors(self) -> list:
        return [leaf for leaf in self._leaves if isinstance(leaf, Tensor)]

    def cardinality_value(self) -> int:
        return 1

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        yield tuple(ctx.value_of(leaf) for leaf in self._leaves)


class TensorSliceDataset(Dataset):
    """The slices of the given value along its first dimension (from_tensor_slices)."""

    def __init__(self, value: Any) -> None:
        spec, leaves = structure.normalize(value, "from_tensor_slices")
        if not leaves:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        sizes = []
        for leaf_spec in structure.flat_specs(spec):
            dims = leaf_spec.shape.dims
            if dims is not None and not dims:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1, "
                                 f"got {leaf_spec!r}")
            sizes.append(None if dims is None else dims[0])
        known = {s for s in sizes if s is not None}
        if len(known) > 1:
            first, other = sorted(known, key=sizes.index)[:2]
            raise ValueError(f"Dimensions {first} and {other} are not compatible")
        self._leaves: List[Any] = leaves
        self._size = known.pop() if known else None
        super().__init__(structure.map_specs(structure.unbatched_spec, spec))

    def graph_tensors(self) -> list:
        return [leaf for leaf in self._leaves if isinstance(leaf, Tensor)]

    def cardinality_value(self) -> int:
        return UNKNOWN_CARDINALITY if self._size is None else self._size

    def columns(self, ctx: IterationContext) -> List[np.ndarray]:
        """The arrays this dataset slices (its elements are their rows)."""
        arrays = [ctx.value_of(leaf) for leaf in self._leaves]
        sizes = {a.shape[0] if a.ndim else None for a in arrays}
        if None in sizes or len(sizes) != 1:
            raise errors.InvalidArgumentError(
                None, None, "All components must have the same size in dimension 0, got "
                f"shapes {[list(a.shape) for a in arrays]}")
        return arrays

    def block_reader(self, ctx: IterationContext) -> Any:
        from .blocks import BlockReader
        arrays = self.columns(ctx)
        return BlockReader(arrays[0].shape[0], lambda rows: _rows(arrays, rows))

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        arrays = [structure.row_view(a) for a in self.columns(ctx)]
        if len(arrays) == 1:
            (array,) = arrays
            for row in array:
                yield (row,)
            return
        yield from zip(*arrays, strict=True)


def _rows(arrays: List[np.ndarray], rows: Any) -> tuple:
    """The rows of each array: a slice, or a gather (np.take: NumPy's faster gather
    than fancy indexing along the first axis)."""
    if isinstance(rows, slice):
        return tuple(a[rows] for a in arrays)
    return tuple(np.take(a, rows, axis=0) for a in arrays)


class RangeDataset(Dataset):
    """range(start, stop, step) as int64 elements (Dataset.range; counter)."""

    def __init__(self, *args: Any, dtype: Any = dtypes.int64, name: Optional[str] = None,
                 infinite: bool = False) -> None:
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        values = [as_int(a, name) for a, name in zip(args, ("start", "stop", "step")[:len(args)], strict=True)]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (
            values[0], values[1], values[2] if len(values) == 3 else 1)
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self._range = range(start, stop, step)
        self._infinite = infinite
        self._dtype = dtypes.as_dtype(dtype)
        super().__init__(TensorSpec(TensorShape([]), self._dtype))

    def cardinality_value(self) -> int:
        return INFINITE_CARDINALITY if self._infinite else len(self._range)

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        np_type = self._dtype.as_numpy_dtype
        for value in self._range:
            yield (np.array(value, np_type),)


def _signature_from_types(output_types: Any, output_shapes: Any) -> Any:
    """The TensorSpecs of TF's older `output_types`/`output_shapes` arguments."""
    types_ = nest.flatten(output_types)
    if output_shapes is None:
        shapes: List[Any] = [None] * len(types_)
    else:
        shapes = _flatten_up_to(output_types, output_shapes)
    specs = [TensorSpec(TensorShape(s), dtypes.as_dtype(t))
             for s, t in zip(shapes, types_, strict=True)]
    if not nest.is_nested(output_types):
        return specs[0]
    return nest.pack_sequence_as(output_types, specs)


def _flatten_up_to(shallow: Any, deep: Any) -> List[Any]:
    """`deep`'s parts at the leaves of `shallow` (a shape is a leaf though it is a list)."""
    out: List[Any] = []
    stack = [(shallow, deep)]
    while stack:
        s, d = stack.pop()
        if isinstance(s, dict):
            if not isinstance(d, dict) or set(s) != set(d):
                raise ValueError(f"`output_shapes` {deep!r} does not match the structure of "
                                 f"`output_types` {shallow!r}")
            keys = sorted(s, key=lambda k: (str(type(k)), k))
            stack.extend((s[k], d[k]) for k in reversed(keys))
        elif isinstance(s, (tuple, list)):
            if not isinstance(d, (tuple, list)) or len(s) != len(d):
                raise ValueError(f"`output_shapes` {deep!r} does not match the structure of "
                                 f"`output_types` {shallow!r}")
            stack.extend(reversed(list(zip(s, d, strict=True))))
        else:
            out.append(d)
    return out


class GeneratorDataset(Dataset):
    """The values a Python generator yields, checked against a signature."""

    def __init__(self, generator: Callable, output_types: Any, output_shapes: Any,
                 args: Any, output_signature: Any) -> None:
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None:
                raise TypeError("The `output_types` argument can not be used together with "
                                "the `output_signature` argument.")
            if output_shapes is not None:
                raise TypeError("The `output_shapes` argument can not be used together with "
                                "the `output_signature` argument.")
            for spec in nest.flatten(output_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"`output_signature` must contain objects that are subclass "
                                    f"of `tf.TypeSpec` but found {type(spec)} which is not.")
            spec = output_signature
        else:
            if output_types is None:
                raise TypeError("`output_types` can not be `None` when `output_signature` is "
                                "not provided.")
            spec = _signature_from_types(output_types, output_shapes)
        self._generator = generator
        self._args = tuple(args) if args is not None else ()
        super().__init__(spec)

    def elements(self, ctx: IterationContext) -> Iterator[tuple]:
        specs = structure.flat_specs(self.element_spec)
        args = [np.asarray(a.numpy() if isinstance(a, Tensor) else a) for a in self._args]
        values = iter(self._generator(*args))
        while True:
            try:
                value = next(values)
            except StopIteration:
                return
            except Exception as error:  # noqa: BLE001 - given TF's class, chained
                raise errors.from_python_error(error) from error
            yield self._check(value, specs)

    def _check(self, value: Any, specs: list) -> tuple:
        spec_structure = self.element_spec
        if not structure.is_structure(spec_structure):
            leaves = [value]  # one tensor: a tuple or list yielded is its value
        else:
            value_structure, leaves = structure.flatten_value(value)
            if not structure.same_structure(nest.map_structure(lambda _: 0, spec_structure),
                                            nest.map_structure(lambda _: 0, value_structure)) \
                    or len(leaves) != len(specs):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element that did not match "
                    f"the expected structure. The expected structure was {self._types()}, but "
                    f"the yielded element was {value}.")
        out = []
        for leaf, spec in zip(leaves, specs, strict=True):
            try:
                array = np.asarray(structure.leaf_array(leaf if not isinstance(leaf, tuple)
                                                        else list(leaf)))
                target = spec.dtype.as_numpy_dtype
                if (spec.dtype == dtypes.string) != (array.dtype == object):
                    raise TypeError("incompatible dtype")
                if array.dtype != target:
                    if array.dtype.kind not in "biuf" or (array.dtype.kind == "f" and
                                                          np.dtype(target).kind in "iub"):
                        raise TypeError("incompatible dtype")
                    array = array.astype(target)
            except (TypeError, ValueError):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element that could not be "
                                f"converted "
                                f"to the expected type. The expected type was "
                                f"{spec.dtype.name}, but the yielded element was "
                                f"{leaf}.") from None
            if not TensorShape(array.shape).is_compatible_with(spec.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element of shape {array.shape} where an "
                    f"element of shape {tuple(spec.shape.as_list()) if spec.shape.dims is not None else None} "
                    "was expected.")
            out.append(array)
        return tuple(out)

    def _types(self) -> Any:
        return nest.map_structure(lambda s: s.dtype, self.element_spec) \
            if structure.is_structure(self.element_spec) else self.element_spec.dtype


__all__ = ["TensorDataset", "TensorSliceDataset", "RangeDataset", "GeneratorDataset"]
