"""The stateless samplers of ops/random/stateless_random_ops.py are not differentiable, as
in TF (stateless_random_ops.py: NotDifferentiable). random.stateless_normal and friends
stay differentiable in mean / stddev / minval / maxval, which ops after the sampler apply."""
from __future__ import annotations

from ..ops.random import stateless_random_ops as sr
from .registry import NotDifferentiable

for _op in (sr.STATELESS_RANDOM_NORMAL_V2, sr.STATELESS_RANDOM_UNIFORM_V2,
            sr.STATELESS_TRUNCATED_NORMAL_V2, sr.STATELESS_RANDOM_UNIFORM_INT_V2,
            sr.STATELESS_RANDOM_UNIFORM_FULL_INT_V2, sr.STATELESS_MULTINOMIAL,
            sr.STATELESS_RANDOM_BINOMIAL, sr.STATELESS_RANDOM_POISSON):
    NotDifferentiable(_op.type)
