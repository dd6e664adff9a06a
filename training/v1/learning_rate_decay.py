"""TF1's learning-rate decay functions (`tf.compat.v1.train.exponential_decay`, ...).

Graph mode: a tensor of the schedule at `global_step`. Eager mode: a
callable returning the current value (TF1 returns a partial there, so an
optimizer re-reads the decayed rate at every step).
"""
from __future__ import annotations

import functools
from typing import Any, Optional, Sequence

from ...eager import context
from ..schedules import ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay


def _at(schedule: Any, global_step: Any, what: str) -> Any:
    if global_step is None:
        raise ValueError(f"global_step is required for {what}.")
    if context.executing_eagerly():
        return functools.partial(schedule, global_step)
    return schedule(global_step)


def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: Optional[str] = None) -> Any:
    """`learning_rate * decay_rate ** (global_step / decay_steps)`."""
    schedule = ExponentialDecay(learning_rate, decay_steps, decay_rate, staircase=staircase,
                                name=name or "ExponentialDecay")
    return _at(schedule, global_step, "exponential_decay")


def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                     end_learning_rate: float = 0.0001, power: float = 1.0, cycle: bool = False,
                     name: Optional[str] = None) -> Any:
    """From `learning_rate` to `end_learning_rate` over `decay_steps` steps."""
    schedule = PolynomialDecay(learning_rate, decay_steps, end_learning_rate, power=power,
                               cycle=cycle, name=name or "PolynomialDecay")
    return _at(schedule, global_step, "polynomial_decay")


def piecewise_constant(x: Any, boundaries: Sequence[Any], values: Sequence[Any],
                       name: Optional[str] = None) -> Any:
    """`values[i]` where `boundaries[i-1] < x <= boundaries[i]`."""
    schedule = PiecewiseConstantDecay(boundaries, values, name=name or "PiecewiseConstant")
    return _at(schedule, x, "piecewise_constant")


__all__ = ["exponential_decay", "polynomial_decay", "piecewise_constant"]
