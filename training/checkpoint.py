"""dg.train.Checkpoint: save and restore a graph of trackable objects (TF2's API).

`Checkpoint(**kwargs)` roots the object graph at its keyword arguments
(plus its own `save_counter`); `save(prefix)` writes "prefix-N" and records
it in the directory's state file, `write(prefix)` writes exactly `prefix`;
`restore(path)` / `read(path)` return a status object with TF's assertions.
In graph mode values are read from and written to a Session (`session=`,
or the default one).
"""
from __future__ import annotations

import os
from typing import Any, Dict, Optional

import numpy as np

from ..framework import dtypes
from ..framework.default_session import get_default_session
from ..ops.state.variables import Variable
from . import checkpoint_format
from .checkpoint_format import CheckpointReader
from .checkpoint_restore import Restoration
from .object_graph import reachable_objects, serialize
from .trackable import (children_of, is_trackable, is_variable, needs_session, read_value,
                        write_value)


class Checkpoint:
    """Groups trackable objects (variables, modules, optimizers) for saving and restoring."""

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        children: Dict[str, Any] = dict(children_of(root)) if root is not None else {}
        for name, value in sorted(kwargs.items()):  # TF tracks them sorted by name
            if name == "save_counter":
                raise ValueError("The name 'save_counter' is reserved for the checkpoint's "
                                 "own counter.")
            if not is_trackable(value):
                raise ValueError(f"`Checkpoint` was expecting a trackable object (an object "
                                 f"derived from `Trackable`), got {value!r}. If you believe "
                                 "this object should be trackable (i.e. it is part of the "
                                 "TensorFlow Python API and manages state), please open an "
                                 "issue.")
            children[name] = value
        self._children = children
        self._save_counter: Optional[Variable] = None

    def trackable_children(self) -> Dict[str, Any]:
        children = dict(self._children)
        if self._save_counter is not None:
            children["save_counter"] = self._save_counter
        return children

    def __getattr__(self, name: str) -> Any:
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        raise AttributeError(f"'Checkpoint' object has no attribute '{name}'")

    @property
    def save_counter(self) -> Variable:
        """An int64 variable counting `save` calls (numbers the files "prefix-N")."""
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name="save_counter",
                                          dtype=dtypes.int64)
        return self._save_counter

    def _counter_value(self, session: Any) -> int:
        counter = self.save_counter
        if needs_session(counter):
            session = session if session is not None else get_default_session()
            if session is not None and not session.is_initialized(counter):
                write_value(counter, np.int64(0), session)
        return int(read_value(counter, session))

    # -- saving -------------------------------------------------------------------------------
    def write(self, file_prefix: str, options: Any = None, session: Any = None) -> str:
        """Writes the checkpoint to exactly `file_prefix` (no numbering, no state file)."""
        file_prefix = os.fspath(file_prefix)
        nodes, values, dtype_names = serialize(self, session)
        return checkpoint_format.write_checkpoint(file_prefix, values, dtype_names, nodes)

    def save(self, file_prefix: str, options: Any = None, session: Any = None) -> str:
        """Increments `save_counter`, writes "file_prefix-N" and makes it the latest checkpoint
        of its directory."""
        file_prefix = os.fspath(file_prefix)
        number = self._counter_value(session) + 1
        write_value(self.save_counter, np.int64(number), session)
        path = self.write(f"{file_prefix}-{number}", session=session)
        directory = os.path.dirname(os.path.abspath(path))
        checkpoint_format.write_state(directory, path, [path])
        return path

    # -- restoring ----------------------------------------------------------------------------
    def read(self, save_path: str, options: Any = None, session: Any = None) -> "CheckpointLoadStatus":
        """Restores from exactly `save_path` (as written by `write`); unlike `restore` it
        does not create `save_counter`, so a `write` checkpoint can be fully matched."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        return self._restore(os.fspath(save_path), session)

    def restore(self, save_path: Optional[str], options: Any = None,
                session: Any = None) -> Any:
        """Restores matched values now; deferred ones when their objects appear. Returns a
        status object (`assert_consumed`, `expect_partial`, `run_restore_ops`, ...)."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        self.save_counter  # noqa: B018 - created so that it is restored too
        return self._restore(os.fspath(save_path), session)

    def _restore(self, save_path: str, session: Any) -> "CheckpointLoadStatus":
        reader = CheckpointReader(save_path)
        restoration = Restoration(reader, self, session)
        restoration.run()
        return CheckpointLoadStatus(restoration)


def _graph_variables(root: Any) -> list:
    return [obj for _, obj in reachable_objects(root) if is_variable(obj) and needs_session(obj)]


def _initialize(variables: list, session: Any) -> None:
    session = session if session is not None else get_default_session()
    initializers = [v.initializer for v in variables if v.initializer is not None]
    if session is not None and initializers:
        session.run(initializers)


class CheckpointLoadStatus:
    """What a `restore` matched; TF's assertions on it."""

    def __init__(self, restoration: Restoration) -> None:
        self._restoration = restoration

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """Every checkpointed value has been restored and every live object got a value."""
        unresolved = self._restoration.unresolved_nodes()
        if unresolved:
            raise AssertionError(f"Unresolved object in checkpoint "
                                 f"{self._restoration.reader.prefix}: {unresolved[0]} (and "
                                 f"{len(unresolved) - 1} more: {unresolved[1:6]})")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> "CheckpointLoadStatus":
        """Every live object reachable from the root matched a checkpointed one."""
        unmatched = self._restoration.unmatched_objects()
        if unmatched:
            shown = unmatched[:10]
            raise AssertionError(f"Found {len(unmatched)} Python objects that were not bound to "
                                 "checkpointed values, likely due to changes in the Python "
                                 f"program. Showing {len(shown)} of {len(unmatched)} unmatched "
                                 f"objects: {shown}")
        return self

    def assert_nontrivial_match(self) -> "CheckpointLoadStatus":
        """Something beyond the root (and its save counter) matched."""
        counter = self._restoration.root.trackable_children().get("save_counter")
        others = [o for o in self._restoration.matched.values()
                  if o is not self._restoration.root and o is not counter]
        if not others:
            raise AssertionError("Nothing except the root object matched a checkpointed value. "
                                 "Typically this means that the checkpoint does not match the "
                                 "Python program.")
        return self

    def expect_partial(self) -> "CheckpointLoadStatus":
        """Declares that a partial restore is intended (silences nothing here: we never warn)."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Graph mode: writes the restored values of graph variables into `session`."""
        for variable, value in self._restoration.graph_values:
            write_value(variable, value, session)

    def initialize_or_restore(self, session: Any = None) -> None:
        """Graph mode: initializes unmatched variables, then restores the matched ones."""
        matched = {id(o) for o in self._restoration.matched.values()}
        _initialize([v for v in _graph_variables(self._restoration.root) if id(v) not in matched],
                    session)
        self.run_restore_ops(session)


class InitializationOnlyStatus:
    """The status of `restore(None)`: nothing to restore; variables keep their initializers."""

    def __init__(self, root: Any) -> None:
        self._root = root

    def _nothing(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_consumed(self) -> None:
        self._nothing()

    def assert_existing_objects_matched(self) -> None:
        self._nothing()

    def assert_nontrivial_match(self) -> None:
        self._nothing()

    def expect_partial(self) -> "InitializationOnlyStatus":
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        return None

    def initialize_or_restore(self, session: Any = None) -> None:
        _initialize(_graph_variables(self._root), session)
