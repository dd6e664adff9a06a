"""TF1 variable sharing: variable_scope, get_variable, AUTO_REUSE (tf.compat.v1).

Inside a graph, `get_variable("v")` under `variable_scope("foo")` creates or
(with `reuse`) returns the graph's variable `foo/v`; a variable store per
graph remembers them. As in TensorFlow 2, eager mode has no store: every
call creates a new variable and `reuse` is ignored. A variable scope also
opens a name scope of the same name for the ops built inside it.
"""
from __future__ import annotations

import contextlib
import enum
import weakref
from typing import Any, Dict, Iterator, List, Optional, Union

from ...eager import context
from ...framework import dtypes
from ...framework.tensor import Tensor
from ...framework.tensor_shape import as_shape
from . import init_ops
from .variables import Variable

_state = context.state


class _ScopeState(context.OwnedThreadState):
    """This thread's tf.compat.v1.variable_scope stack."""

    def __init__(self) -> None:
        self.stack: List[Any] = []


_scope_state = context.owned_state(_ScopeState)


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE

# graph -> {full variable name: variable}; weak, so a dropped graph frees its store.
_stores: "weakref.WeakKeyDictionary[Any, Dict[str, Variable]]" = weakref.WeakKeyDictionary()


class VariableScope:
    """A scope's name and the defaults `get_variable` inherits inside it."""

    def __init__(self, reuse: Union[bool, _ReuseMode, None], name: str = "",
                 initializer: Any = None, dtype: Any = dtypes.float32,
                 name_scope: str = "") -> None:
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.dtype = dtypes.as_dtype(dtype)
        self.original_name_scope = name_scope

    def reuse_variables(self) -> None:
        self.reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self.initializer = initializer

    def get_variable(self, name: str, *args: Any, **kwargs: Any) -> Variable:
        with variable_scope(self):
            return get_variable(name, *args, **kwargs)


def _scopes() -> list:
    stack = _scope_state.stack
    if not stack:
        stack.append(VariableScope(None))
    return stack


def get_variable_scope() -> VariableScope:
    """The innermost variable scope of this thread."""
    return _scopes()[-1]


def _unique_scope_name(base: str) -> str:
    """`base`, `base_1`, ...: the first not yet used by a scope of the current graph."""
    graph = _state.graph
    used = _used_scope_names(graph)
    name, i = base, 0
    while name in used:
        i += 1
        name = f"{base}_{i}"
    used.add(name)
    return name


_scope_names: "weakref.WeakKeyDictionary[Any, set]" = weakref.WeakKeyDictionary()


def _used_scope_names(graph: Any) -> set:
    if graph is None:
        return set()
    return _scope_names.setdefault(graph, set())


@contextlib.contextmanager
def variable_scope(name_or_scope: Union[str, VariableScope, None], default_name: Optional[str] = None,
                   values: Any = None, initializer: Any = None, regularizer: Any = None,
                   caching_device: Any = None, partitioner: Any = None,
                   custom_getter: Any = None, reuse: Union[bool, _ReuseMode, None] = None,
                   dtype: Any = None, use_resource: Any = None, constraint: Any = None,
                   auxiliary_name_scope: bool = True) -> Iterator[VariableScope]:
    """A scope for `get_variable` names and defaults (reuse is inherited once set)."""
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:
        reuse = None   # False means "inherit", as in TensorFlow
    parent = get_variable_scope()
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
        template = name_or_scope
    else:
        if name_or_scope is not None:
            full = f"{parent.name}/{name_or_scope}" if parent.name else str(name_or_scope)
            _used_scope_names(_state.graph).add(full)
        else:
            full = _unique_scope_name(
                f"{parent.name}/{default_name}" if parent.name else str(default_name))
        template = parent
    if parent.reuse is True or reuse is True:
        scope_reuse: Any = True     # reuse=True holds for every scope inside
    else:
        scope_reuse = reuse if reuse is not None else template.reuse
    scope = VariableScope(scope_reuse, full,
                          initializer if initializer is not None else template.initializer,
                          dtype if dtype is not None else template.dtype)
    base = full.rsplit("/", 1)[-1]
    stack = _scopes()
    stack.append(scope)
    try:
        graph = _state.graph
        if graph is not None and auxiliary_name_scope:
            reentered = isinstance(name_or_scope, VariableScope) and \
                name_or_scope.original_name_scope
            with graph.name_scope(reentered or base) as ns:
                scope.original_name_scope = ns
                yield scope
        else:
            yield scope
    finally:
        stack.remove(scope)


def _initial_value(name: str, shape: Any, dtype: Any, initializer: Any) -> Any:
    if isinstance(initializer, (Tensor, Variable)) or not callable(initializer) and \
            initializer is not None:
        if shape is not None and isinstance(initializer, Tensor):
            raise ValueError("If initializer is a constant, do not specify shape.")
        return initializer
    if shape is None or not as_shape(shape).is_fully_defined():
        raise ValueError(f"Variable {name} did not get an initializer, so its `shape` "
                         "argument must be specified.")
    dims = as_shape(shape).as_list()
    if initializer is None:
        initializer = (init_ops.GlorotUniform() if dtype.is_floating or dtype.is_complex
                       else init_ops.Zeros())
    return lambda: initializer(dims, dtype=dtype)


def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Any = None, trainable: Optional[bool] = None,
                 collections: Any = None, caching_device: Any = None, partitioner: Any = None,
                 validate_shape: bool = True, use_resource: Any = None,
                 custom_getter: Any = None, constraint: Any = None, **unused: Any) -> Variable:
    """The variable `<scope>/name`: created, or shared when the scope reuses (graph mode)."""
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    explicit_dtype = dtype is not None
    dtype = dtypes.as_dtype(dtype) if explicit_dtype else (
        initializer.dtype if isinstance(initializer, Tensor) else scope.dtype)
    graph = _state.graph
    store = _stores.setdefault(graph, {}) if graph is not None else None
    if store is not None and full in store:
        found = store[full]
        if scope.reuse is None or scope.reuse is False:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set "
                             "reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
        if shape is not None and not as_shape(shape).is_compatible_with(found.shape):
            raise ValueError(f"Trying to share variable {full}, but specified shape "
                             f"{as_shape(shape)} and found shape {found.shape}.")
        if dtype != found.dtype.base_dtype:
            raise ValueError(f"Trying to share variable {full}, but specified dtype "
                             f"{dtype.name} and found dtype {found.dtype.name}.")
        return found
    if store is not None and scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with "
                         "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
    value = _initial_value(full, shape, dtype,
                           initializer if initializer is not None else scope.initializer)
    kwargs: Dict[str, Any] = {"trainable": True if trainable is None else trainable, "name": full,
              "shape": shape if shape is not None else None, "validate_shape": validate_shape,
              "collections": collections}
    if graph is None or store is None:
        return Variable(value, dtype=dtype if explicit_dtype or callable(value) else None,
                        **kwargs)
    with graph.name_scope(""):
        variable = Variable(value, dtype=dtype if explicit_dtype or callable(value) else None,
                            **kwargs)
    store[full] = variable
    if regularizer is not None:  # TF1: its loss joins the REGULARIZATION_LOSSES collection
        with graph.name_scope(f"{full}/Regularizer/"):
            penalty = regularizer(variable)
        if penalty is not None:
            graph.add_to_collection("regularization_losses", penalty)
    return variable


__all__ = ["variable_scope", "get_variable", "get_variable_scope", "AUTO_REUSE",
           "VariableScope"]
