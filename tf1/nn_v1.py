"""TF1's nn names: `softmax_cross_entropy_with_logits` (labels get no gradient, axis
as `dim`) and `softmax_cross_entropy_with_logits_v2` (TF2's op under its TF1 name)."""
from __future__ import annotations

from typing import Any, Optional

from ..ops.array import array_ops
from ..ops.nn import softmax_ops
from .deprecated_args import lookup


def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: Any = None,
                                         name: Optional[str] = None,
                                         dim: Any = None) -> Any:
    """Cross entropy of softmax(logits) against `labels`, differentiable in both."""
    axis = lookup("axis", axis, "dim", dim)
    return softmax_ops.softmax_cross_entropy_with_logits(
        labels, logits, axis=-1 if axis is None else axis, name=name)


def softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, dim: int = -1,
                                      name: Optional[str] = None, axis: Any = None) -> Any:
    """TF1's version: named arguments only, and no gradient flows into `labels`."""
    if _sentinel is not None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...). Received unnamed argument: "
                         f"{_sentinel}")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    axis = lookup("axis", axis, "dim", None if dim == -1 else dim)
    return softmax_ops.softmax_cross_entropy_with_logits(
        array_ops.stop_gradient(labels), logits, axis=-1 if axis is None else axis, name=name)


NN_NAMES = {"softmax_cross_entropy_with_logits": softmax_cross_entropy_with_logits,
            "softmax_cross_entropy_with_logits_v2": softmax_cross_entropy_with_logits_v2}
