"""OpSpec: one row of the op table (STYLE.md 10)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Tuple

import numpy as np


@dataclass
class OpSpec:
    """How to run one op and check it.

    fn: the dg function under test, called on tensors.
    ref: the NumPy reference on arrays (None: checked by the test body only).
    args: input arrays (float64 for gradient checks), built by `make(rng)`.
    grad_args: indices of differentiable args (default: all float/complex ones).
    order: 0 not differentiable, 1 or 2 checked to that order.
    """

    name: str
    fn: Callable
    ref: Optional[Callable]
    make: Callable[[np.random.Generator], Sequence[np.ndarray]]
    order: int = 2
    rtol: float = 1e-7
    atol: float = 1e-9
    grad_rtol: float = 2e-5
    eps: float = 1e-6
    op_types: Tuple[str, ...] = field(default_factory=tuple)

    def __repr__(self) -> str:
        return self.name


def normal(*shape: int, dtype=np.float64) -> Callable:
    return lambda rng: rng.standard_normal(shape).astype(dtype)


def positive(*shape: int) -> Callable:
    return lambda rng: rng.uniform(0.5, 2.0, shape)


def unit(*shape: int) -> Callable:
    return lambda rng: rng.uniform(-0.9, 0.9, shape)


def inputs(*makers: Callable) -> Callable:
    """Several input makers as one `make`."""
    return lambda rng: [m(rng) for m in makers]
