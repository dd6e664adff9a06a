"""SciPy for the few kernels NumPy lacks (Bessel and incomplete gamma functions, zeta,
erfinv, QR-free matrix functions, ...): an optional extra, `duograd[scipy]`, imported
only when such a kernel first runs, never by `import duograd`."""
from __future__ import annotations

from typing import Any

from ..framework.extras import optional_module


def scipy_module(name: str, op_type: str) -> Any:
    """`scipy.<name>`, or an ImportError naming the op and the extra that provides it."""
    return optional_module(f"scipy.{name}", "scipy", op_type)
