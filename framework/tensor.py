"""Tensor: the base class of graph (symbolic) and eager tensors.

Python operators dispatch through a table the op library fills once at
import (`register_operator`), because the framework layer must not import
the op library (DESIGN.md: framework <- ops).
"""
from __future__ import annotations

import itertools
import types
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

if TYPE_CHECKING:
    from .dtypes import DType
    from .tensor_shape import TensorShape

_operators: Dict[str, Callable] = {}

# Tapes identify tensors (eager and symbolic) by these ids, never reused.
new_tensor_id = itertools.count(1).__next__


# Operators whose method receives (self, other) in the op's own argument order.
_METHODS = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__",
            "truediv": "__truediv__", "floordiv": "__floordiv__", "mod": "__mod__",
            "pow": "__pow__", "matmul": "__matmul__", "negative": "__neg__", "abs": "__abs__",
            "logical_not": "__invert__", "logical_and": "__and__", "logical_or": "__or__",
            "logical_xor": "__xor__", "less": "__lt__", "less_equal": "__le__",
            "greater": "__gt__", "greater_equal": "__ge__", "getitem": "__getitem__"}


def register_operator(name: str, func: Callable) -> None:
    """Binds an operator name ('add', 'getitem', ...) to the op implementing it.

    A plain function bound to an operator in `_METHODS` also becomes that method of
    Tensor itself, so `x * y` calls the op's function directly (one call and a table
    look-up less on eager mode's hottest path); subclasses' own methods still win."""
    _operators[name] = func
    method = _METHODS.get(name)
    if method is not None and isinstance(func, types.FunctionType):
        setattr(Tensor, method, func)


def call_operator(name: str, *args: Any) -> Any:
    """Applies the op bound to operator `name` (for subclasses' own operators)."""
    return _operators[name](*args)


class Tensor:
    """Common interface of `SymbolicTensor` (graph) and `EagerTensor` (eager)."""

    __slots__ = ()
    __array_priority__ = 100  # NumPy defers binary operators to us

    if TYPE_CHECKING:  # what every subclass provides (as a slot or a property)
        tensor_id: int

        @property
        def dtype(self) -> DType: ...
        @property
        def shape(self) -> TensorShape: ...
        @property
        def name(self) -> str: ...
        @property
        def op(self) -> Any: ...
        def numpy(self) -> Any: ...

    @property
    def ndim(self) -> Optional[int]:
        return self.shape.rank

    def get_shape(self):
        return self.shape

    def __len__(self) -> int:
        dims = self.shape.dims
        if dims is None or not dims:
            raise TypeError("len() of unsized object: a scalar or unknown-rank tensor")
        if dims[0] is None:
            raise TypeError(f"len() is not defined for tensor {self.name} "
                            "with an unknown first dimension")
        return dims[0]

    def __add__(self, other): return _operators["add"](self, other)
    def __radd__(self, other): return _operators["add"](other, self)
    def __sub__(self, other): return _operators["subtract"](self, other)
    def __rsub__(self, other): return _operators["subtract"](other, self)
    def __mul__(self, other): return _operators["multiply"](self, other)
    def __rmul__(self, other): return _operators["multiply"](other, self)
    def __truediv__(self, other): return _operators["truediv"](self, other)
    def __rtruediv__(self, other): return _operators["truediv"](other, self)
    def __floordiv__(self, other): return _operators["floordiv"](self, other)
    def __rfloordiv__(self, other): return _operators["floordiv"](other, self)
    def __mod__(self, other): return _operators["mod"](self, other)
    def __rmod__(self, other): return _operators["mod"](other, self)
    def __pow__(self, other): return _operators["pow"](self, other)
    def __rpow__(self, other): return _operators["pow"](other, self)
    def __matmul__(self, other): return _operators["matmul"](self, other)
    def __rmatmul__(self, other): return _operators["matmul"](other, self)
    def __neg__(self): return _operators["negative"](self)
    def __abs__(self): return _operators["abs"](self)
    def __pos__(self): return self
    def __invert__(self): return _operators["logical_not"](self)
    def __and__(self, other): return _operators["logical_and"](self, other)
    def __rand__(self, other): return _operators["logical_and"](other, self)
    def __or__(self, other): return _operators["logical_or"](self, other)
    def __ror__(self, other): return _operators["logical_or"](other, self)
    def __xor__(self, other): return _operators["logical_xor"](self, other)
    def __lt__(self, other): return _operators["less"](self, other)
    def __le__(self, other): return _operators["less_equal"](self, other)
    def __gt__(self, other): return _operators["greater"](self, other)
    def __ge__(self, other): return _operators["greater_equal"](self, other)
    def __getitem__(self, key): return _operators["getitem"](self, key)


class Reference:
    """A hashable reference to a tensor or variable (TF's `.ref()`), for use as a
    dict key or set member where the object itself is unhashable."""

    __slots__ = ("_object",)

    def __init__(self, obj: Any) -> None:
        self._object = obj

    def deref(self) -> Any:
        """The tensor or variable this reference points to."""
        return self._object

    def __hash__(self) -> int:
        return id(self._object)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reference) and other._object is self._object

    def __repr__(self) -> str:
        return f"<Reference to {self._object!r}>"


UNHASHABLE_TENSOR = "Tensor is unhashable. Instead, use tensor.ref() as the key."
