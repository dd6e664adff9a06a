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


def _cardinality_kernel(dataset: Any) -> np.ndarray:
    return np.array(dataset.cardinality_value(), np.int64)


DATASET_CARDINALITY = declare_op(
    "DatasetCardinality", _cardinality_kernel,
    lambda inputs, attrs: [(dtypes.int64, TensorShape([]))], grad_inputs=())


class VariantHandle:
    """A dataset as an eager call's input (what kernels receive: the dataset itself),
    with the dtype and shape of the variant placeholder it is fed to."""

    __slots__ = ("array", "dtype", "shape")

    def __init__(self, dataset: Dataset) -> None:
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

    def bound_dataset(self, ctx: IterationContext) -> Dataset:
        value = ctx.bindings.get(id(self.placeholder))
        if not isinstance(value, Dataset):
            raise errors.InvalidArgumentError(
                None, None, f"The dataset argument {self.placeholder.name} was not fed a "
                f"dataset (got {type(value).__name__}).")
        return value

    def elements(self, ctx: IterationContext) -> Iterator[Any]:
        dataset = self.bound_dataset(ctx)
        aware = ctx.gives_error_elements(self)
        inner = ctx.with_error_aware(error_aware_datasets(dataset, aware)) if aware else ctx
        return dataset.elements(inner)


__all__ = ["DatasetArgument", "VariantHandle"]
