"""The eager layer's memos of one op, kept in one object per op (`OpCache`).

What eager execution learns about an op and keeps for its next run: the last
input dtype its fast form accepted (`fast_dtype`, ops/op_helpers.py), its
single-frame fast forms (`unary`, `binary`), what the tape keeps of it per
watched-input pattern (`keep_plans`, eager/tape.py), the cells its general
records share (`general_cells`, eager/tape.py) and its gradient's
adjoint programs (`programs`, eager/adjoint_programs.py). The op declaration
holds the object in its one slot `eager_cache` (None until the op first runs
eagerly) and never reads it: this module makes it, the modules named above
own its fields. One slot, so that the hot paths reach a memo with one
attribute load more than a slot of their own would cost.
"""
from __future__ import annotations

from typing import Any, Dict, Optional


class OpCache:
    """One op's eager memos (see the module docstring); None until first made."""

    __slots__ = ("op_def", "fast_dtype", "unary", "binary", "keep_plans", "general_cells",
                 "programs")

    def __init__(self, op_def: Any) -> None:
        self.op_def = op_def
        self.fast_dtype: Any = None         # a NumPy dtype, compared by identity
        self.unary: Any = None              # the op's unary_function
        self.binary: Any = None             # the op's binary_function
        self.keep_plans: Optional[list] = None
        self.general_cells: Optional[list] = None
        self.programs: Optional[Dict[tuple, Any]] = None


def op_cache(op_def: Any) -> OpCache:
    """`op_def`'s memos, made on first use."""
    cache = op_def.eager_cache
    if cache is None:
        cache = op_def.eager_cache = OpCache(op_def)
    return cache
