"""dg.TensorArray: a list of same-shaped tensors, written once per index.

Eager mode: a Python value object holding a list of eager tensors; `stack`,
`gather`, `concat` are ordinary ops, so tapes differentiate them.

Graph mode (flow-value design): the array is two tensors, a dense buffer of
shape [size] + element_shape and a bool mask of written indices. Every
method is a pure op returning new flows (so a TensorArray is a loop
variable like any other: `while_loop` threads `flow_tensors()`), and all
gradients are dense tensors: `TensorArrayWrite`'s gradient zeroes the
written row of the incoming gradient and reads the value's gradient from
it. With an unknown element shape the buffer takes the shape of the first
element written. `concat` needs elements of equal leading dimension.
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from ...eager import context
from ...framework import dtypes, nest
from ...framework.errors import InvalidArgumentError, OutOfRangeError
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ..array import array_ops, creation_ops, join_ops
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..array.indexed_slices_ops import gather

_state = context.state


# -- graph-mode ops ------------------------------------------------------------
def _new_kernel(size: Any, *, dtype: Any, element_shape: Any, static_size: Any) -> tuple:
    n = int(size)
    dims = tuple(element_shape.as_list()) if element_shape.is_fully_defined() else ()
    return np.zeros((n,) + dims, dtype.as_numpy_dtype), np.zeros(n, np.bool_)


def _new_infer(inputs: Any, attrs: dict) -> list:
    elem = attrs["element_shape"]
    n = attrs["static_size"]
    buf = TensorShape([n] + elem.as_list()) if elem.rank is not None else TensorShape(None)
    return [(attrs["dtype"], buf), (dtypes.bool_, TensorShape([n]))]


def _place(buf: np.ndarray, written: np.ndarray, indices: np.ndarray, values: np.ndarray,
           dynamic_size: bool) -> tuple:
    """Copies of buf/written with rows `indices` set to `values`."""
    n = buf.shape[0]
    top = int(indices.max()) + 1 if indices.size else 0
    if indices.size and indices.min() < 0:
        raise ValueError(f"Tried to write to index {int(indices.min())}: indices must be >= 0")
    if top > n and not dynamic_size:
        raise ValueError(f"Tried to write to index {top - 1} but array is not resizeable and "
                         f"size is: {n}")
    row = values.shape[1:]
    if buf.shape[1:] != row:
        if written.any():
            raise ValueError(f"Could not write to TensorArray: value shape {row} is incompatible "
                             f"with the shape {buf.shape[1:]} of the elements already written")
        buf = np.zeros((n,) + row, values.dtype)
    size = max(n, top)
    new_buf = np.zeros((size,) + row, buf.dtype)
    new_buf[:n] = buf
    new_buf[indices] = values
    new_written = np.zeros(size, np.bool_)
    new_written[:n] = written
    new_written[indices] = True
    return new_buf, new_written, np.array(n, np.int32)


def _write_kernel(buf, written, index, value, *, dynamic_size):
    value = np.asarray(value)
    n = buf.shape[0]
    i = np.asarray(index)
    if i.ndim == 0 and 0 <= i.item() < n and buf.shape[1:] == value.shape:
        # a row inside the buffer (map_fn's writes): two copies, no zero fill
        new_buf, new_written = buf.copy(), written.copy()
        new_buf[i.item()] = value
        new_written[i.item()] = True
        return new_buf, new_written, np.array(n, np.int32)
    return _place(buf, written, i.reshape(1), value[None], dynamic_size)


def _scatter_kernel(buf, written, indices, values, *, dynamic_size):
    indices = np.asarray(indices).reshape(-1)
    if values.shape[:1] != indices.shape:
        raise ValueError(f"scatter: {indices.shape[0]} indices but {values.shape[0]} values")
    n = buf.shape[0]
    if n and indices.shape == (n,) and np.array_equal(indices, np.arange(n)) \
            and (buf.shape[1:] == values.shape[1:] or not written.any()):
        # every row in order (map_fn's unstack): the values themselves, one copy, as
        # _place's zero fill and row writes give them
        dtype = buf.dtype if buf.shape[1:] == values.shape[1:] else values.dtype
        return (np.array(values, dtype=dtype), np.ones(n, np.bool_), np.array(n, np.int32))
    return _place(buf, written, indices, values, dynamic_size)


def _grown(buf: TensorShape, row: TensorShape, dynamic: bool) -> TensorShape:
    n = None if dynamic or buf.rank is None else buf.as_list()[0]
    return TensorShape([n] + row.as_list()) if row.rank is not None else TensorShape(None)


def _write_infer(inputs: Any, attrs: dict) -> list:
    buf, written, _, value = inputs
    dynamic = attrs["dynamic_size"]
    shape = _grown(buf.shape, value.shape, dynamic)
    n = shape.as_list()[0] if shape.rank is not None else None
    return [(buf.dtype, shape), (dtypes.bool_, TensorShape([n])), (dtypes.int32, TensorShape(()))]


def _scatter_infer(inputs: Any, attrs: dict) -> list:
    buf, written, _, values = inputs
    row = TensorShape(None) if values.shape.rank is None else \
        TensorShape(values.shape.as_list()[1:])
    shape = _grown(buf.shape, row, attrs["dynamic_size"])
    n = shape.as_list()[0] if shape.rank is not None else None
    return [(buf.dtype, shape), (dtypes.bool_, TensorShape([n])), (dtypes.int32, TensorShape(()))]


def _mask_rows_kernel(grad, indices, size):
    """grad resized to `size` rows, with rows `indices` zeroed."""
    n = int(size)
    idx = np.asarray(indices)
    if grad.shape[0] == n:
        out = grad.copy()
    else:
        out = np.zeros((n,) + grad.shape[1:], grad.dtype)
        m = min(n, grad.shape[0])
        out[:m] = grad[:m]
    if idx.ndim == 0:  # one row (a map_fn write's gradient): basic indexing
        if idx.item() < n:
            out[idx.item()] = 0
        return out
    idx = idx.reshape(-1)
    out[idx[idx < n]] = 0
    return out


def _mask_rows_infer(inputs: Any, attrs: dict) -> list:
    grad = inputs[0]
    shape = TensorShape(None) if grad.shape.rank is None else \
        TensorShape([None] + grad.shape.as_list()[1:])
    return [(grad.dtype, shape)]


TA_NEW = declare_op("TensorArrayV3", _new_kernel, _new_infer, num_outputs=2, grad_inputs=())
TA_WRITE = declare_op("TensorArrayWriteV3", _write_kernel, _write_infer, num_outputs=3,
                      grad_inputs=(2,), grad_outputs=(2,))
TA_SCATTER = declare_op("TensorArrayScatterV3", _scatter_kernel, _scatter_infer, num_outputs=3,
                        grad_inputs=(2,), grad_outputs=(2,))
TA_MASK_ROWS = declare_op("TensorArrayMaskRows", _mask_rows_kernel, _mask_rows_infer,
                          grad_inputs=(0, 1))


def _scatter_rows_kernel(values, indices, dense_shape):
    out = np.zeros(tuple(int(d) for d in dense_shape), values.dtype)
    np.add.at(out, np.asarray(indices), values)
    return out


def _scatter_rows_infer(inputs: Any, attrs: dict) -> list:
    values = inputs[0]
    shape = TensorShape(None) if values.shape.rank is None or inputs[1].shape.rank is None else \
        TensorShape([None] + values.shape.as_list()[inputs[1].shape.rank:])
    return [(values.dtype, shape)]


# The dense value of an IndexedSlices gradient; its own gradient (a gather) needs
# no static rank, unlike unsorted_segment_sum's.
SCATTER_ROWS = declare_op("ScatterRowsToDense", _scatter_rows_kernel, _scatter_rows_infer,
                          grad_inputs=(1,))


def dense_gradient(grad: Any) -> Any:
    """`grad` as a dense tensor (IndexedSlices are summed into their dense shape)."""
    if not isinstance(grad, IndexedSlices):
        return grad
    return apply_op(SCATTER_ROWS, (grad.values, grad.indices, grad.dense_shape))


def mask_rows(grad: Any, indices: Any, size: Any) -> Any:
    """`grad` with `size` rows and rows `indices` zeroed (write's buffer gradient)."""
    return apply_op(TA_MASK_ROWS, (grad, convert_to_tensor(indices), convert_to_tensor(size)))


# -- the public object ------------------------------------------------------------
class TensorArray:
    """A list of tensors of one dtype and element shape (see module docstring)."""

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Optional[bool] = None,
                 clear_after_read: Optional[bool] = None, tensor_array_name: Optional[str] = None,
                 handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: Optional[str] = None) -> None:
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._element_shape = as_shape(element_shape)
        self._eager = _state.graph is None
        self._flows: List[Any] = []
        self._elements: List[Any] = []
        if flow is not None:  # rebuilt from flows (while_loop)
            self._flows = list(flow)
            return
        if size is None:
            if not self._dynamic_size:
                raise ValueError("Size must be provided if dynamic_size is False.")
            size = 0
        if self._eager:
            self._elements = [None] * int(size)
            return
        size_t = convert_to_tensor(size, dtype=dtypes.int32)
        value = _static_int(size_t)
        attrs = {"dtype": self._dtype, "element_shape": self._element_shape,
                 "static_size": None if self._dynamic_size else value}
        self._flows = list(apply_op(TA_NEW, (size_t,), attrs, name or "TensorArray"))

    # -- properties ------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    @property
    def flow(self) -> Any:
        return self._flows[0] if self._flows else None

    def flow_tensors(self) -> list:
        """The tensors a graph loop threads for this array (none in eager mode)."""
        return list(self._flows)

    def with_flows(self, flows: list) -> "TensorArray":
        if self._eager:
            return self
        return self._derived(flows)

    def _derived(self, flows: list, element_shape: Optional[TensorShape] = None) -> "TensorArray":
        ta = TensorArray(self._dtype, dynamic_size=self._dynamic_size,
                         clear_after_read=self._clear_after_read, flow=flows,
                         element_shape=element_shape if element_shape is not None
                         else self._element_shape)
        ta._eager = False
        return ta

    def _merge_shape(self, shape: TensorShape) -> TensorShape:
        if not self._element_shape.is_compatible_with(shape):
            raise ValueError(f"Incompatible shape for value ({shape}), expected "
                             f"({self._element_shape})")
        return self._element_shape.merge_with(shape)

    def _value(self, value: Any) -> Tensor:
        """`value` as a tensor, converted preferring the array's dtype; another dtype
        is TF's InvalidArgumentError (eagerly at once; in a function TF's kernel
        raises it when run, here when the write is built)."""
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value, preferred_dtype=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {self._dtype.name} "
                                       f"but Op is trying to write dtype {value.dtype.name}")
        return value

    # -- methods ------------------------------------------------------------------
    def size(self, name: Optional[str] = None) -> Tensor:
        if self._eager:
            return constant(len(self._elements), dtypes.int32)
        return array_ops.size(self._flows[1], name=name)

    def write(self, index: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Sets element `index` (eager: in place, returning self; graph: new flows)."""
        value = self._value(value)
        shape = self._merge_shape(value.shape)
        if self._eager:
            i = int(index)
            if i < 0:
                raise InvalidArgumentError(None, None, f"Tried to write to index {i}")
            if i >= len(self._elements):
                if not self._dynamic_size:
                    raise InvalidArgumentError(
                        None, None, f"Tried to write to index {i} but array is not resizeable "
                        f"and size is: {len(self._elements)}")
                self._elements.extend([None] * (i + 1 - len(self._elements)))
            self._elements[i] = value
            self._element_shape = shape
            return self
        index = convert_to_tensor(index, dtype=dtypes.int32)
        buf, written, _ = apply_op(TA_WRITE, (self._flows[0], self._flows[1], index, value),
                                   {"dynamic_size": self._dynamic_size}, name or "TensorArrayWrite")
        return self._derived([buf, written], shape)

    def read(self, index: Any, name: Optional[str] = None) -> Tensor:
        if self._eager:
            i = int(index)
            if not 0 <= i < len(self._elements):  # TF: OutOfRangeError eagerly
                raise OutOfRangeError(None, None, f"Tried to read from index {i} but array "
                                      f"size is: {len(self._elements)}")
            return self._element(i)
        out = gather(self._flows[0], convert_to_tensor(index, dtype=dtypes.int32), name=name)
        return self._shaped(out, [])

    def _element(self, i: int) -> Tensor:
        value = self._elements[i]
        if value is None:
            if not self._element_shape.is_fully_defined():
                raise InvalidArgumentError(None, None, f"Could not read from TensorArray index "
                                           f"{i} because it has not yet been written to.")
            return array_ops.zeros(self._element_shape, self._dtype)
        return value

    def stack(self, name: Optional[str] = None) -> Tensor:
        """All elements stacked along a new first axis."""
        if self._eager:
            if not self._elements:
                return array_ops.zeros(_empty_stacked(self._element_shape), self._dtype)
            return join_ops.stack([self._element(i) for i in range(len(self._elements))])
        return self._shaped(self._rows(array_ops.identity(self._flows[0], name=name)), [None])

    def _rows(self, buf: Any) -> Any:
        """`buf` reshaped to rows of the (inferred) element shape, so that an array left
        empty stacks to (0, *element_shape) as TF's graph kernels do (graph mode)."""
        dims = self._element_shape.as_list() if self._element_shape.is_fully_defined() else []
        if not dims or 0 in dims:
            return buf
        return array_ops.reshape(buf, [-1] + dims)

    def _shaped(self, tensor: Any, lead: list) -> Any:
        """`tensor` with the static shape lead + element_shape (graph mode)."""
        if self._element_shape.rank is not None and tensor.shape.rank is None:
            tensor.set_shape(TensorShape(lead + self._element_shape.as_list()))
        return tensor

    def gather(self, indices: Any, element_shape: Any = None, name: Optional[str] = None) -> Tensor:
        if self._eager:
            idx = np.asarray(convert_to_tensor(indices)).reshape(-1)
            if not idx.size:
                return array_ops.zeros(_empty_stacked(self._element_shape), self._dtype)
            return join_ops.stack([self.read(int(i)) for i in idx])
        indices = convert_to_tensor(indices, dtype=dtypes.int32)
        out = gather(self._flows[0], indices, name=name)
        lead = indices.shape.as_list() if indices.shape.rank is not None else [None]
        return self._shaped(out, lead)

    def unstack(self, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Element i := value[i]."""
        value = self._value(value)
        n = value.shape[0] if value.shape.rank else None
        if self._eager:
            if n is None:
                raise ValueError("unstack needs a value of rank >= 1")
            indices = np.arange(n, dtype=np.int32)
            return self.scatter(indices, value)
        return self.scatter(_row_indices(value), value)

    def scatter(self, indices: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Element indices[k] := value[k]."""
        value = self._value(value)
        if value.shape.rank == 0:
            raise ValueError("scatter needs a value of rank >= 1")
        row = TensorShape(None) if value.shape.rank is None else \
            TensorShape(value.shape.as_list()[1:])
        shape = self._merge_shape(row)
        if self._eager:
            idx = np.asarray(convert_to_tensor(indices)).reshape(-1)
            rows = join_ops.unstack(value)   # as TF's eager TensorArray: dense gradients
            for k, i in enumerate(idx):
                self.write(int(i), rows[k])
            self._element_shape = shape
            return self
        indices = convert_to_tensor(indices, dtype=dtypes.int32)
        buf, written, _ = apply_op(TA_SCATTER, (self._flows[0], self._flows[1], indices, value),
                                   {"dynamic_size": self._dynamic_size},
                                   name or "TensorArrayScatter")
        return self._derived([buf, written], shape)

    def concat(self, name: Optional[str] = None) -> Tensor:
        """The elements joined along their first axis."""
        if self._eager:
            parts = [self._element(i) for i in range(len(self._elements))]
            if not parts:
                return array_ops.zeros([0] + _dims(self._element_shape)[1:], self._dtype)
            return join_ops.concat(parts, 0)
        buf = self._flows[0]
        rank = self._element_shape.rank
        if rank is None or rank == 0:
            raise ValueError(f"concat needs elements of known rank >= 1, got {self._element_shape}")
        rest = self._element_shape.as_list()[1:]
        if None in rest:
            tail = gather(array_ops.shape(buf), np.arange(2, rank + 1, dtype=np.int32))
            lead = constant(np.array([-1], np.int32))
            return array_ops.reshape(buf, join_ops.concat([lead, tail], 0), name=name)
        return array_ops.reshape(buf, [-1] + rest, name=name)

    def identity(self) -> "TensorArray":
        return self

    def close(self, name: Optional[str] = None) -> None:
        return None

    def __repr__(self) -> str:
        mode = "eager" if self._eager else "graph"
        return (f"<dg.TensorArray {mode} dtype={self._dtype.name} "
                f"element_shape={self._element_shape}>")


def _empty_stacked(shape: TensorShape) -> list:
    """The shape of no elements stacked: [0] + element shape, or just [0] when that is not
    fully known (TF 2.21 eagerly stacks/gathers an empty array of unknown element shape
    into shape (0,))."""
    return [0] + shape.as_list() if shape.is_fully_defined() else [0]


def _dims(shape: TensorShape) -> list:
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot make an empty tensor of unknown element shape {shape}")
    return shape.as_list()


def _static_int(t: Any) -> Optional[int]:
    from_op = getattr(t, "op", None)
    if from_op is not None and from_op.type == "Const":
        return int(from_op.get_attr("value"))
    return None


def _row_indices(value: Tensor) -> Tensor:
    n = value.shape[0] if value.shape.rank else None
    if n is not None:
        return constant(np.arange(n, dtype=np.int32))
    return creation_ops.range(gather(array_ops.shape(value), 0))


# -- nested structures holding TensorArrays, as flat tensors (their flows) -------
def flatten_with_flows(structure: Any) -> Tuple[list, list]:
    """Flat tensors of a structure (a TensorArray as its flow tensors: loop vars,
    cond results) and, per leaf, how many tensors it spans."""
    flat, spans = [], []
    for leaf in nest.flatten(structure):
        flows = getattr(leaf, "flow_tensors", None)
        if flows is not None:
            tensors = flows()
            flat.extend(tensors)
            spans.append(len(tensors))
        else:
            flat.append(leaf)
            spans.append(0)
    return flat, spans


def pack_with_flows(structure: Any, flat: list) -> Any:
    """`structure` rebuilt from `flatten_with_flows`-style tensors."""
    leaves, i = [], 0
    for leaf in nest.flatten(structure):
        flows = getattr(leaf, "flow_tensors", None)
        if flows is not None:
            n = len(flows())
            leaves.append(leaf.with_flows(flat[i:i + n]))
            i += n
        else:
            leaves.append(flat[i])
            i += 1
    return nest.pack_sequence_as(structure, leaves)


__all__ = ["TensorArray"]
