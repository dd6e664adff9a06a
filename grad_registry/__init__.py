"""The gradient registry and the gradient function of every op.

`register_all()` imports every `*_grad` module of this package once, which
registers its gradient functions (`RegisterGradient`), forward-mode rules and
NotDifferentiable declarations; `import duograd` calls it after the op library
is loaded."""
from __future__ import annotations

import importlib
import pkgutil


def register_all() -> None:
    """Imports each gradient module (by its file name ending in `_grad`)."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.endswith("_grad"):
            importlib.import_module(f"{__name__}.{info.name}")
