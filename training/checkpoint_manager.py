"""dg.train.CheckpointManager and latest_checkpoint: numbered checkpoints in a directory.

The manager writes "<directory>/<checkpoint_name>-N", keeps the newest
`max_to_keep` (plus one every `keep_checkpoint_every_n_hours`), and records
them in the directory's state file. The state file is rewritten only after
the new checkpoint is complete, so a crash mid-save leaves the previous
latest checkpoint in force.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Optional

from ..framework.errors import FailedPreconditionError
from ..framework.default_session import get_default_session
from . import checkpoint_format
from .trackable import read_value, write_value


def latest_checkpoint(checkpoint_dir: str, latest_filename: Optional[str] = None) -> Optional[str]:
    """The prefix of the newest complete checkpoint recorded in `checkpoint_dir`, or None."""
    state = checkpoint_format.read_state(os.fspath(checkpoint_dir), latest_filename)
    if state is None:
        return None
    path = state["model_checkpoint_path"]
    return path if checkpoint_format.checkpoint_exists(path) else None


def get_checkpoint_state(checkpoint_dir: str, latest_filename: Optional[str] = None) -> Any:
    """The directory's checkpoint state (`model_checkpoint_path`, `all_model_checkpoint_paths`)."""
    state = checkpoint_format.read_state(os.fspath(checkpoint_dir), latest_filename)
    return None if state is None else CheckpointState(**state)


class CheckpointState:
    """The parsed state file (TF's CheckpointState proto, as attributes)."""

    def __init__(self, model_checkpoint_path: str, all_model_checkpoint_paths: List[str],
                 all_model_checkpoint_timestamps: Optional[List[float]] = None,
                 last_preserved_timestamp: float = 0.0) -> None:
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = all_model_checkpoint_paths
        self.all_model_checkpoint_timestamps = all_model_checkpoint_timestamps or []
        self.last_preserved_timestamp = last_preserved_timestamp


class CheckpointManager:
    """Saves numbered checkpoints of `checkpoint` into `directory`, deleting old ones."""

    def __init__(self, checkpoint: Any, directory: str, max_to_keep: Optional[int],
                 keep_checkpoint_every_n_hours: Optional[float] = None,
                 checkpoint_name: str = "ckpt", step_counter: Any = None,
                 checkpoint_interval: Optional[int] = None,
                 init_fn: Optional[Callable[[], Any]] = None) -> None:
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_seconds = (None if keep_checkpoint_every_n_hours is None
                                    else keep_checkpoint_every_n_hours * 3600.0)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step: Optional[int] = None
        self._init_fn = init_fn
        self._maybe_delete: Dict[str, float] = {}
        self._latest: Optional[str] = None
        self._last_preserved = time.time()
        state = checkpoint_format.read_state(self._directory)
        if state is not None:
            self._latest = state["model_checkpoint_path"]
            stamps = state.get("all_model_checkpoint_timestamps") or []
            paths = state["all_model_checkpoint_paths"]
            if len(stamps) != len(paths):
                stamps = [time.time()] * len(paths)
            if max_to_keep is not None:  # TF forgets older files when nothing is deleted
                self._maybe_delete = dict(zip(paths, stamps, strict=True))
            self._last_preserved = state.get("last_preserved_timestamp") or self._last_preserved

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Any:
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> Optional[int]:
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> Optional[str]:
        """The newest checkpoint's prefix, or None (a save path `restore` accepts)."""
        return self._latest

    @property
    def checkpoints(self) -> List[str]:
        """The checkpoints this manager keeps and may still delete, oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number: Any = None, check_interval: bool = True,
             options: Any = None, session: Any = None) -> Optional[str]:
        """Writes "<prefix>-N" (N: `checkpoint_number`, else the incremented save counter);
        returns its path, or None when `checkpoint_interval` steps have not passed."""
        session = session if session is not None else get_default_session()
        if check_interval and self._checkpoint_interval is not None:
            step = int(read_value(self._step_counter, session))
            if self._last_checkpoint_step is not None and \
                    step - self._last_checkpoint_step < self._checkpoint_interval:
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        number = int(self._checkpoint_number(counter, session)) + 1
        write_value(counter, number, session)
        if checkpoint_number is None:
            checkpoint_number = number
        elif not isinstance(checkpoint_number, int):
            checkpoint_number = int(read_value(checkpoint_number, session))
        path = self._checkpoint.write(f"{self._prefix}-{checkpoint_number}", session=session)
        self._maybe_delete.pop(path, None)  # an overwritten one moves to the end
        self._maybe_delete[path] = time.time()
        self._latest = path
        self._record_state()  # the new checkpoint is recorded before anything is deleted
        self._sweep()
        self._record_state()
        return path

    def _checkpoint_number(self, counter: Any, session: Any) -> int:
        try:
            return int(read_value(counter, session))
        except FailedPreconditionError:  # a graph counter not yet initialized in this session
            return 0

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = next(iter(self._maybe_delete.items()))
            del self._maybe_delete[path]
            if self._keep_every_seconds is not None and \
                    stamp - self._keep_every_seconds > self._last_preserved:
                self._last_preserved = stamp
                continue
            checkpoint_format.delete_checkpoint(path)

    def _record_state(self) -> None:
        assert self._latest is not None, "called only after save() recorded a checkpoint"
        paths = list(self._maybe_delete) or [self._latest]
        stamps = [self._maybe_delete.get(p, time.time()) for p in paths]
        checkpoint_format.write_state(self._directory, self._latest, paths, stamps,
                                      self._last_preserved)

    def restore_or_initialize(self) -> Optional[str]:
        """Restores the latest checkpoint and returns its path; with none, calls `init_fn`
        (if given) and returns None."""
        if self._latest is not None and checkpoint_format.checkpoint_exists(self._latest):
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Writes are synchronous here: nothing to wait for."""
