"""reduce_variance and reduce_std: compositions of reduce_mean, as in TF."""
from __future__ import annotations

from typing import Any, Optional

from . import complex_ops, math_ops, reduction_ops
from ..constant_op import convert_to_tensor


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                    name: Optional[str] = None):
    """mean(|x - mean(x)|**2) over `axis`; real-valued for complex input; floats only."""
    x = convert_to_tensor(input_tensor)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"reduce_variance: input must be either real or complex, "
                        f"got {x.dtype.name}")
    diff = x - reduction_ops.reduce_mean(x, axis, keepdims=True)
    if diff.dtype.is_complex:
        squared = complex_ops.real(complex_ops.conj(diff) * diff)
    else:
        squared = math_ops.square(diff)
    return reduction_ops.reduce_mean(squared, axis, keepdims=keepdims, name=name)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None):
    """sqrt(reduce_variance(x)) over `axis`."""
    return math_ops.sqrt(reduce_variance(input_tensor, axis, keepdims), name=name)


__all__ = ["reduce_variance", "reduce_std"]
