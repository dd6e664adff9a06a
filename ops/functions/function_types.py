"""dg.types.experimental: the types a program annotates with (TF's `tf.types`)."""
from __future__ import annotations

from typing import Union

import numpy as np

from ...framework.tensor import Tensor
from .function import ConcreteFunction, Function

TensorLike = Union[Tensor, int, float, bool, str, bytes, complex, tuple, list, np.ndarray,
                   np.generic]

EXPERIMENTAL_NAMES = {"ConcreteFunction": ConcreteFunction, "GenericFunction": Function,
                      "PolymorphicFunction": Function, "TensorLike": TensorLike}
