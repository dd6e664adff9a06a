"""TF1 initializers (tf.compat.v1.*_initializer): callables (shape, dtype) -> a tensor.

`get_variable` calls them with the variable's shape and dtype; each returns
an ordinary tensor, so they work in both modes.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from ...framework import dtypes
from ..random import random_ops
from ..constant_op import constant


class Initializer:
    """Base: `init(shape, dtype=None, partition_info=None)` returns the initial value."""

    def __init__(self, dtype: Any = dtypes.float32) -> None:
        self.dtype = dtypes.as_dtype(dtype)

    def _dtype(self, dtype: Any) -> Any:
        return dtypes.as_dtype(dtype) if dtype is not None else self.dtype

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Zeros(Initializer):
    def __call__(self, shape: Sequence[int], dtype: Any = None, partition_info: Any = None):
        return constant(np.zeros(list(shape), self._dtype(dtype).as_numpy_dtype))


class Ones(Initializer):
    def __call__(self, shape: Sequence[int], dtype: Any = None, partition_info: Any = None):
        return constant(np.ones(list(shape), self._dtype(dtype).as_numpy_dtype))


class Constant(Initializer):
    """Fills with `value` (a scalar, or an array of the variable's shape)."""

    def __init__(self, value: Any = 0, dtype: Any = dtypes.float32,
                 verify_shape: bool = False) -> None:
        super().__init__(dtype)
        self.value = value

    def __call__(self, shape: Sequence[int], dtype: Any = None, partition_info: Any = None):
        value = np.asarray(self.value, self._dtype(dtype).as_numpy_dtype)
        return constant(np.broadcast_to(value, list(shape)).copy()
                        if value.size == 1 or value.shape == tuple(shape)
                        else value.reshape(list(shape)))


class RandomNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        super().__init__(dtype)
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Sequence[int], dtype: Any = None, partition_info: Any = None):
        return random_ops.normal(list(shape), self.mean, self.stddev, self._dtype(dtype),
                                 seed=self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval: float = 0.0, maxval: Optional[float] = None,
                 seed: Optional[int] = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(dtype)
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Sequence[int], dtype: Any = None, partition_info: Any = None):
        maxval = 1.0 if self.maxval is None else self.maxval
        return random_ops.uniform(list(shape), self.minval, maxval, self._dtype(dtype),
                                  seed=self.seed)


class GlorotUniform(Initializer):
    """Uniform in +-sqrt(6 / (fan_in + fan_out)): get_variable's default for floats."""

    def __init__(self, seed: Optional[int] = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(dtype)
        self.seed = seed

    def __call__(self, shape: Sequence[int], dtype: Any = None, partition_info: Any = None):
        shape = list(shape)
        if not shape:
            fan_in = fan_out = 1
        elif len(shape) == 1:
            fan_in = fan_out = shape[0]
        else:
            receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
            fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
        limit = math.sqrt(6.0 / max(1.0, (fan_in + fan_out)))
        return random_ops.uniform(shape, -limit, limit, self._dtype(dtype), seed=self.seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
random_uniform_initializer = RandomUniform
glorot_uniform_initializer = GlorotUniform

__all__ = ["zeros_initializer", "ones_initializer", "constant_initializer",
           "random_normal_initializer", "random_uniform_initializer",
           "glorot_uniform_initializer"]
