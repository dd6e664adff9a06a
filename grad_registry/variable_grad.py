"""Gradients of variable ops (ops/state/resource_variable_ops.py)."""
from __future__ import annotations

from ..ops.state.resource_variable_ops import (ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE,
                                               ASSIGN_VARIABLE, READ_VARIABLE, RESOURCE_SCATTER_ADD,
                                               RESOURCE_SCATTER_SUB, RESOURCE_SCATTER_UPDATE,
                                               VAR_HANDLE, VAR_IS_INITIALIZED)
from .registry import NotDifferentiable, RegisterGradient

for _op in (VAR_HANDLE, ASSIGN_VARIABLE, ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE,
            RESOURCE_SCATTER_ADD, RESOURCE_SCATTER_SUB, RESOURCE_SCATTER_UPDATE, VAR_IS_INITIALIZED):
    NotDifferentiable(_op.type)


@RegisterGradient(READ_VARIABLE.type)
def _read_variable_grad(op, grad):
    """grad, passed to the variable's handle."""
    return grad
