"""The gradient of CumulativeLogsumexp (ops/math/cumulative_logsumexp_ops.py), TF's formula:
the incoming gradient split into its positive and negative parts, each folded back in log
space by a cumulative_logsumexp running the other way."""
from __future__ import annotations

import numpy as np

from ..ops.array import array_ops
from ..ops.math import math_ops
from ..ops.math.cumulative_logsumexp_ops import CUMULATIVE_LOGSUMEXP, cumulative_logsumexp
from .registry import RegisterGradient


@RegisterGradient(CUMULATIVE_LOGSUMEXP.type)
def _cumulative_logsumexp_grad(op, grad):
    """exp(clse(log(g+) - y, reverse') + x) - exp(clse(log(g-) - y, reverse') + x)."""
    x, y = op.inputs[0], op.outputs[0]
    axis, exclusive, reverse = (op.get_attr("axis"), op.get_attr("exclusive"),
                                op.get_attr("reverse"))
    lowest = array_ops.ones_like(grad) * float(np.finfo(grad.dtype.as_numpy_dtype).min)
    log_positive = array_ops.where(math_ops.greater(grad, 0), math_ops.log(grad), lowest)
    log_negative = array_ops.where(math_ops.less(grad, 0), math_ops.log(-grad), lowest)
    positive = math_ops.exp(cumulative_logsumexp(log_positive - y, axis, exclusive,
                                                 not reverse) + x)
    negative = math_ops.exp(cumulative_logsumexp(log_negative - y, axis, exclusive,
                                                 not reverse) + x)
    return positive - negative
