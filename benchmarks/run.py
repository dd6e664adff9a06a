"""`python -m benchmarks.run [--quick] [--only W1,W2]`: duograd against the NumPy floor.

Pins the process to one core with single-threaded BLAS first (re-executing
itself if NumPy could already have started its threads), then runs W1..W6.
"""
from __future__ import annotations

from .pinning import pin_process

pin_process("benchmarks.run")

import sys  # noqa: E402

from . import dg_workloads  # noqa: E402
from .suite import main_for  # noqa: E402

if __name__ == "__main__":
    sys.exit(main_for([("benchmarks.dg_workloads", dg_workloads)], sys.argv[1:],
                      "duograd benchmarks (issue 7)", "results.md"))
