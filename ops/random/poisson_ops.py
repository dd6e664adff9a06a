"""tf.random.poisson: TF's RandomPoissonV2, samples of shape concat(shape, shape(lam)).

The numbers are duograd's own (NumPy's Poisson sampler on the op's seeded stream, with
the seed rules of ops/random/random_ops.py), not TensorFlow's. A sample is not
differentiable: eager TF gives None for the rate's gradient, and so does duograd in both
modes (TF's graph gradients() finds no gradient and raises LookupError: docs/differences.md).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..tensor_util import shape_from_tensor
from .random_ops import generator_of, random_attrs, shape_dims, shape_input

_OUTPUT_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def _random_poisson(resources, shape, rate, *, dtype, stream):
    dims = shape_dims(shape)
    lam = np.broadcast_to(rate.astype(np.float64), dims + rate.shape)
    return generator_of(resources, stream).poisson(lam).astype(dtype.as_numpy_dtype)


def _random_poisson_infer(inputs, attrs):
    shape, rate = inputs
    sample = shape_from_tensor(shape)
    if sample.rank is None or rate.shape.rank is None:
        return [(attrs["dtype"], TensorShape(None))]
    return [(attrs["dtype"], sample.concatenate(rate.shape))]


RANDOM_POISSON_V2 = declare_op("RandomPoissonV2", _random_poisson, _random_poisson_infer,
                               stateful=True, grad_inputs=(), input_kinds=None)


def poisson(shape: Any, lam: Any, dtype: Any = dtypes.float32, seed: Optional[int] = None,
            name: Optional[str] = None):
    """Poisson(lam) samples of shape concat(shape, shape(lam)), in `dtype`."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.name not in _OUTPUT_DTYPES:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'dtype' of {dtype.name} is not in the list of "
                        "allowed values: half, float, double, int32, int64 (RandomPoissonV2)")
    lam = convert_to_tensor(lam, dtype_hint=dtypes.float32)
    if lam.dtype.name not in _OUTPUT_DTYPES:
        raise TypeError(f"Value passed to parameter 'rate' has DataType {lam.dtype.name} not "
                        "in list of allowed values: float16, float32, float64, int32, int64")
    attrs = random_attrs(RANDOM_POISSON_V2.type, dtype, seed)
    return apply_op(RANDOM_POISSON_V2, (shape_input(shape), lam), attrs, name)


def poisson_v1(lam: Any, shape: Any, dtype: Any = dtypes.float32, seed: Optional[int] = None,
               name: Optional[str] = None):
    """TF1's random_poisson(lam, shape, ...): the same samples, arguments in TF1's order."""
    return poisson(shape, lam, dtype=dtype, seed=seed, name=name)


RANDOM_NAMES = {"poisson": poisson}
V1_RANDOM_NAMES = {"poisson": poisson_v1}
V1_NAMES = {"random_poisson": poisson_v1}
