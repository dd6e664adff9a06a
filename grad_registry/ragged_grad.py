"""RaggedTensorToTensor (dg.RaggedTensor.to_tensor) is not differentiable here: the minimal
dg.RaggedTensor is never differentiable (docs/differences.md; TF has a gradient for its
values)."""
from __future__ import annotations

from ..ops.ragged.ragged_tensor import RAGGED_TENSOR_TO_TENSOR
from .registry import NotDifferentiable

NotDifferentiable(RAGGED_TENSOR_TO_TENSOR.type)
