"""TF1's random names: `set_random_seed`, `random_normal`, `random_uniform`,
`truncated_normal`, `random_shuffle`, `multinomial` (the Multinomial op of
ops/random/more_random_ops.py; the same kernels and seed rules
as `dg.random`: with a seed set, a program draws the same numbers run after run)."""
from __future__ import annotations

from typing import Optional

from ..ops.random import random_ops
from ..ops.random import more_random_ops


def set_random_seed(seed: Optional[int]) -> None:
    """TF1's graph-level seed: every random op built after it derives its seed from it."""
    random_ops.set_seed(seed)


NAMES = {
    "set_random_seed": set_random_seed, "get_seed": random_ops.get_seed,
    "random_normal": random_ops.normal, "random_uniform": random_ops.uniform,
    "truncated_normal": random_ops.truncated_normal, "random_shuffle": random_ops.shuffle,
    "multinomial": more_random_ops.multinomial,
}
RANDOM_NAMES = {"set_random_seed": set_random_seed, "get_seed": random_ops.get_seed,
                "multinomial": more_random_ops.multinomial,
                "categorical": more_random_ops.categorical}
