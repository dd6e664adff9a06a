"""An optimizer rule, recorded once per step as a straight-line NumPy program.

The dense sweep of `sparse_apply` runs an optimizer's rule (without gradient)
over every block of rows. Calling the rule per block allocates a temporary per
operation and per block; `record` instead calls it once on placeholders
(`Traced`), folding what depends on the step's scalars only (bias
corrections) to constants and listing the elementwise ufunc calls on slot
values. `Program.run` then replays that list on each block into buffers
allocated once (a slot's final value straight into the slot's own block),
with the same ufuncs on the same operands in the same order, so its numbers
equal the rule's bit for bit, without allocation, copies or Python
arithmetic per block.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

Operand = Tuple[bool, Any]  # (is a recorded value, its index) or (False, constant)


class Traced:
    """A placeholder array in a recorded rule: ufuncs on it append to the program."""

    __array_priority__ = 1000

    def __init__(self, program: "Program", index: int) -> None:
        self.program = program
        self.index = index

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs or ufunc.nout != 1:
            return NotImplemented
        return self.program.append(ufunc, inputs)

    def _call(self, ufunc: Any, *inputs: Any) -> "Traced":
        return self.program.append(ufunc, inputs)

    def __add__(self, other: Any) -> "Traced": return self._call(np.add, self, other)
    def __radd__(self, other: Any) -> "Traced": return self._call(np.add, other, self)
    def __sub__(self, other: Any) -> "Traced": return self._call(np.subtract, self, other)
    def __rsub__(self, other: Any) -> "Traced": return self._call(np.subtract, other, self)
    def __mul__(self, other: Any) -> "Traced": return self._call(np.multiply, self, other)
    def __rmul__(self, other: Any) -> "Traced": return self._call(np.multiply, other, self)
    def __truediv__(self, other: Any) -> "Traced": return self._call(np.true_divide, self, other)
    def __rtruediv__(self, other: Any) -> "Traced": return self._call(np.true_divide, other, self)
    def __neg__(self) -> "Traced": return self._call(np.negative, self)
    def __abs__(self) -> "Traced": return self._call(np.absolute, self)


class Program:
    """Ufunc calls on `num_inputs` input blocks; values are numbered inputs first."""

    def __init__(self, num_inputs: int) -> None:
        self.num_inputs = num_inputs
        self.steps: List[Tuple[Any, Tuple[Operand, ...]]] = []
        # Where each step writes: ("input", i) updates input block i in place, else
        # ("buffer", b); set by `plan`.
        self.targets: List[Tuple[str, int]] = []
        self.num_buffers = 0

    def append(self, ufunc: Any, inputs: Sequence[Any]) -> Traced:
        operands = tuple((True, x.index) if isinstance(x, Traced) else (False, x)
                         for x in inputs)
        self.steps.append((ufunc, operands))
        return Traced(self, self.num_inputs + len(self.steps) - 1)

    def plan(self, outputs: Sequence[Any]) -> None:
        """Chooses targets: the last step computing a new value of input i writes into
        input i's block when nothing reads the old value afterwards (no copy back);
        other steps share as few buffers as their lifetimes allow."""
        n, end = self.num_inputs, len(self.steps)
        last_use = {}
        for k, (_, operands) in enumerate(self.steps):
            for traced, x in operands:
                if traced:
                    last_use[x] = k
        for output in outputs:
            if isinstance(output, Traced):
                last_use[output.index] = end
        in_place = {}
        for i, output in enumerate(outputs[:n]):
            others = [o for j, o in enumerate(outputs[:n]) if j != i]
            if isinstance(output, Traced) and output.index >= n and \
                    last_use.get(i, -1) <= output.index - n and output not in others:
                in_place[output.index - n] = i
        free: List[int] = []
        held: Dict[int, int] = {}  # value index -> buffer
        self.targets = []
        for k, (_, operands) in enumerate(self.steps):
            if k in in_place:
                self.targets.append(("input", in_place[k]))
            else:
                buffer = free.pop() if free else self.num_buffers
                self.num_buffers = max(self.num_buffers, buffer + 1)
                held[n + k] = buffer
                self.targets.append(("buffer", buffer))
            for traced, x in operands:
                if traced and last_use.get(x) == k and x in held:
                    free.append(held.pop(x))

    def writes_in_place(self, output: Any, index: int) -> bool:
        """Whether input `index`'s new value `output` was written into its block."""
        return isinstance(output, Traced) and (
            output.index == index or (output.index >= self.num_inputs and
                                      self.targets[output.index - self.num_inputs] ==
                                      ("input", index)))

    def run(self, inputs: Sequence[np.ndarray], buffers: List[np.ndarray], rows: int
            ) -> List[np.ndarray]:
        """Every value of the program for these input blocks of `rows` rows (into
        `num_buffers` buffers of at least `rows` rows)."""
        values = list(inputs)
        for (ufunc, operands), (kind, where) in zip(self.steps, self.targets, strict=True):
            out = inputs[where] if kind == "input" else buffers[where][:rows]
            values.append(ufunc(*[values[x] if traced else x for traced, x in operands],
                                out=out))
        return values


def record(rule: Callable[[Tuple[Any, ...]], Tuple[Tuple[Any, ...], Any]], num_inputs: int
           ) -> Tuple[Program, List[Any]]:
    """The program of `rule(placeholders)` and its outputs (Traced or constants)."""
    program = Program(num_inputs)
    new_slots, delta = rule(tuple(Traced(program, i) for i in range(num_inputs)))
    outputs = [*new_slots, delta]
    program.plan(outputs)
    return program, outputs


def value_of(output: Any, values: Sequence[np.ndarray]) -> Any:
    """A recorded output's block (or its constant)."""
    return values[output.index] if isinstance(output, Traced) else output


__all__ = ["Program", "Traced", "record", "value_of"]
