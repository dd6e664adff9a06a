"""`OpView`: what a gradient function may read of the op it differentiates.

Three engines hand a gradient function its `op`: graph-mode `gradients()`
passes the graph `Operation` (framework/graph.py), a tape passes a
`TapeEntry` (eager/tape.py: a recorded op, with a `TensorSpec` for each value
it did not keep), and a forward accumulator passes its `OpView`
(eager/forwardprop.py). Each provides exactly this protocol, so one
registered function serves all three; a gradient function must read nothing
else (graph-only attributes such as `graph` or `node_def` exist on one of
them only). `gradient_name` is the registry name of the op's gradient: its
type, or what a gradient override maps it to.
"""
from __future__ import annotations

from typing import Any, Sequence

from typing_extensions import Protocol, runtime_checkable


@runtime_checkable
class OpView(Protocol):
    """The op as a gradient function receives it."""

    @property
    def type(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def gradient_name(self) -> str: ...

    @property
    def inputs(self) -> Sequence[Any]: ...

    @property
    def outputs(self) -> Sequence[Any]: ...

    @property
    def skip_input_indices(self) -> frozenset: ...

    def get_attr(self, name: str) -> Any: ...


__all__ = ["OpView"]
