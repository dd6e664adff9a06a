"""A dataset passed to a dg.function as an argument, as TF passes it: one variant
placeholder per dataset argument, traced once per element_spec (TF's DatasetSpec
is the trace key), fed the dataset object at each call.

Inside the trace the function sees a `DatasetArgument`: a dataset with the
argument's element_spec whose elements are those of the dataset bound to its
placeholder when an iterator over it starts (the MakeIterator op binds it, as it
binds an initializable iterator's feeds). Transformations of it inside the
function are ordinary datasets over it.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..framework import dtypes, errors
from ..framework.op_def import declare_op
from ..framework.tensor_shape import TensorShape
from .dataset import UNKNOWN_CARDINALITY, Dataset, IterationContext, error_aware_datasets


class BoundDataset:
    """The value of a dataset built while a graph is built (inside a dg.function, or a
    TF1 graph) and passed to a dg.function: the dataset and the values its graph
    tensors had in that run (what MakeIterator would bind)."""

    def __init__(self, dataset: Dataset, bindings: dict) -> None:
        self.dataset = dataset
        self.bindings = bindings


def _unbound(value: Any) -> Any:
    return value.dataset if isinstance(value, BoundDataset) else value


def _cardinality_kernel(dataset: Any) -> np.ndarray:
    return np.array(_unbound(dataset).cardinality_value(), np.int64)


def _variant_kernel(*arrays: Any, dataset: Dataset, tensors: tuple) -> Any:
    from .graph_ops import tensor_bindings
    return BoundDataset(dataset, tensor_bindings(tensors, arrays))


DATASET_VARIANT = declare_op(
    "DatasetVariant", _variant_kernel,
    lambda inputs, attrs: [(dtypes.variant, TensorShape([]))], grad_inputs=())


def dataset_variant(dataset: Dataset) -> Any:
    """A variant tensor of the graph being built standing for `dataset` (its graph
    tensors are the op's inputs, bound when it runs): how a dataset made in a graph
    is passed to a dg.function."""
    from ..ops.dispatch import apply_op
    tensors = tuple(dataset.graph_tensors())
    return apply_op(DATASET_VARIANT, list(tensors), {"dataset": dataset, "tensors": tensors},
                    "DatasetVariant")


DATASET_CARDINALITY = declare_op(
    "DatasetCardinality", _cardinality_kernel,
    lambda inputs, attrs: [(dtypes.int64, TensorShape([]))], grad_inputs=())


def _object_kernel(*, value: Any) -> Any:
    return value


OBJECT_VARIANT = declare_op(
    "ObjectVariant", _object_kernel,
    lambda inputs, attrs: [(dtypes.variant, TensorShape([]))], grad_inputs=())


def object_variant(value: Any) -> Any:
    """A variant tensor of the graph being built whose value is `value` (an eager
    iterator passed on to a dg.function inside another)."""
    from ..ops.dispatch import apply_op
    return apply_op(OBJECT_VARIANT, [], {"value": value}, "ObjectVariant")


class VariantHandle:
    """A dataset as an eager call's input (what kernels receive: the dataset itself),
    with the dtype and shape of the variant placeholder it is fed to."""

    __slots__ = ("array", "dtype", "shape")

    def __init__(self, dataset: Any) -> None:
        self.array = dataset
        self.dtype = dtypes.variant
        self.shape = TensorShape([])


class DatasetArgument(Dataset):
    """The dataset fed to `placeholder` (a variant tensor) when it is iterated."""

    def __init__(self, placeholder: Any, element_spec: Any) -> None:
        super().__init__(element_spec)
        self.placeholder = placeholder

    def graph_tensors(self) -> list:
        return [self.placeholder]

    def cardinality_value(self) -> int:
        return UNKNOWN_CARDINALITY   # known when the function runs, not when it is traced

    def error_elements_to_inputs(self, aware: bool) -> bool:
        return aware

    def cardinality(self) -> Any:
        """The fed dataset's cardinality, computed when the function runs (as TF)."""
        from ..ops.dispatch import apply_op
        return apply_op(DATASET_CARDINALITY, [self.placeholder], {}, "DatasetCardinality")

    def bound_dataset(self, ctx: IterationContext) -> Any:
        """The dataset fed to the placeholder, and the context to iterate it in (with
        the bindings of a dataset made in a graph)."""
        value = ctx.bindings.get(id(self.placeholder))
        if isinstance(value, BoundDataset):
            return value.dataset, ctx.with_bindings(value.bindings)
        if not isinstance(value, Dataset):
            raise errors.InvalidArgumentError(
                None, None, f"The dataset argument {self.placeholder.name} was not fed a "
                f"dataset (got {type(value).__name__}).")
        return value, ctx

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        dataset, ctx = self.bound_dataset(ctx)
        aware = ctx.gives_error_elements(self)
        inner = ctx.with_error_aware(error_aware_datasets(dataset, aware)) if aware else ctx
        return dataset.elements(inner)


__all__ = ["DatasetArgument", "VariantHandle"]
