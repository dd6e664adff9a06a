"""Learning-rate schedules (`dg.keras.optimizers.schedules`), Keras 3's formulas.

A schedule is called with the optimizer's step (its int64 `iterations`) and
returns a float tensor; the same expression serves eager mode, `dg.function`
and graph mode.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from ..ops.constant_op import convert_to_tensor
from ..ops.array.array_ops import where
from ..ops.math.math_ops import cast, cos, equal, maximum, minimum, pow as power
from ..framework.scopes import name_scope


def _floor(x: Any) -> Any:
    return x // 1.0


def _ceil(x: Any) -> Any:
    return -((-x) // 1.0)


class LearningRateSchedule:
    """Base class: `schedule(step)` is the learning rate at optimizer step `step`."""

    def __call__(self, step: Any) -> Any:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  "override `__call__(self, step)`.")

    def get_config(self) -> dict:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  "override `get_config()` in order to be serializable.")

    @classmethod
    def from_config(cls, config: dict) -> "LearningRateSchedule":
        return cls(**config)


def _check_decay_steps(decay_steps: Any) -> None:
    if decay_steps <= 0:
        raise ValueError(f"Argument `decay_steps` must be > 0. Received: "
                         f"decay_steps={decay_steps}")


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (floored if staircase)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str = "ExponentialDecay") -> None:
        _check_decay_steps(decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        with name_scope(self.name):
            initial = convert_to_tensor(self.initial_learning_rate)
            dtype = initial.dtype
            p = cast(step, dtype) / cast(self.decay_steps, dtype)
            if self.staircase:
                p = _floor(p)
            return initial * power(cast(self.decay_rate, dtype), p)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` up to `boundaries[0]` (inclusive), then `values[1]`, ..."""

    def __init__(self, boundaries: Sequence[Any], values: Sequence[Any],
                 name: str = "PiecewiseConstant") -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             f"values. Received: boundaries={boundaries} of length "
                             f"{len(boundaries)}, and values={values} of length {len(values)}.")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step: Any) -> Any:
        with name_scope(self.name):
            step = convert_to_tensor(step)
            bounds = [cast(b, step.dtype) for b in self.boundaries]
            values = [convert_to_tensor(v) for v in self.values]
            dtype = values[0].dtype
            result = cast(step <= bounds[0], dtype) * values[0]
            result = result + cast(step > bounds[-1], dtype) * values[-1]
            for low, high, value in zip(bounds[:-1], bounds[1:], values[1:-1], strict=True):
                inside = cast(step > low, dtype) * cast(step <= high, dtype)
                result = result + inside * value
            return result

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """From `initial_learning_rate` to `end_learning_rate` as `(1 - step/decay_steps)**power`."""

    def __init__(self, initial_learning_rate: float, decay_steps: int,
                 end_learning_rate: float = 0.0001, power: float = 1.0, cycle: bool = False,
                 name: str = "PolynomialDecay") -> None:
        _check_decay_steps(decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step: Any) -> Any:
        with name_scope(self.name):
            return polynomial(self.initial_learning_rate, step, self.decay_steps,
                              self.end_learning_rate, self.power, self.cycle)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


def polynomial(initial_learning_rate: Any, step: Any, decay_steps: Any, end_learning_rate: Any,
               power_: Any, cycle: bool) -> Any:
    """The polynomial decay expression shared with TF1's `polynomial_decay`."""
    initial = convert_to_tensor(initial_learning_rate)
    dtype = initial.dtype
    end = cast(end_learning_rate, dtype)
    step = cast(step, dtype)
    steps = cast(decay_steps, dtype)
    if cycle:
        multiplier = where(equal(step, 0.0), cast(1.0, dtype), _ceil(step / steps))
        steps = steps * multiplier
    else:
        step = minimum(step, steps)
    p = step / steps
    return (initial - end) * power(1 - p, cast(power_, dtype)) + end


class CosineDecay(LearningRateSchedule):
    """Cosine decay to `alpha` times the peak, after an optional linear warmup."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0,
                 name: str = "CosineDecay", warmup_target: Optional[float] = None,
                 warmup_steps: int = 0) -> None:
        _check_decay_steps(decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decay(self, step: Any, decay_steps: Any, peak: Any, dtype: Any) -> Any:
        fraction = step / decay_steps
        cosine = 0.5 * (1.0 + cos(cast(math.pi, dtype) * fraction))
        return peak * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step: Any) -> Any:
        with name_scope(self.name):
            initial = convert_to_tensor(self.initial_learning_rate)
            dtype = initial.dtype
            decay_steps = cast(self.decay_steps, dtype)
            step = cast(step, dtype)
            if self.warmup_target is None:
                return self._decay(minimum(step, decay_steps), decay_steps, initial, dtype)
            target = cast(self.warmup_target, dtype)
            warmup_steps = cast(self.warmup_steps, dtype)
            step = minimum(step, decay_steps + warmup_steps)
            # Both branches are finite, so `where` gives what Keras's `cond` does.
            warm_fraction = step / maximum(warmup_steps, cast(1e-30, dtype))
            warm = (target - initial) * warm_fraction + initial
            decayed = self._decay(step - warmup_steps, decay_steps, target, dtype)
            return where(step < warmup_steps, warm, decayed)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
           "PolynomialDecay", "CosineDecay"]
