"""Optimizer slots: per-variable state (momentum, moments, accumulators).

Slots are created lazily, on the first update of their variable, outside any
function being traced. The registry keeps creation order (deterministic
checkpoints) and values restored before their slot exists (TF's deferred
restoration), used as the slot's initial value when it is created.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..ops.state.variables import Variable
from .lifting import check_may_create_variables, outside_functions


def _key(variable: Any, slot_name: str) -> Tuple[Any, str]:
    """Variables are unhashable in TF2 contexts: key on their `.ref()`."""
    ref = getattr(variable, "ref", None)
    return (ref() if ref is not None else variable, slot_name)


class SlotRegistry:
    """{(model variable's ref, slot name): slot variable}, in creation order."""

    def __init__(self) -> None:
        self._slots: Dict[Tuple[Any, str], Variable] = {}
        self._deferred: Dict[Tuple[Any, str], np.ndarray] = {}

    def create(self, variable: Variable, slot_name: str, initial: Callable[[], Any],
               name: str) -> Variable:
        """The slot `slot_name` of `variable`, created (once) from `initial()` or a
        deferred restored value."""
        key = _key(variable, slot_name)
        slot = self._slots.get(key)
        if slot is not None:
            return slot
        restored = self._deferred.pop(key, None)
        check_may_create_variables()  # ValueError on a dg.function's later traces, as TF
        with outside_functions():
            value = restored if restored is not None else initial()
            slot = Variable(value, trainable=False, name=name, dtype=variable.dtype)
        self._slots[key] = slot
        return slot

    def get(self, variable: Any, slot_name: str) -> Optional[Variable]:
        return self._slots.get(_key(variable, slot_name))

    def names_of(self, variable: Any) -> List[str]:
        return [name for (ref, name) in self._slots if _deref(ref) is variable]

    def triples(self) -> List[Tuple[Variable, str, Variable]]:
        return [(_deref(ref), name, slot) for (ref, name), slot in self._slots.items()]

    def defer(self, variable: Variable, slot_name: str, value: Any) -> None:
        """Initialise the slot with `value` when it is created; assign now if it exists."""
        slot = self._slots.get(_key(variable, slot_name))
        if slot is not None:
            slot.assign(value)
            return
        self._deferred[_key(variable, slot_name)] = np.asarray(value)


def _deref(ref: Any) -> Any:
    deref = getattr(ref, "deref", None)
    return deref() if deref is not None else ref


__all__ = ["SlotRegistry"]
