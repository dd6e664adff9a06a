"""TF1's random names: `set_random_seed`, `random_normal`, `random_uniform`,
`truncated_normal`, `random_shuffle`, `multinomial` (the same kernels and seed rules
as `dg.random`: with a seed set, a program draws the same numbers run after run)."""
from __future__ import annotations

from typing import Any, Optional

from ..framework import dtypes
from ..ops.array import array_ops, join_ops, selection_ops
from ..ops.math import math_ops
from ..ops.random import random_ops
from ..ops.constant_op import convert_to_tensor


def set_random_seed(seed: Optional[int]) -> None:
    """TF1's graph-level seed: every random op built after it derives its seed from it."""
    random_ops.set_seed(seed)


def multinomial(logits: Any, num_samples: int, seed: Optional[int] = None,
                name: Optional[str] = None, output_dtype: Any = dtypes.int64) -> Any:
    """`num_samples` class indices per row of `logits` ([batch, classes]), drawn with
    probabilities softmax(logits) (by the Gumbel-max rule, from uniform samples)."""
    logits = convert_to_tensor(logits)
    if logits.shape.rank is not None and logits.shape.rank != 2:
        raise ValueError(f"logits should be a matrix, got shape {logits.shape}")
    shape = array_ops.shape(logits)
    noise_shape = join_ops.stack([shape[0], int(num_samples), shape[1]])
    tiny = float(logits.dtype.as_numpy_dtype(1e-20)) if logits.dtype.is_floating else 1e-20
    u = random_ops.uniform(noise_shape, minval=tiny, maxval=1.0, dtype=logits.dtype, seed=seed)
    gumbel = math_ops.negative(math_ops.log(math_ops.negative(math_ops.log(u))))
    scores = math_ops.add(array_ops.expand_dims(logits, 1), gumbel)
    return selection_ops.argmax(scores, -1, output_dtype, name)


NAMES = {
    "set_random_seed": set_random_seed, "get_seed": random_ops.get_seed,
    "random_normal": random_ops.normal, "random_uniform": random_ops.uniform,
    "truncated_normal": random_ops.truncated_normal, "random_shuffle": random_ops.shuffle,
    "multinomial": multinomial,
}
RANDOM_NAMES = {"set_random_seed": set_random_seed, "get_seed": random_ops.get_seed,
                "multinomial": multinomial, "categorical": multinomial}
