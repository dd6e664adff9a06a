"""Random ops (ops/random/random_ops.py) have no gradient, as in TensorFlow.

Gradients still reach `mean`/`stddev`/`minval`/`maxval` through the Mul/Add
ops that `dg.random.normal` and `dg.random.uniform` compose around them.
"""
from __future__ import annotations

from ..ops.random.random_ops import (RANDOM_SHUFFLE, RANDOM_STANDARD_NORMAL, RANDOM_UNIFORM,
                                     RANDOM_UNIFORM_INT, TRUNCATED_NORMAL)
from .registry import NotDifferentiable

for _op in (RANDOM_STANDARD_NORMAL, RANDOM_UNIFORM, RANDOM_UNIFORM_INT, RANDOM_SHUFFLE,
            TRUNCATED_NORMAL):
    NotDifferentiable(_op.type)
