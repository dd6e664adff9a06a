"""IndexedSlices: a sparse gradient, rows `indices` of a dense tensor holding `values`."""
from __future__ import annotations

from typing import Any, NamedTuple, Optional

from .tensor import call_operator
from .tensor_shape import TensorShape


class IndexedSlices:
    """`values[i]` is row `indices[i]` of a tensor of shape `dense_shape`.

    Repeated indices add up. Converting to a tensor densifies (the op library
    registers how, through `__dg_tensor__`).
    """

    __slots__ = ("values", "indices", "dense_shape")

    def __init__(self, values: Any, indices: Any, dense_shape: Optional[Any] = None) -> None:
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense shape when statically known, else (None,) + row shape."""
        value = getattr(self.dense_shape, "array", None)
        if value is not None:
            return TensorShape(tuple(int(d) for d in value))
        op = getattr(self.dense_shape, "op", None)
        if op is not None and op.type == "Shape" and op.inputs[0].shape.is_fully_defined():
            return op.inputs[0].shape
        row = self.values.shape
        return TensorShape(None) if row.rank is None else TensorShape((None,) + row.dims[1:])

    @property
    def graph(self):
        return self.values.graph

    @property
    def op(self):
        return self.values.op

    @property
    def name(self) -> str:
        return self.values.name

    def __dg_tensor__(self, dtype: Any = None, name: Optional[str] = None):
        return call_operator("densify", self)

    # Arithmetic, as on the dense tensor (TF converts IndexedSlices to a tensor
    # wherever an op needs one): a gradient function may apply `grad * 0.5` or
    # `-grad` to whatever gradient reaches it, dense or sparse.
    def _dense(self):
        return call_operator("densify", self)

    def __neg__(self) -> "IndexedSlices":
        """Negation stays sparse, as in TF."""
        return IndexedSlices(call_operator("negative", self.values), self.indices,
                             self.dense_shape)

    def __add__(self, other): return self._dense() + other
    def __radd__(self, other): return other + self._dense()
    def __sub__(self, other): return self._dense() - other
    def __rsub__(self, other): return other - self._dense()
    def __mul__(self, other): return self._dense() * other
    def __rmul__(self, other): return other * self._dense()
    def __truediv__(self, other): return self._dense() / other
    def __rtruediv__(self, other): return other / self._dense()
    def __pow__(self, other): return self._dense() ** other
    def __matmul__(self, other): return self._dense() @ other
    def __rmatmul__(self, other): return other @ self._dense()

    def __repr__(self) -> str:
        return (f"IndexedSlices(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")


class IndexedSlicesValue(NamedTuple):
    """What `Session.run` returns for an IndexedSlices fetch."""

    values: Any
    indices: Any
    dense_shape: Any


def densify_inputs(inputs: Any) -> tuple:
    """Op inputs with every IndexedSlices converted to its dense tensor, as TF's
    convert_to_tensor does: any op (and so any gradient function) accepts them.
    Called only off the fast paths, when an input is not a tensor of the mode."""
    return tuple(t._dense() if isinstance(t, IndexedSlices) else t for t in inputs)
