"""Named tables: the op declarations and the gradient functions.

These are the only module-level tables besides the thread-local context
(DESIGN.md). They live in `framework` so that graphs can validate names
against them; the public `RegisterGradient` API is in `grad_registry`.
"""
from __future__ import annotations

from typing import Any, Container, Dict, Iterator


class Registry:
    """A name -> value table that refuses to register a name twice."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._table: Dict[str, Any] = {}

    def register(self, name: str, value: Any) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{self._what} name must be a string, got {name!r}")
        if name in self._table:
            raise KeyError(f"Registering two {self._what}s with name '{name}'!")
        self._table[name] = value

    def unregister(self, name: str) -> None:
        """Drops `name` (a test's scratch op, say); KeyError when it is not registered."""
        del self._table[name]

    def lookup(self, name: str) -> Any:
        """The value for `name`; LookupError when it was never registered."""
        try:
            return self._table[name]
        except KeyError:
            raise LookupError(f"{self._what} '{name}' is not registered") from None

    def get(self, name: str, default: Any = None) -> Any:
        return self._table.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._table))

    def items(self):
        return list(self._table.items())


op_defs = Registry("op")
gradient_functions = Registry("gradient function")
# Forward-mode rules (grad_registry/jvp_rules.py), keyed by op type like the gradients.
jvp_functions = Registry("JVP rule")
# Batching rules for vectorized_map / pfor (ops/parallel_for/pfor_rules.py), keyed by op type.
batching_rules = Registry("batching rule")
# Gradient functions that accept None for missing output gradients, by name.
gradients_accepting_none: Dict[str, Container[int]] = {}
# Source converters dg.function applies to the Python function before tracing
# ("autograph", registered by the autograph package).
source_converters = Registry("source converter")
