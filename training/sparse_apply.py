"""One fused, in-place optimizer step from a sparse gradient's rows (both modes).

`sparse_apply` adds (graph) or runs (eager) one stateful op that updates a
variable and its slots in place from the distinct rows of an IndexedSlices
gradient and their summed "terms" (g, g*g, ... as the optimizer's rule needs):

- touched rows: `rule(terms, slot_rows, step)` gives their new slot values and
  the amount subtracted from the variable (read and written by row index);
- lazy (`lazy=True`): nothing else is read or written, so the step costs what
  the batch touches (TF Addons' LazyAdam semantics for every optimizer);
- otherwise every other row gets `rule(None, ...)` (the rule without a
  gradient: momentum and moment decay, as TensorFlow's rules do). That sweep
  records the rule once as a list of ufunc calls (`rule_program`) and replays
  it over blocks of rows into buffers of `BLOCK_BYTES` allocated once per
  step, so the step's extra memory is a few such buffers, not the table.

Optional decoupled weight decay (`decay=(wd, lr)`, Keras's `w -= w * wd * lr`
before the step) is done in the same pass, on the touched rows only when lazy.

Rules are ordinary Python functions of NumPy arrays written with operators and
`rule_math` (the same code the dense path runs on tensors), so the numbers
equal the composite ops' numbers bit for bit.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..framework.op_def import declare_op
from ..grad_registry.registry import NotDifferentiable
from ..ops.constant_op import convert_to_tensor
from ..ops.dispatch import apply_op
from ..ops.state.resource_variable_ops import writable_value
from ..ops.state.variables import Variable
from .rule_program import record, value_of

# Bytes of each buffer of the dense sweep (see the module docstring): 256 KiB blocks
# measured 25% faster than 64 KiB ones (Python per block) and as fast as 1 MiB ones.
BLOCK_BYTES = 1 << 18

RowRule = Callable[[Optional[Tuple[np.ndarray, ...]], Tuple[np.ndarray, ...], Dict[str, Any]],
                   Tuple[Tuple[Any, ...], Any]]


def _check_rows(variable: Any, table: np.ndarray, rows: np.ndarray,
                terms: Sequence[np.ndarray]) -> None:
    if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
        raise InvalidArgumentError(None, None, f"ResourceSparseApplyRule: rows must be a vector "
                                   f"of integers, got {rows.dtype} of shape {rows.shape}")
    outside = (rows < 0) | (rows >= table.shape[0])
    if outside.any():
        i = int(np.argmax(outside))
        raise InvalidArgumentError(None, None, f"ResourceSparseApplyRule: indices[{i}] = "
                                   f"{rows[i]} is not in [0, {table.shape[0]}) for variable "
                                   f"'{variable.name}'")
    expected = rows.shape + table.shape[1:]
    for term in terms:
        if term.shape != expected:
            raise InvalidArgumentError(None, None, "ResourceSparseApplyRule: gradient rows of "
                                       f"shape {term.shape} do not match {rows.size} rows of "
                                       f"variable '{variable.name}' of shape {table.shape}")


def _decayed(block: np.ndarray, decay: Optional[Tuple[Any, Any]]) -> np.ndarray:
    """Keras's decoupled weight decay `w - w * wd * lr`, in place."""
    if decay is not None:
        wd, lr = decay
        np.subtract(block, block * wd * lr, out=block)
    return block


def _sweep(rule: RowRule, table: np.ndarray, slots: Sequence[np.ndarray], step: Dict[str, Any],
           decay: Optional[Tuple[Any, Any]]) -> None:
    """Every row gets the rule without a gradient, block by block, in place: the rule
    is recorded once (`rule_program`) and replayed per block into reused buffers."""
    program, outputs = record(lambda slot_values: rule(None, slot_values, step), len(slots))
    row_bytes = max(1, table[:1].nbytes)
    block = max(1, min(table.shape[0], BLOCK_BYTES // row_bytes))
    shape = (block,) + table.shape[1:]
    buffers = [np.empty(shape, table.dtype) for _ in range(program.num_buffers)]
    scratch = np.empty(shape, table.dtype) if decay is not None else None
    *new_slots, delta = outputs
    for start in range(0, table.shape[0], block):
        stop = start + block
        table_block = table[start:stop]
        slot_blocks = [s[start:stop] for s in slots]
        values = program.run(slot_blocks, buffers, len(table_block))
        for i, (target, new) in enumerate(zip(slot_blocks, new_slots, strict=True)):
            if not program.writes_in_place(new, i):
                target[...] = value_of(new, values)
        if decay is not None and scratch is not None:  # Keras: w - w * wd * lr
            part = scratch[:len(table_block)]
            np.multiply(table_block, decay[0], out=part)
            np.multiply(part, decay[1], out=part)
            np.subtract(table_block, part, out=table_block)
        np.subtract(table_block, value_of(delta, values), out=table_block)


def _kernel(resources: Any, *inputs: Any, rule: RowRule, num_slots: int, num_terms: int,
            step_names: Tuple[str, ...], lazy: bool, decay: bool) -> None:
    variable, slot_vars = inputs[0], inputs[1:1 + num_slots]
    rows = np.asarray(inputs[1 + num_slots])
    values = inputs[2 + num_slots:]
    terms = tuple(values[:num_terms])
    step = dict(zip(step_names, values[num_terms:num_terms + len(step_names)], strict=True))
    decay_values = tuple(values[num_terms + len(step_names):]) if decay else None
    with contextlib.ExitStack() as locks:
        for var in (variable, *slot_vars):
            locks.enter_context(var.update_lock)
        table = writable_value(resources, variable)
        slots = [writable_value(resources, s) for s in slot_vars]
        _check_rows(variable, table, rows, terms)
        new_rows, delta_rows = rule(terms, tuple(s[rows] for s in slots), step)
        table_rows = _decayed(table[rows], decay_values)
        if not lazy:
            _sweep(rule, table, slots, step, decay_values)
        for slot, new in zip(slots, new_rows, strict=True):
            slot[rows] = new
        table[rows] = table_rows - delta_rows


def _infer(inputs: Any, attrs: dict) -> list:
    return []


SPARSE_APPLY_RULE = declare_op("ResourceSparseApplyRule", _kernel, _infer, stateful=True,
                               num_outputs=0, grad_inputs=(), side_effects=True)
NotDifferentiable(SPARSE_APPLY_RULE.type)  # a state update, as TF's ResourceSparseApply* ops


def sparse_apply(rule: RowRule, variable: Variable, slots: Sequence[Variable], rows: Any,
                 terms: Sequence[Any], step: Dict[str, Any], lazy: bool,
                 decay: Optional[Tuple[Any, Any]] = None) -> Any:
    """Updates `variable` and `slots` in place from distinct `rows` and their summed
    gradient `terms`; `step` holds the scalars the rule reads (in the variable's dtype).
    Returns the op in graph mode, None eagerly."""
    names = tuple(sorted(step))
    inputs = [variable.handle, *(s.handle for s in slots), convert_to_tensor(rows),
              *(convert_to_tensor(t) for t in terms), *(convert_to_tensor(step[k]) for k in names)]
    if decay is not None:
        inputs.extend(convert_to_tensor(d) for d in decay)
    attrs = {"rule": rule, "num_slots": len(slots), "num_terms": len(terms),
             "step_names": names, "lazy": bool(lazy), "decay": decay is not None}
    return apply_op(SPARSE_APPLY_RULE, inputs, attrs, "ResourceSparseApplyRule")


__all__ = ["sparse_apply", "BLOCK_BYTES", "RowRule"]
