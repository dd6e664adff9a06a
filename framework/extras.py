"""Optional extras: packages that only some features need, imported on first use.

Each feature asks for its module through `optional_module`, which imports it
(Python keeps it in `sys.modules`) or raises one ImportError naming the
feature, the missing package and the extra of duograd that provides it.
`import duograd` imports none of them.
"""
from __future__ import annotations

import importlib
import types


def optional_module(name: str, extra: str, feature: str) -> types.ModuleType:
    """Module `name` from the optional extra `duograd[extra]` that `feature` needs."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        package = name.split(".")[0]
        raise ImportError(f"{feature} needs the optional package {package}: "
                          f"pip install 'duograd[{extra}]'") from error
