"""Keras' automatic object names: the second unnamed `AUC()` is "auc_1".

Keras 3 keeps one process-wide count per snake-case name (reset by
`keras.backend.clear_session()`); this module is that registry.
"""
from __future__ import annotations

import re
import threading
from collections import defaultdict
from typing import DefaultDict

NAME_UIDS: DefaultDict[str, int] = defaultdict(int)
LOCK = threading.Lock()


def to_snake_case(name: str) -> str:
    """"AUC" -> "auc", "BinaryIoU" -> "binary_io_u", as Keras spells class names."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def uniquify(name: str) -> str:
    """`name` the first time, then `name_1`, `name_2`, ..."""
    with LOCK:
        count = NAME_UIDS[name]
        NAME_UIDS[name] = count + 1
    return f"{name}_{count}" if count else name


def auto_name(class_name: str) -> str:
    return uniquify(to_snake_case(class_name))


def clear_session() -> None:
    """Forgets the names given so far (`keras.backend.clear_session`)."""
    with LOCK:
        NAME_UIDS.clear()


def epsilon() -> float:
    """Keras' fuzz factor (`keras.backend.epsilon()`), used by its losses and metrics."""
    return 1e-7


def floatx() -> str:
    """Keras' default float type."""
    return "float32"


BACKEND_NAMES = {"clear_session": clear_session, "epsilon": epsilon, "floatx": floatx}
