"""Element structure: a nest of TensorSpecs (the `element_spec`) and its flat values.

A dataset's element is kept internally as a flat tuple of NumPy arrays (one per
TensorSpec leaf, in `nest.flatten` order) and packed into EagerTensors only when
the user sees it. As in tf.data, tuples, dicts and namedtuples are structure;
a Python list is a value (converted to one tensor), never structure.
"""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

from ..eager.eager_tensor import EagerTensor
from ..framework import dtypes, nest
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops.constant_op import to_numpy
from ..ops.tensor_util import constant_value


class DatasetSpec:
    """The spec of an element that is itself a dataset (`window`'s elements)."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and other.element_spec == self.element_spec

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, TensorShape({self.shape.as_list()}))"

    # -- as a dg.function argument's spec (see data/arguments.py) ------------------
    def function_argument_spec(self) -> "DatasetSpec":
        return self

    def trace_signature(self) -> Tuple[Any, tuple]:
        """(key, dims): a dg.function traces once per key (the structure, dtypes and
        ranks) and a trace whose dims are None where a call's are known serves that
        call, as TF's DatasetSpec subtyping: a `[None]` batch trace serves `[2]`."""
        leaves = flat_specs(self.element_spec)
        dims: list = []
        ranks: List[Any] = []
        for leaf in leaves:
            if isinstance(leaf, TensorSpec) and leaf.shape.rank is not None:
                ranks.append((leaf.dtype, leaf.shape.rank))
                dims.extend(leaf.shape.as_list())
            else:
                ranks.append(repr(leaf))
        structure = nest.map_structure(lambda _: 0, self.element_spec)
        return (repr(structure), tuple(ranks)), tuple(dims)

    def relaxed(self, dims: tuple) -> "DatasetSpec":
        """This spec with its known-rank components' dims replaced by `dims` (what
        trace_signature gives, relaxed by reduce_retracing)."""
        it = iter(dims)
        leaves = []
        for leaf in flat_specs(self.element_spec):
            if isinstance(leaf, TensorSpec) and leaf.shape.rank is not None:
                leaf = TensorSpec(TensorShape([next(it) for _ in range(leaf.shape.rank)]),
                                  leaf.dtype)
            leaves.append(leaf)
        spec = nest.pack_sequence_as(self.element_spec, leaves) \
            if is_structure(self.element_spec) else leaves[0]
        return DatasetSpec(spec, self.shape.as_list())

    def placeholder_value(self, placeholder: Any) -> Any:
        """What the traced function sees for a dataset argument of this spec."""
        from .arguments import DatasetArgument
        return DatasetArgument(placeholder, self.element_spec)


def is_structure(value: Any) -> bool:
    """Tuples and dicts (namedtuples included) nest; lists are tensors in tf.data."""
    return isinstance(value, (tuple, dict))


def _lists_as_leaves(value: Any) -> Any:
    """`value` with every list wrapped so that nest treats it as one leaf."""
    if isinstance(value, dict):
        return type(value)((k, _lists_as_leaves(v)) for k, v in value.items())
    if isinstance(value, tuple):
        parts = [_lists_as_leaves(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    if isinstance(value, list):
        return _ListLeaf(value)
    return value


class _ListLeaf:
    """A Python list standing for one tensor while a structure is flattened."""

    __slots__ = ("value",)

    def __init__(self, value: list) -> None:
        self.value = value


def flatten_value(value: Any) -> Tuple[Any, List[Any]]:
    """(structure with the leaves in place, leaves) of a user value; lists are leaves."""
    structure = _lists_as_leaves(value)
    leaves = [leaf.value if isinstance(leaf, _ListLeaf) else leaf
              for leaf in nest.flatten(structure)]
    return structure, leaves


def leaf_array(leaf: Any, what: str = "dataset element") -> Any:
    """A leaf as a NumPy array, or a SymbolicTensor kept as is (bound when iterated)."""
    if isinstance(leaf, EagerTensor):
        array = leaf.array   # a kernel's scalar result may be a NumPy scalar
        if type(array) is np.ndarray:
            return array
        return string_results((array,), (0,))[0] if isinstance(array, bytes) \
            else np.asarray(array)
    if isinstance(leaf, Tensor):
        static = constant_value(leaf)   # a graph constant has its value now
        return leaf if static is None else np.array(static)
    read = getattr(leaf, "read_value", None)
    if read is not None and hasattr(leaf, "dtype"):
        return leaf_array(read(), what)
    if leaf is None:
        raise TypeError(f"Failed to convert elements of {what} to Tensor: None values are "
                        "not supported.")
    return np.array(to_numpy(leaf))  # a copy: later changes to the caller's array do not leak in


def spec_of_leaf(leaf: Any) -> Any:
    """TensorSpec of an array / tensor, or the DatasetSpec of a dataset."""
    spec = getattr(leaf, "element_spec", None)
    if spec is not None and hasattr(leaf, "elements"):
        return DatasetSpec(spec)
    if isinstance(leaf, Tensor):
        return TensorSpec(leaf.shape, leaf.dtype)
    return TensorSpec(leaf.shape, dtypes.from_numpy(leaf.dtype))


def normalize(value: Any, what: str = "dataset element") -> Tuple[Any, List[Any]]:
    """(element_spec, flat arrays) of a user value (tensors, arrays, tuples, dicts)."""
    structure, leaves = flatten_value(value)
    arrays = [leaf if hasattr(leaf, "elements") else leaf_array(leaf, what) for leaf in leaves]
    specs = [spec_of_leaf(a) for a in arrays]
    return nest.pack_sequence_as(structure, specs), arrays


def flat_specs(element_spec: Any) -> List[Any]:
    return nest.flatten(element_spec)


def row_view(array: np.ndarray) -> Any:
    """What iterating `array` along its first dimension gives, each row an array or a
    NumPy scalar; a 1-D array of strings (dtype object) gives 0-d arrays, not the
    bytes objects NumPy would (every stage takes a row for an array)."""
    if array.dtype == object and array.ndim == 1:
        return (array[i, ...] for i in range(array.shape[0]))
    return array


def string_results(flat: Sequence[Any], positions: Sequence[int]) -> tuple:
    """`flat` with its string results at `positions` as object arrays: a kernel may give
    a scalar string as a bytes object, which NumPy would stack as its bytes dtype
    (dropping trailing NUL bytes)."""
    out = list(flat)
    for k in positions:
        if not isinstance(out[k], np.ndarray):
            scalar = np.empty((), dtype=object)
            scalar[()] = out[k]
            out[k] = scalar
    return tuple(out)


def pack(element_spec: Any, flat: Sequence[Any]) -> Any:
    """The user's view of a flat element: EagerTensors in the spec's structure."""
    leaves = [EagerTensor(value) if type(value) is np.ndarray else
              EagerTensor(np.asarray(value)) if isinstance(value, (np.ndarray, np.generic))
              else value for value in flat]
    if not is_structure(element_spec):
        return leaves[0]
    if type(element_spec) is tuple and len(element_spec) == len(leaves) and all(
            type(s) is TensorSpec for s in element_spec):
        return tuple(leaves)   # a flat tuple (the common (features, labels)): no nest walk
    return nest.pack_sequence_as(element_spec, leaves)


def pack_numpy(element_spec: Any, flat: Sequence[Any]) -> Any:
    """As `pack`, with NumPy values (scalars as NumPy scalars): as_numpy_iterator."""
    leaves = [value[()] if isinstance(value, np.ndarray) and value.ndim == 0
              else value for value in flat]
    if not is_structure(element_spec):
        return leaves[0]
    return nest.pack_sequence_as(element_spec, leaves)


def map_specs(func: Any, element_spec: Any) -> Any:
    """`element_spec` with each leaf spec replaced by func(spec)."""
    specs = [func(s) for s in flat_specs(element_spec)]
    if not is_structure(element_spec):
        return specs[0]
    return nest.pack_sequence_as(element_spec, specs)


def batched_spec(spec: Any, batch_dim: Any) -> Any:
    """The spec of a batch of elements of `spec` (leading dimension `batch_dim`)."""
    if isinstance(spec, DatasetSpec):
        return DatasetSpec(spec.element_spec, [batch_dim] + spec.shape.as_list())
    dims = spec.shape.dims
    shape = TensorShape(None) if dims is None else TensorShape([batch_dim] + list(dims))
    return TensorSpec(shape, spec.dtype)


def unbatched_spec(spec: Any) -> Any:
    shape = spec.shape
    if shape.dims is None:
        return TensorSpec(TensorShape(None), spec.dtype)
    return TensorSpec(TensorShape(shape.dims[1:]), spec.dtype)


def most_specific_compatible(a: Any, b: Any) -> Any:
    """The spec both `a` and `b` fit (a dimension that differs becomes unknown)."""
    if a.shape.dims is None or b.shape.dims is None or len(a.shape.dims) != len(b.shape.dims):
        return TensorSpec(TensorShape(None), a.dtype)
    dims = [x if x == y else None for x, y in zip(a.shape.dims, b.shape.dims, strict=True)]
    return TensorSpec(TensorShape(dims), a.dtype)


def same_structure(a: Any, b: Any) -> bool:
    try:
        nest.assert_same_structure(a, b)
    except ValueError:
        return False
    return is_structure(a) == is_structure(b)


def describe(element_spec: Any) -> str:
    """TF's rendering of a structure of specs in error messages."""
    return repr(element_spec)
