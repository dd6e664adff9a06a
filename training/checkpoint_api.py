"""The checkpoint names of dg.train and dg.compat.v1.train (assembled in duograd/namespaces.py)."""
from __future__ import annotations

import os
from typing import List, Tuple

import numpy as np

from .checkpoint import Checkpoint, CheckpointLoadStatus, InitializationOnlyStatus
from .checkpoint_format import CheckpointReader, checkpoint_exists
from .checkpoint_manager import (CheckpointManager, CheckpointState, get_checkpoint_state,
                                 latest_checkpoint)
from .saver import Saver


def _resolve(ckpt_dir_or_file: str) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory "
                             f"{path}")
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A reader of the checkpoint (or a directory's latest): `get_tensor`, `has_tensor`."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str) -> List[Tuple[str, List[int]]]:
    """(key, shape) of every value in the checkpoint, sorted by key."""
    return load_checkpoint(ckpt_dir_or_file).variable_shapes()


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def checkpoint_exists_v1(checkpoint_prefix: str) -> bool:
    return checkpoint_exists(os.fspath(checkpoint_prefix))


CHECKPOINT_NAMES = {
    "Checkpoint": Checkpoint,
    "CheckpointManager": CheckpointManager,
    "CheckpointState": CheckpointState,
    "latest_checkpoint": latest_checkpoint,
    "get_checkpoint_state": get_checkpoint_state,
    "load_checkpoint": load_checkpoint,
    "list_variables": list_variables,
    "load_variable": load_variable,
}
COMPAT_V1_CHECKPOINT_NAMES = {
    **CHECKPOINT_NAMES,
    "Saver": Saver,
    "checkpoint_exists": checkpoint_exists_v1,
}
__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus", "InitializationOnlyStatus",
           "Saver", "latest_checkpoint", "list_variables", "load_variable", "load_checkpoint"]
