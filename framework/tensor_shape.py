"""TensorShape: a possibly partially known shape, as in TensorFlow."""
from __future__ import annotations

import sys
from typing import Any, Iterable, Optional

# TF's process-wide shape behaviour (tf.compat.v1.disable_v2_tensorshape, part of
# disable_v2_behavior): with it off, a known dimension reads as TF1's Dimension
# (`shape[1].value`), an unknown one prints as "?" and, read by user code, is TF1's
# Dimension(None) (`.value` None). One flag, as TF's.
_V2_TENSORSHAPE = [True]


def enable_v2_tensorshape() -> None:
    _V2_TENSORSHAPE[0] = True


def disable_v2_tensorshape() -> None:
    _V2_TENSORSHAPE[0] = False


def v2_tensorshape_enabled() -> bool:
    return _V2_TENSORSHAPE[0]


class KnownDimension(int):
    """A known dimension in TF1 shape mode: an int that also has TF1's `.value`."""

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"Dimension({int(self)})"

    def __str__(self) -> str:
        return str(int(self))

    def __format__(self, format_spec: str) -> str:
        return format(int(self), format_spec)


class UnknownDimension:
    """An unknown dimension in TF1 shape mode, as TF1's `Dimension(None)`: `.value`
    is None, comparisons answer None, arithmetic stays unknown, and `int()` fails."""

    __slots__ = ()
    value = None

    def __repr__(self) -> str:
        return "Dimension(None)"

    def __str__(self) -> str:
        return "?"

    def __eq__(self, other: object) -> Any:
        return None

    def __ne__(self, other: object) -> Any:
        return None

    def __hash__(self) -> int:
        return hash(None)

    def __int__(self) -> int:
        raise TypeError("__int__ returned non-int (type NoneType)")

    def __index__(self) -> int:
        raise TypeError("__index__ returned non-int (type NoneType)")

    def _unknown(self, other: Any) -> "UnknownDimension":
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unknown
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _unknown
    __lt__ = __le__ = __gt__ = __ge__ = __eq__


UNKNOWN_DIMENSION = UnknownDimension()


def called_from_user_code(depth: int) -> bool:
    """Whether the frame `depth` levels up is outside duograd: only user code sees
    TF1's `Dimension(None)`; duograd's own shape checks keep reading None."""
    name = sys._getframe(depth + 1).f_globals.get("__name__", "")
    return not (name == "duograd" or name.startswith("duograd."))


class TensorShape:
    """A shape whose rank (None) or dimensions (None) may be unknown."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, tuple) and all(type(d) is int or d is None for d in dims):
            self._dims = dims
        else:
            if isinstance(dims, (int,)) or hasattr(dims, "__index__") and not hasattr(dims, "__len__"):
                dims = (dims,)
            self._dims = tuple(_as_dim(d) for d in dims)

    @property
    def dims(self) -> Optional[tuple]:
        return self._dims

    @property
    def rank(self) -> Optional[int]:
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> Optional[int]:
        return self.rank

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self) -> Optional[tuple]:
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def num_elements(self) -> Optional[int]:
        if self._dims is None or None in self._dims:
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims, strict=True))

    def assert_is_compatible_with(self, other: Any) -> None:
        """ValueError unless this shape and `other` are compatible."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def assert_has_rank(self, rank: int) -> None:
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other: Any) -> None:
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and \
                len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def merge_with(self, other: Any) -> "TensorShape":
        """The most specific shape compatible with both; ValueError if none."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape(tuple(a if a is not None else b for a, b in zip(self._dims, other._dims, strict=True)))

    def with_rank(self, rank: int) -> "TensorShape":
        return self.merge_with(unknown_shape(rank))

    def concatenate(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        if not _V2_TENSORSHAPE[0] and called_from_user_code(1):
            return iter([UNKNOWN_DIMENSION if d is None else KnownDimension(d)
                         for d in self._dims])
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        dim = self._dims[key]
        if not _V2_TENSORSHAPE[0]:
            if dim is not None:
                return KnownDimension(dim)
            if called_from_user_code(1):
                return UNKNOWN_DIMENSION
        return dim

    def __eq__(self, other: Any) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other: Any) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        if not _V2_TENSORSHAPE[0]:
            return "TensorShape([" + ", ".join(f"Dimension({d})" for d in self._dims) + "])"
        return f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        unknown = "None" if _V2_TENSORSHAPE[0] else "?"
        inner = ", ".join(unknown if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"


_new_shape = object.__new__


def shape_from_dims(dims: tuple) -> TensorShape:
    """A TensorShape from a tuple of ints/None known to be valid (no checks: hot path)."""
    shape = _new_shape(TensorShape)
    shape._dims = dims
    return shape


def _as_dim(d: Any) -> Optional[int]:
    if d is None:
        return None
    value = getattr(d, "value", d)  # accepts TF1-style Dimension objects
    if value is None:
        return None
    try:
        value = int(value.__index__())
    except AttributeError:
        raise TypeError(f"Dimension value must be an integer or None, got {d!r}") from None
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0")
    return value


def as_shape(shape: Any) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: Optional[int] = None) -> TensorShape:
    return TensorShape(None if rank is None else (None,) * rank)


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """NumPy broadcasting of static shapes; ValueError when they cannot broadcast."""
    if a._dims is None or b._dims is None:
        return TensorShape(None)
    x, y = a._dims, b._dims
    if x == y:
        return a
    n = max(len(x), len(y))
    x = (1,) * (n - len(x)) + x
    y = (1,) * (n - len(y)) + y
    out = []
    for p, q in zip(x, y, strict=True):
        if p == 1:
            out.append(q)
        elif q == 1 or p == q:
            out.append(p)
        elif p is None:
            out.append(q)
        elif q is None:
            out.append(p)
        else:
            raise ValueError(f"Incompatible shapes: {a} and {b}")
    return TensorShape(tuple(out))


Dims = Iterable[Optional[int]]
