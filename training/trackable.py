"""The tracking protocol that checkpoints walk.

An object is trackable when it is a variable (a leaf whose value is saved)
or has a public `trackable_children() -> dict[str, object]`; lists, tuples
and dicts of trackables are trackable containers (children "0", "1", ... or
their keys). Optimizers add `slot_variables()` and `defer_slot_restore()`.

Values are read and written without building ops: a variable created
eagerly holds its value; a graph variable's value lives in a Session.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from ..framework.default_session import get_default_session
from ..ops.state.variables import Variable


def is_variable(obj: Any) -> bool:
    """A leaf: a dg.Variable, or a variable-like object (`assign`, `numpy`, `dtype`, `shape`)
    that has no children of its own (e.g. a distributed variable)."""
    if isinstance(obj, Variable):
        return True
    return (not callable(getattr(obj, "trackable_children", None))
            and all(callable(getattr(obj, m, None)) for m in ("assign", "numpy"))
            and hasattr(obj, "dtype") and hasattr(obj, "shape"))


def is_trackable(obj: Any) -> bool:
    return (isinstance(obj, (list, tuple, dict)) or is_variable(obj)
            or callable(getattr(obj, "trackable_children", None)))


def children_of(obj: Any) -> Dict[str, Any]:
    """The named trackable children of `obj` (empty for a variable)."""
    if is_variable(obj):
        return {}
    if isinstance(obj, (list, tuple)):
        items = [(str(i), c) for i, c in enumerate(obj)]
    elif isinstance(obj, dict):
        items = [(str(k), c) for k, c in obj.items()]
    else:
        method = getattr(obj, "trackable_children", None)
        items = list(method().items()) if callable(method) else []
    return {name: child for name, child in items if is_trackable(child)}


def slot_variables_of(obj: Any) -> List[Tuple[Any, str, Any]]:
    method = getattr(obj, "slot_variables", None)
    return list(method()) if callable(method) else []


# -- values --------------------------------------------------------------------------------

def _session_for(variable: Any, session: Any) -> Any:
    session = session if session is not None else get_default_session()
    if session is None:
        raise ValueError(f"Variable {variable.name} was created in a graph, so its value lives "
                         "in a Session: pass `session=` or run inside `with sess.as_default():`")
    return session


def read_value(variable: Any, session: Any = None) -> np.ndarray:
    """The variable's current value as an array of its dtype."""
    if isinstance(variable, Variable):
        if variable.created_eagerly:
            return np.asarray(variable.eager_value())
        return np.asarray(_session_for(variable, session).read(variable))
    return np.asarray(variable.numpy())


def write_value(variable: Any, value: Any, session: Any = None, owned: bool = False) -> None:
    """Sets the variable's value (already checked for shape and dtype) without building ops.
    `owned`: `value` is a new array nobody else holds (a checkpoint read), kept uncopied."""
    numpy_dtype = np.dtype(variable.dtype.as_numpy_dtype)
    if not (owned and isinstance(value, np.ndarray) and value.dtype == numpy_dtype):
        value = np.array(value, dtype=numpy_dtype, copy=True)
    if isinstance(variable, Variable):
        if variable.created_eagerly:
            variable.set_eager_value(value)
        else:
            _session_for(variable, session).write(variable, value)
        return
    variable.assign(value)


def needs_session(variable: Any) -> bool:
    return isinstance(variable, Variable) and not variable.created_eagerly


# -- deferred restoration of children created after a restore ------------------------------

class DeferredChildren:
    """Checkpointed children a live object did not have yet when it was restored.

    `pending(parent)` maps a child name to a callback restoring a newly
    created child; an object that builds children lazily (a Module whose
    variables appear on first call) reports each new attribute with
    `child_added(parent, name, child)`, as TF restores on assignment."""

    def __init__(self) -> None:
        self._by_parent: "weakref.WeakKeyDictionary[Any, Dict[str, Callable]]" = \
            weakref.WeakKeyDictionary()

    def add(self, parent: Any, name: str, restore: Callable[[Any], None]) -> bool:
        try:
            self._by_parent.setdefault(parent, {})[name] = restore
        except TypeError:  # not weak-referenceable: it cannot gain children later anyway
            return False
        return True

    def child_added(self, parent: Any, name: str, child: Any) -> None:
        try:
            waiting = self._by_parent.get(parent)
        except TypeError:
            return
        if waiting and name in waiting and is_trackable(child):
            waiting.pop(name)(child)

    def is_pending(self, parent: Any, name: str) -> bool:
        try:
            return name in self._by_parent.get(parent, {})
        except TypeError:
            return False


DEFERRED = DeferredChildren()


def child_added(parent: Any, name: str, child: Any) -> None:
    """Call when `parent` gains the trackable attribute `name` (restores it if a
    checkpoint restored earlier holds a value for it)."""
    DEFERRED.child_added(parent, name, child)


def escape_name(name: str) -> str:
    """A child name as one component of a checkpoint key ('/' and '.' escaped, as TF does)."""
    return name.replace("\\", "\\\\").replace("/", "\\S").replace(".", "\\.")


__all__: List[str] = []
