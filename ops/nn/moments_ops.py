"""`tf.nn.moments` as one eager op: `Moments(x)` -> (mean, variance) over `axes`.

TensorFlow's `tf.nn.moments` is a composite (reduce_mean; squared_difference of x and
the stopped mean; reduce_mean), and graph mode keeps exactly that composite: TF has no
Moments op, so a GraphDef or SavedModel holding one could not be read back by
TensorFlow. Run eagerly, the composite is four ops forward and about a dozen in its
gradient (broadcasts, divisions, the square's and the difference's adjoints), a layer
norm's whole statistics. `Moments` runs the composite's own kernels in the same
order, so its values are bit-equal to the composite's; its gradient (grad_registry/
moments_grad.py) is TF's first derivative in three array passes.
"""
from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..math.math_ops import SQUARE, SUB
from ..math.reduction_ops import MEAN


def _moments_kernel(x: np.ndarray, *, axes: Tuple[int, ...], keep_dims: bool
                    ) -> List[np.ndarray]:
    """(mean, variance) over `axes` (non-negative, sorted), as the composite computes
    them: Mean, Sub, Square, Mean, each the op's own kernel."""
    mean = MEAN.kernel(x, axis=axes, keepdims=True)
    variance = MEAN.kernel(SQUARE.kernel(SUB.kernel(x, mean)), axis=axes, keepdims=True)
    if keep_dims:
        return [mean, variance]
    shape = reduced_shape(x.shape, axes, keep_dims)
    return [mean.reshape(shape), variance.reshape(shape)]


def reduced_shape(shape: Tuple[Any, ...], axes: Tuple[int, ...], keep_dims: bool) -> tuple:
    """`shape` with `axes` reduced: to 1 when kept, else removed."""
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _moments_infer(inputs, attrs):
    x = inputs[0]
    shape = TensorShape(reduced_shape(tuple(x.shape.dims), attrs["axes"], attrs["keep_dims"]))
    return [(x.dtype, shape), (x.dtype, shape)]


MOMENTS = declare_op("Moments", _moments_kernel, _moments_infer, num_outputs=2,
                     input_kinds="f", grad_inputs=(0,), grad_outputs=(0,))
