"""dg.compat.v1.train.Saver: TF1's name-based checkpoints of variables in a Session.

A Saver checkpoint uses the same files as `Checkpoint` (checkpoint_format)
with variables keyed by name and no object graph. `save(sess, path,
global_step=)` writes "path-step", keeps the newest `max_to_keep`, and
records them in the directory's state file (written last, atomically).
"""
from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Optional

import numpy as np

from ..eager import context
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.tensor_shape import TensorShape
from ..ops.state.variables import global_variables
from . import checkpoint_format
from .checkpoint_format import CheckpointReader
from .trackable import read_value, write_value


def _saved_name(variable: Any) -> str:
    name = variable.name
    return name[:-2] if name.endswith(":0") else name


def _by_name(var_list: Any) -> Dict[str, Any]:
    if var_list is None:
        if context.executing_eagerly():
            raise RuntimeError("When eager execution is enabled, `var_list` must specify a list "
                               "or dict of variables to save")
        var_list = global_variables()
    if isinstance(var_list, dict):
        named = dict(var_list)
    else:
        named = {}
        for variable in var_list:
            name = _saved_name(variable)
            if name in named:
                raise ValueError(f"At least two variables have the same name: {name}")
            named[name] = variable
    return named


class Saver:
    """Saves and restores variables by name (TF1's `tf.compat.v1.train.Saver`)."""

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False,
                 max_to_keep: Optional[int] = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: Optional[str] = None, restore_sequentially: bool = False,
                 saver_def: Any = None, builder: Any = None, defer_build: bool = False,
                 allow_empty: bool = False, write_version: Any = None,
                 pad_step_number: bool = False, save_relative_paths: bool = False,
                 filename: Optional[str] = None) -> None:
        self._var_list = var_list
        self._variables = _by_name(var_list)
        if not self._variables and not allow_empty:
            raise ValueError("No variables to save")
        self._max_to_keep = max_to_keep
        self._keep_every_seconds = keep_checkpoint_every_n_hours * 3600.0
        self._next_preserve = time.time() + self._keep_every_seconds
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._last_checkpoints: List[tuple] = []  # (path, time), oldest first

    @property
    def last_checkpoints(self) -> List[str]:
        """The checkpoints not yet deleted, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: List[tuple]) -> None:
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths: List[str]) -> None:
        """Takes over existing checkpoints (e.g. after a restart) for `max_to_keep` deletion."""
        now = time.time()
        self._last_checkpoints = [(p, now) for p in checkpoint_paths
                                  if checkpoint_format.checkpoint_exists(p)]

    def save(self, sess: Any, save_path: str, global_step: Any = None,
             latest_filename: Optional[str] = None, meta_graph_suffix: str = "meta",
             write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str:
        """Writes the variables' values from `sess`; returns the checkpoint prefix."""
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = int(read_value(global_step, sess))
            step = f"{int(global_step):08d}" if self._pad_step_number else str(int(global_step))
            save_path = f"{save_path}-{step}"
        ordered = sorted(self._variables.items())  # TF1 writes them sorted by name
        values = {name: read_value(v, sess) for name, v in ordered}
        dtype_names = {name: v.dtype.name for name, v in self._variables.items()}
        checkpoint_format.write_checkpoint(save_path, values, dtype_names)
        if write_state:
            self._remember(save_path)
            directory = os.path.dirname(save_path) or os.curdir  # as given: maybe relative
            checkpoint_format.write_state(directory, save_path, self.last_checkpoints,
                                          [t for _, t in self._last_checkpoints],
                                          relative=self._save_relative_paths,
                                          latest_filename=latest_filename)
        return save_path

    def _remember(self, save_path: str) -> None:
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != save_path]
        self._last_checkpoints.append((save_path, time.time()))
        if not self._max_to_keep:
            return
        while len(self._last_checkpoints) > self._max_to_keep:
            path, stamp = self._last_checkpoints.pop(0)
            if stamp > self._next_preserve:
                self._next_preserve += self._keep_every_seconds
                continue
            checkpoint_format.delete_checkpoint(path)

    def restore(self, sess: Any, save_path: Optional[str]) -> None:
        """Sets every variable from checkpoint `save_path` in `sess` (all checked first)."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not checkpoint_format.checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        reader = CheckpointReader(save_path)
        writes = [(variable, self._checked_key(reader, name, variable))
                  for name, variable in self._variables.items()]
        reader.verify([key for _, key in writes])  # checksums first, streamed
        for variable, key in writes:  # then one value in memory at a time
            write_value(variable, reader.get_tensor(key), sess, owned=True)

    @staticmethod
    def _checked_key(reader: CheckpointReader, name: str, variable: Any) -> str:
        if not reader.has_tensor(name):
            raise NotFoundError(None, None, f"Restoring from checkpoint failed: key {name} (for "
                                f"variable {variable.name}) not found in checkpoint "
                                f"{reader.prefix}")
        saved_dtype, saved_shape = reader.dtype(name), TensorShape(reader.shape(name))
        if saved_dtype != variable.dtype or not \
                TensorShape(variable.shape).is_compatible_with(saved_shape):
            raise InvalidArgumentError(
                None, None, f"Restoring from checkpoint failed: variable {variable.name} has "
                f"dtype {variable.dtype.name} and shape {variable.shape}, but checkpoint "
                f"{reader.prefix} holds dtype {saved_dtype.name} and shape {saved_shape} "
                f"under key {name}")
        return name
