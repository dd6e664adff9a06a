"""The public training namespaces, assembled in one place.

`dg.keras.optimizers` (= `dg.optimizers`) with `.schedules`, `dg.train`,
`dg.compat.v1.train` (`v1_train`). Other packages add their names to `train` and
`v1_train` with `extend(namespace, {...})` in their own block here (or
in `duograd/namespaces.py`), so the namespaces stay one object each.
"""
from __future__ import annotations

import types
from typing import Any, Dict

from . import optimizers as _optimizers
from . import schedules as _schedules
from .v1 import learning_rate_decay, optimizers as _v1_optimizers, training_util
from .v1.optimizer import Optimizer as _V1Optimizer


def namespace(name: str, members: Dict[str, Any]) -> types.SimpleNamespace:
    space = types.SimpleNamespace(**members)
    space.__name__ = name
    return space


def extend(space: types.SimpleNamespace, members: Dict[str, Any]) -> None:
    """Adds names to a public namespace (used by the packages that contribute to it)."""
    for key, value in members.items():
        setattr(space, key, value)


def _public(module: Any) -> Dict[str, Any]:
    return {key: getattr(module, key) for key in module.__all__}


# -- Keras-style optimizers and schedules -----------------------------------------
schedules = namespace("duograd.keras.optimizers.schedules", _public(_schedules))
optimizers = namespace("duograd.keras.optimizers",
                       {**_public(_optimizers), "schedules": schedules})
keras = namespace("duograd.keras", {"optimizers": optimizers})

# -- TF1 train.* (optimizers, global step, decay functions) ----------------------
_TRAIN_V1 = {**_public(_v1_optimizers), **_public(training_util),
             **_public(learning_rate_decay), "Optimizer": _V1Optimizer}
train = namespace("duograd.train", dict(_TRAIN_V1))
# dg.compat.v1.train (dg.compat itself is assembled in duograd/namespaces.py)
v1_train = namespace("duograd.compat.v1.train", dict(_TRAIN_V1))

# -- Checkpoints (checkpoint_api): Checkpoint, CheckpointManager, latest_checkpoint, Saver --
from . import checkpoint_api as _checkpoint_api  # noqa: E402

extend(train, _checkpoint_api.CHECKPOINT_NAMES)
extend(v1_train, _checkpoint_api.COMPAT_V1_CHECKPOINT_NAMES)

# -- GraphDef files (formats/api.py): dg.compat.v1.train.write_graph --
from ..formats.api import IO_NAMES as _IO_NAMES  # noqa: E402

extend(v1_train, _IO_NAMES)

__all__ = ["keras", "optimizers", "train", "v1_train", "namespace", "extend"]
