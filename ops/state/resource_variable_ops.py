"""Variable ops: a handle, reads, assignments and scatters. Gradients: variable_grad.py.

A handle's runtime value is the `Variable` object itself; stateful kernels
get the resource store first (a Session in graph mode, the eager store in
eager mode) and read or write the variable's value there. A variable created
in eager mode holds its own value, so a graph that reads it (a captured
variable) sees the live value, as a `tf.function` does in TensorFlow.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...eager.execute import EAGER_RESOURCES
from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape


def _store(resources: Any, variable: Any) -> Any:
    """Where `variable`'s value lives: its own (eager-created) or the Session's."""
    return EAGER_RESOURCES if variable.created_eagerly else resources


def _check_shape(variable: Any, value: Any, what: str) -> None:
    if not variable.shape.is_compatible_with(value.shape):
        raise ValueError(f"Cannot {what} variable '{variable.name}': the variable shape "
                         f"{variable.shape} and the value shape {TensorShape(value.shape)} are "
                         "incompatible")


def _handle_kernel(*, variable: Any, dtype: Any, shape: Any) -> Any:
    return variable


def _handle_infer(inputs, attrs):
    return [(dtypes.resource, TensorShape(()))]


def _read_kernel(resources: Any, variable: Any, *, dtype: Any, shape: Any) -> np.ndarray:
    return _store(resources, variable).read(variable)


def _read_infer(inputs, attrs):
    return [(attrs["dtype"], attrs["shape"])]


def _assign_kernel(resources: Any, variable: Any, value: np.ndarray) -> None:
    _check_shape(variable, value, "assign to")
    with variable.update_lock:
        _store(resources, variable).write(variable, value)


def _assign_add_kernel(resources: Any, variable: Any, value: np.ndarray) -> None:
    store = _store(resources, variable)
    with variable.update_lock:  # read-modify-write: atomic against every other update
        old = store.read(variable)
        _check_shape(variable, np.broadcast(old, value), "update")
        store.write(variable, old + value)


def _assign_sub_kernel(resources: Any, variable: Any, value: np.ndarray) -> None:
    store = _store(resources, variable)
    with variable.update_lock:
        old = store.read(variable)
        _check_shape(variable, np.broadcast(old, value), "update")
        store.write(variable, old - value)


def _writable(store: Any, variable: Any, old: np.ndarray) -> np.ndarray:
    """`old` itself when nothing else holds it, else a copy (TF's copy-on-write).

    A value is never mutated while a read of it may still be alive (a tensor,
    a tape entry, a Session intermediate): TensorFlow copies a variable's
    buffer before an in-place update unless its reference count is one; we
    ask CPython the same question. References counted: the store's, the
    caller's `old`, this frame's argument and getrefcount's own argument.
    """
    if old.base is None and old.flags.writeable and sys.getrefcount(old) <= 4:
        return old
    return old.copy()


def writable_value(resources: Any, variable: Any) -> np.ndarray:
    """`variable`'s value array, safe to update in place (hold `variable.update_lock`).

    For fused kernels that update a variable row by row (training/sparse_apply.py):
    its own buffer when nothing else holds it, else a copy put in its place (the
    same copy-on-write as the scatter kernels). References counted: the store's,
    `value` and getrefcount's own argument.
    """
    store = _store(resources, variable)
    value = store.read(variable)
    if value.base is None and value.flags.writeable and sys.getrefcount(value) <= 3:
        return value
    value = value.copy()
    store.write(variable, value)
    return value


def _scatter(resources: Any, variable: Any, indices: np.ndarray, updates: np.ndarray,
             mode: str) -> None:
    with variable.update_lock:
        _scatter_locked(_store(resources, variable), variable, indices, updates, mode)


def _scatter_locked(store: Any, variable: Any, indices: np.ndarray, updates: np.ndarray,
                    mode: str) -> None:
    old = store.read(variable)
    if old.ndim == 0:
        raise ValueError(f"Cannot scatter into scalar variable '{variable.name}'")
    indices = np.asarray(indices)
    if indices.size and (indices.max() >= old.shape[0] or indices.min() < 0):
        bad = indices.max() if indices.max() >= old.shape[0] else indices.min()
        raise ValueError(f"indices[{bad}] is out of range [0, {old.shape[0]}) for variable "
                         f"'{variable.name}'")
    expected = indices.shape + old.shape[1:]
    if updates.shape != expected:
        raise ValueError(f"updates of shape {updates.shape} do not match indices of shape "
                         f"{indices.shape} into variable '{variable.name}' of shape {old.shape} "
                         f"(expected {expected})")
    new = _writable(store, variable, old)
    del old
    if mode == "update":
        new[indices] = updates  # repeated indices: the last one wins
    else:
        np.add.at(new, indices, updates if mode == "add" else -updates)
    store.write(variable, new)


def _scatter_add_kernel(resources: Any, variable: Any, indices: np.ndarray,
                        updates: np.ndarray) -> None:
    _scatter(resources, variable, indices, updates, "add")


def _scatter_sub_kernel(resources: Any, variable: Any, indices: np.ndarray,
                        updates: np.ndarray) -> None:
    _scatter(resources, variable, indices, updates, "sub")


def _scatter_update_kernel(resources: Any, variable: Any, indices: np.ndarray,
                           updates: np.ndarray) -> None:
    _scatter(resources, variable, indices, updates, "update")


def _is_initialized_kernel(resources: Any, variable: Any) -> np.ndarray:
    if variable.created_eagerly:
        return np.array(True)
    return np.array(resources.is_initialized(variable))


def _no_outputs(inputs, attrs):
    return []


def _is_initialized_infer(inputs, attrs):
    return [(dtypes.bool_, TensorShape(()))]


VAR_HANDLE = declare_op("VarHandleOp", _handle_kernel, _handle_infer, grad_inputs=())
READ_VARIABLE = declare_op("ReadVariableOp", _read_kernel, _read_infer, stateful=True,
                           grad_inputs=())
ASSIGN_VARIABLE = declare_op("AssignVariableOp", _assign_kernel, _no_outputs, stateful=True,
                             num_outputs=0, grad_inputs=(), side_effects=True)
ASSIGN_ADD_VARIABLE = declare_op("AssignAddVariableOp", _assign_add_kernel, _no_outputs,
                                 stateful=True, num_outputs=0, grad_inputs=(), side_effects=True)
ASSIGN_SUB_VARIABLE = declare_op("AssignSubVariableOp", _assign_sub_kernel, _no_outputs,
                                 stateful=True, num_outputs=0, grad_inputs=(), side_effects=True)
RESOURCE_SCATTER_ADD = declare_op("ResourceScatterAdd", _scatter_add_kernel, _no_outputs,
                                  stateful=True, num_outputs=0, grad_inputs=(), side_effects=True)
RESOURCE_SCATTER_SUB = declare_op("ResourceScatterSub", _scatter_sub_kernel, _no_outputs,
                                  stateful=True, num_outputs=0, grad_inputs=(), side_effects=True)
RESOURCE_SCATTER_UPDATE = declare_op("ResourceScatterUpdate", _scatter_update_kernel, _no_outputs,
                                     stateful=True, num_outputs=0, grad_inputs=(),
                                     side_effects=True)
VAR_IS_INITIALIZED = declare_op("VarIsInitializedOp", _is_initialized_kernel,
                                _is_initialized_infer, stateful=True, grad_inputs=())
