"""AutoGraph: dg.function's conversion of Python control flow on tensors (see
docs/control_flow.md). `dg.autograph.to_graph(f)` returns the converted function;
`dg.function` converts its function unless `autograph=False`."""
from __future__ import annotations

import types
from typing import Any, Callable

from ..framework.registry import source_converters
from .conversion import convert, do_not_convert, to_code
from .operators import set_loop_options


def to_graph(entity: Callable, recursive: bool = True, experimental_optional_features: Any = None
             ) -> Callable:
    """`entity` with Python if/while/for on tensors turned into dg.cond/dg.while_loop."""
    return convert(entity)


experimental = types.SimpleNamespace(do_not_convert=do_not_convert,
                                     set_loop_options=set_loop_options)
experimental.__name__ = "duograd.autograph.experimental"

source_converters.register("autograph", convert)

__all__ = ["to_graph", "to_code", "do_not_convert", "experimental"]


def __dir__() -> list:
    """The public names only (the implementation modules stay importable)."""
    return sorted(__all__)
