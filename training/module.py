"""dg.Module: a named container of variables and sub-modules (TF's `tf.Module`).

`variables`, `trainable_variables` and `submodules` walk the instance's
attributes in sorted order, through lists, tuples and dicts, breadth-first
within a module and then depth-first into each sub-module, exactly in the
order TensorFlow yields them. Each object is reported once.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Iterator, List, Optional, Tuple

from ..ops.state.variables import Variable
from ..framework.scopes import name_scope as _name_scope_cm
from .trackable import child_added

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """'MLPBlock' -> 'mlp_block', as TensorFlow names modules."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


class ModuleNameScope:
    """A reusable name scope fixed at module creation (`Module.name_scope`)."""

    def __init__(self, scope_name: str) -> None:
        self.name = scope_name  # absolute: ends with '/'
        self._active: List[Any] = []

    def __enter__(self) -> str:
        manager = _name_scope_cm(self.name)
        scope = manager.__enter__()
        self._active.append(manager)
        return scope

    def __exit__(self, *exc: Any) -> Any:
        return self._active.pop().__exit__(*exc)


class Module:
    """Base class of models: tracks variables and sub-modules set as attributes."""

    def __init__(self, name: Optional[str] = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not _VALID_IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be "
                             "valid Python identifiers (e.g. a valid class name).")
        self._name = name
        with _name_scope_cm(name) as scope_name:
            self._scope = ModuleNameScope(scope_name)

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> ModuleNameScope:
        """The scope every variable and op the module creates should be in."""
        return self._scope

    @property
    def variables(self) -> Tuple[Variable, ...]:
        """Variables of this module and its sub-modules (each once, TF's order)."""
        return tuple(_flatten(self, _is_variable))

    @property
    def trainable_variables(self) -> Tuple[Variable, ...]:
        return tuple(_flatten(self, _is_trainable))

    @property
    def non_trainable_variables(self) -> Tuple[Variable, ...]:
        return tuple(_flatten(self, lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> Tuple["Module", ...]:
        """Every module reachable from this one's attributes (not itself)."""
        return tuple(_flatten(self, _is_module))

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator: runs `method` inside the module's name scope."""
        @functools.wraps(method)
        def method_with_name_scope(self: "Module", *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope

    def __setattr__(self, name: str, value: Any) -> None:
        """Sets the attribute; a checkpoint restored before it existed restores it now
        (TF's deferred restoration of variables a module builds lazily)."""
        object.__setattr__(self, name, value)
        child_added(self, name, value)

    def trackable_children(self) -> dict:
        """Named attributes holding variables, modules, optimizers (checkpoint walk), in
        the order they were first assigned, as TF numbers a module's checkpoint nodes."""
        children = {}
        for key in list(vars(self)):
            value = vars(self)[key]
            if _holds_trackable(value):
                children[key] = value
        return children

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self._name!r}>"


def _is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


def _is_trainable(value: Any) -> bool:
    return isinstance(value, Variable) and value.trainable


def _is_module(value: Any) -> bool:
    return isinstance(value, Module)


def _holds_trackable(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Variable) or hasattr(item, "trackable_children"):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def _leaves(value: Any) -> Iterator[Any]:
    """Leaves of nested lists, tuples and dicts (dict keys sorted), in nest order."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item[k] for k in reversed(_sorted_keys(item)))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            yield item


def _sorted_keys(mapping: dict) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        return sorted(mapping, key=repr)


def _flatten(module: Module, predicate: Callable[[Any], bool]) -> Iterator[Any]:
    """TF's module walk: a module's own attributes first, then each sub-module's."""
    seen = {id(module)}
    pending = [iter(_module_items(module, predicate, seen))]
    # Each frame yields matching leaves, then the sub-modules to descend into.
    while pending:
        try:
            kind, item = next(pending[-1])
        except StopIteration:
            pending.pop()
            continue
        if kind == "leaf":
            yield item
        else:
            pending.append(iter(_module_items(item, predicate, seen)))


def _module_items(module: Module, predicate: Callable[[Any], bool],
                  seen: set) -> List[Tuple[str, Any]]:
    items: List[Tuple[str, Any]] = []
    submodules = []
    attributes = vars(module)
    for key in sorted(attributes):
        for leaf in _leaves(attributes[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                items.append(("leaf", leaf))
            if isinstance(leaf, Module):
                submodules.append(("module", leaf))
    return items + submodules


__all__ = ["Module"]
