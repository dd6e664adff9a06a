"""The gradient of the eager `Moments` op (ops/nn/moments_ops.py): TF's first
derivative of its composite, dmean / n + (dvar / n * 2) (x - mean), in as few passes.

TF stops the mean's gradient inside the variance; its derivative there is zero, so
the first derivative is the same either way. The mean here is the op's output, which
depends on x, so that differentiating this gradient again gives the exact second
derivative (2 dvar / n (I - 1/n) for the variance), as duograd's composite does,
where TF's stopped mean drops the 1/n term."""
from __future__ import annotations

from typing import Any, Optional

from ..ops.array import array_ops
from ..ops.nn.moments_ops import MOMENTS, reduced_shape
from .registry import RegisterGradient


@RegisterGradient(MOMENTS.type, accepts_none=(0, 1))
def _moments_grad(op: Any, grad_mean: Optional[Any], grad_variance: Optional[Any]) -> Any:
    x = op.inputs[0]
    axes, keep_dims = op.get_attr("axes"), op.get_attr("keep_dims")
    dims = x.shape.as_list()
    count = 1
    for axis in axes:
        count *= dims[axis]
    kept = reduced_shape(tuple(dims), axes, True)

    def with_reduced_axes(t: Any) -> Any:   # to x's rank, each reduced axis of size 1
        return t if keep_dims else array_ops.reshape(t, kept)
    dx = None
    if grad_variance is not None:
        mean = with_reduced_axes(op.outputs[0])
        dx = (with_reduced_axes(grad_variance) / count * 2) * (x - mean)
    if grad_mean is not None:
        part = with_reduced_axes(grad_mean) / count
        dx = array_ops.broadcast_to(part, dims) if dx is None else part + dx
    return dx
