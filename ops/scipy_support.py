"""SciPy for the few kernels NumPy lacks (Bessel and incomplete gamma functions, zeta,
erfinv, QR-free matrix functions, ...): an optional extra, `duograd[scipy]`, imported
only when such a kernel first runs, never by `import duograd`."""
from __future__ import annotations

import importlib
from typing import Any


def scipy_module(name: str, op_type: str) -> Any:
    """`scipy.<name>`, or an ImportError naming the op and the extra that provides it."""
    try:
        return importlib.import_module(f"scipy.{name}")
    except ImportError as error:
        raise ImportError(f"{op_type} needs SciPy, an optional extra of duograd: "
                          f"pip install 'duograd[scipy]'") from error
