"""placeholder_with_default and get_static_value: graph inputs with a fallback, and
values known without running anything."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import as_shape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..tensor_util import constant_value


def _with_default_infer(inputs, attrs):
    shape = attrs["shape"]
    if not shape.is_compatible_with(inputs[0].shape):
        raise ValueError(f"placeholder_with_default: shape {shape} is incompatible with the "
                         f"default's shape {inputs[0].shape}")
    return [(inputs[0].dtype, shape)]


PLACEHOLDER_WITH_DEFAULT = declare_op("PlaceholderWithDefault", lambda x, *, shape: x,
                                      _with_default_infer, grad_inputs=())


def placeholder_with_default(input: Any, shape: Any,  # noqa: A002 (TF's name)
                             name: Optional[str] = None):
    """`input` unless a value is fed for it; `shape` may be less specific than input's."""
    return apply_op(PLACEHOLDER_WITH_DEFAULT, (convert_to_tensor(input),),
                    {"shape": as_shape(shape)}, name)


def get_static_value(tensor: Any, partial: bool = False) -> Optional[np.ndarray]:
    """The value of `tensor` if it is known without running a graph, else None."""
    if not hasattr(tensor, "dtype"):
        return np.asarray(tensor)
    return constant_value(tensor)


__all__ = ["placeholder_with_default", "get_static_value"]
