"""Graph, Operation and SymbolicTensor: the symbolic data model of graph mode.

Op creation is lean (it is on the path of every graph-building call and of
every gradient op): a unique name from a dict of counters, static shape
inference from the op's declaration, consumers appended in O(1). Op ids
increase monotonically, so sorting by id is a topological order.
"""
from __future__ import annotations

import contextlib
import itertools
import re
import threading
from typing import Any, Dict, Iterator, List, Optional, Sequence

from ..eager import context
from .default_session import get_default_session
from . import dtypes as dtypes_lib
from .errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from .indexed_slices import IndexedSlices, densify_inputs
from .op_def import OpDef
from .registry import gradient_functions, op_defs
from .tensor import UNHASHABLE_TENSOR, Reference, Tensor, call_operator, new_tensor_id
from .tensor_shape import TensorShape, as_shape

_NO_ATTRS: Dict[str, Any] = {}
NO_SKIP: frozenset = frozenset()


class SymbolicTensor(Tensor):
    """The `value_index`-th output of an `Operation` in a graph."""

    __slots__ = ("op", "value_index", "dtype", "_shape", "_consumers", "tensor_id",
                 "__weakref__")
    op: "Operation"
    dtype: dtypes_lib.DType

    def __init__(self, op: "Operation", value_index: int, dtype: dtypes_lib.DType,
                 shape: TensorShape) -> None:
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self._shape = shape
        self._consumers: List[Operation] = []
        self.tensor_id = new_tensor_id()

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def graph(self) -> "Graph":
        return self.op.graph

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def device(self) -> str:
        return self.op.device

    def consumers(self) -> List["Operation"]:
        return list(self._consumers)

    def add_consumer(self, op: "Operation") -> None:
        self._consumers.append(op)

    def set_shape(self, shape: Any) -> None:
        """Merges `shape` into the static shape; ValueError when they conflict."""
        try:
            self._shape = self._shape.merge_with(as_shape(shape))
        except ValueError:
            raise ValueError(f"Tensor {self.name} has shape {self._shape}, which is "
                             f"incompatible with the shape {as_shape(shape)}") from None

    def numpy(self):
        # TF 2.21 raises AttributeError here ('SymbolicTensor' has no attribute 'numpy').
        raise AttributeError(
            f"'SymbolicTensor' object has no attribute 'numpy': graph tensor {self.name} has "
            "no value outside a Session.run or a dg.function call.")

    def eval(self, feed_dict: Optional[dict] = None, session: Any = None) -> Any:
        """The value of this tensor in `session` (default: the default session)."""
        return run_in_default_session(self, feed_dict, session)

    def __bool__(self) -> bool:
        raise OperatorNotAllowedInGraphError(
            f"Using symbolic tensor {self.name} as a Python bool is not allowed in graph "
            "mode; use dg.cond for data-dependent control flow.")

    def __iter__(self):
        dims = self._shape.dims
        if dims is None or not dims or dims[0] is None:
            raise TypeError(f"Cannot iterate over tensor {self.name} of shape {self._shape}")
        getitem = self.__getitem__
        return (getitem(i) for i in range(dims[0]))

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self.dtype.name}>"

    def __str__(self) -> str:
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self.dtype.name})'

    def ref(self) -> Reference:
        """A hashable reference (`.deref()` gives the tensor back)."""
        return Reference(self)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Cannot convert symbolic tensor {self.name} to a NumPy array.")

    # TF2: tensors of a function graph are unhashable, and compare by value when
    # the function is traced from eager mode; tensors of a v1 Graph compare and
    # hash by identity. (The library itself keys on id(tensor).)
    def __eq__(self, other: Any) -> Any:
        if self.op.graph.value_equality:
            return call_operator("tensor_equals", self, other)
        return self is other

    def __ne__(self, other: Any) -> Any:
        if self.op.graph.value_equality:
            return call_operator("tensor_not_equals", self, other)
        return self is not other

    def __hash__(self) -> int:
        if self.op.graph.building_function:
            raise TypeError(UNHASHABLE_TENSOR)
        return id(self)


class Operation:
    """A node of a `Graph`: an op type applied to input tensors with attrs."""

    __slots__ = ("graph", "op_def", "name", "inputs", "outputs", "control_inputs",
                 "attrs", "id", "device", "gradient_override", "_control_outputs",
                 "__weakref__")

    def __init__(self, graph: "Graph", op_def: OpDef, name: str, inputs: tuple,
                 attrs: dict, control_inputs: list, op_id: int) -> None:
        self.graph = graph
        self.op_def = op_def
        self.name = name
        self.inputs = inputs
        self.attrs = attrs
        self.control_inputs = control_inputs
        self.id = op_id
        self.device = ""
        self.gradient_override: Optional[str] = None
        self.outputs: tuple = ()
        self._control_outputs: List[Operation] = []

    @property
    def type(self) -> str:
        return self.op_def.type

    @property
    def skip_input_indices(self) -> frozenset:
        """Inputs whose gradient the running dg.gradients call does not need (this
        thread's; empty outside a gradient function)."""
        skipped = _skipped.by_op
        return skipped.get(self, NO_SKIP) if skipped else NO_SKIP

    @property
    def gradient_name(self) -> str:
        """The registry name of this op's gradient: an override, or its type."""
        return self.gradient_override or self.op_def.type


    @property
    def node_def(self) -> str:
        return f"{self.name} = {self.type}({', '.join(t.name for t in self.inputs)})"

    def get_attr(self, name: str) -> Any:
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None

    @property
    def control_outputs(self) -> List["Operation"]:
        return list(self._control_outputs)

    def add_control_output(self, op: "Operation") -> None:
        self._control_outputs.append(op)

    def values(self) -> tuple:
        return self.outputs

    def run(self, feed_dict: Optional[dict] = None, session: Any = None) -> None:
        """Runs this op in `session` (default: the default session)."""
        run_in_default_session(self, feed_dict, session)

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"


class _ThreadState(threading.local):
    """Per-thread, per-graph building state: name scope, control deps, overrides."""

    def __init__(self) -> None:
        self.name_scope = ""
        self.control_dependencies: List[List[Operation]] = []
        self.gradient_overrides: List[Dict[str, str]] = []
        self.device = ""



def _bad_name(name: Any) -> TypeError:
    """TF's error for an op name that is not a string (a tensor: used as a bool)."""
    if isinstance(name, Tensor):
        return OperatorNotAllowedInGraphError(
            f"Using a tensor ({name!r}) as an op name is not allowed in graph mode.")
    return TypeError(f"Op names are strings: expected string or bytes-like object, got "
                     f"'{type(name).__name__}'")

class Graph:
    """A dataflow graph of Operations. Use `as_default()` to build into it."""

    # Whether `==` on this graph's tensors compares values (TF2 functions traced
    # from eager mode) rather than identity (v1 graphs and what they enclose).
    value_equality = False

    def __init__(self) -> None:
        self._operations: List[Operation] = []
        self._by_name: Dict[str, Operation] = {}
        self._names_in_use: Dict[str, int] = {}
        self._lock = threading.RLock()
        self._ids = itertools.count(1)
        self._finalized = False
        self._thread = _ThreadState()
        self.collections: Dict[str, list] = {}
        self.version = 0
        self.outer_graph: Optional[Graph] = None

    # -- building ---------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self) -> Iterator["Graph"]:
        """Makes this the graph that ops are added to on this thread."""
        context.push_graph(self)
        try:
            yield self
        finally:
            context.pop_graph(self)

    def finalize(self) -> None:
        """Makes the graph read-only: creating an op afterwards is a RuntimeError."""
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    def create_op(self, op_def: OpDef, inputs: Sequence[Any], attrs: Optional[dict] = None,
                  name: Optional[str] = None) -> Operation:
        """Adds an op of declaration `op_def`; infers its outputs' dtypes and shapes."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        checked = []
        for t in inputs:
            if type(t) is SymbolicTensor and t.op.graph is self:
                checked.append(t)
            else:
                if isinstance(t, IndexedSlices):  # dense, as TF's convert_to_tensor makes it
                    t = densify_inputs((t,))[0]
                checked.append(t if type(t) is SymbolicTensor and t.op.graph is self
                               else self.capture_input(t, op_def))
        inputs = tuple(checked)
        attrs = attrs if attrs else _NO_ATTRS
        thread = self._thread
        if name is not None and type(name) is not str:
            raise _bad_name(name)
        base = name or op_def.type
        kinds = op_def.input_kinds
        if kinds is not None and inputs and inputs[0].dtype.kind not in kinds:
            raise TypeError(f"{_describe(op_def, base, inputs)}: "
                            f"{op_def.dtype_error(inputs[0].dtype)}")
        try:
            specs = op_def.infer(inputs, attrs)
        except (ValueError, TypeError) as error:
            raise type(error)(f"{_describe(op_def, base, inputs)}: {error}") from None
        except InvalidArgumentError as error:
            raise ValueError(f"{_describe(op_def, base, inputs)}: {error}") from None
        control_inputs = []
        if thread.control_dependencies:
            input_ops = {t.op for t in inputs}
            for group in thread.control_dependencies:
                for dep in group:
                    if dep not in input_ops and dep not in control_inputs:
                        control_inputs.append(dep)
        with self._lock:
            full_name = self.unique_name(base)
            op = Operation(self, op_def, full_name, inputs, attrs, control_inputs, next(self._ids))
            if len(specs) == 1:
                dtype, shape = specs[0]
                op.outputs = (SymbolicTensor(op, 0, dtype, shape),)
            else:
                op.outputs = tuple([SymbolicTensor(op, i, d, s) for i, (d, s) in enumerate(specs)])
            self._operations.append(op)
            self._by_name[full_name] = op
            self.version += 1
        for t in inputs:
            t._consumers.append(op)
        for dep in control_inputs:
            dep._control_outputs.append(op)
        if thread.gradient_overrides:
            for mapping in reversed(thread.gradient_overrides):
                if op_def.type in mapping:
                    op.gradient_override = mapping[op_def.type]
                    break
        if thread.device:
            op.device = thread.device
        return op

    def capture_input(self, value: Any, op_def: OpDef) -> SymbolicTensor:
        """Turns an op input into a tensor of this graph (FuncGraph overrides this)."""
        if isinstance(value, SymbolicTensor):
            if value.op.graph is not self:
                raise ValueError(f"Tensor {value.name} must be from the same graph as the "
                                 f"{op_def.type} op that uses it (tensor's graph is different).")
            return value
        return self.capture_foreign(value)

    def capture_foreign(self, value: Any) -> SymbolicTensor:
        """An eager tensor used in a plain graph becomes a constant, as in TF."""
        array = getattr(value, "array", None)
        if array is None:
            raise TypeError(f"Cannot use {value!r} as an input of a graph op: convert it "
                            "to a tensor first.")
        return self.create_op(op_defs.lookup("Const"), (), {"value": array}, "Const").outputs[0]

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """`name` under the current name scope, suffixed `_1`, `_2`... when taken."""
        scope = self._thread.name_scope
        if scope:
            name = scope + "/" + name
        key = name.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count:
            candidate = f"{name}_{count}"
            while candidate.lower() in self._names_in_use:
                count += 1
                candidate = f"{name}_{count}"
            if mark_as_used:
                self._names_in_use[candidate.lower()] = 1
                self._names_in_use[key] = count + 1
            return candidate
        return name

    def name_scope(self, name: Optional[str]) -> "NameScope":
        """Nested scope for op names; a name ending in '/' is used as is."""
        return NameScope(self, name)

    def get_name_scope(self) -> str:
        return self._thread.name_scope

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Optional[Sequence[Any]]) -> Iterator[None]:
        """Ops created inside run after `control_inputs`; None clears the stack."""
        thread = self._thread
        saved = thread.control_dependencies
        if control_inputs is None:
            thread.control_dependencies = []
        else:
            ops = []
            for c in control_inputs:
                c = getattr(c, "op", c) if not isinstance(c, Operation) else c
                if not isinstance(c, Operation):
                    raise TypeError(f"Control input must be an Operation or a Tensor: {c!r}")
                if c.graph is not self:
                    raise ValueError(f"Control input {c.name} is from a different graph.")
                ops.append(c)
            thread.control_dependencies = saved + [ops]
        try:
            yield
        finally:
            thread.control_dependencies = saved

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: Dict[str, str]) -> Iterator[None]:
        """Ops of the mapped types created inside use the named gradient.

        Both sides are checked at once (a typo is a KeyError here, not a silent
        no-op): keys must be declared op types, values registered gradients.
        """
        if not isinstance(op_type_map, dict):
            raise TypeError("gradient_override_map expects a dict of op type -> gradient name")
        validate_override_map(op_type_map)
        stack = self._thread.gradient_overrides
        stack.append(dict(op_type_map))
        try:
            yield
        finally:
            stack.pop()

    @contextlib.contextmanager
    def device(self, name: Optional[str]) -> Iterator[None]:
        thread = self._thread
        old = thread.device
        thread.device = name or ""
        try:
            yield
        finally:
            thread.device = old

    # -- reading ----------------------------------------------------------
    def as_graph_def(self, from_version: Any = None, add_shapes: bool = False) -> Any:
        """This graph as TensorFlow's GraphDef, in TF's conventions (tf.compat.v1 imports
        it); needs the `duograd[formats]` extra, imported here on first use."""
        from ..formats.api import as_graph_def  # protobuf loads only when this is called
        return as_graph_def(self, from_version, add_shapes)

    def get_operations(self) -> List[Operation]:
        with self._lock:
            return list(self._operations)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings, got {type(name).__name__}")
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.") from None

    def as_graph_element(self, obj: Any, allow_tensor: bool = True,
                         allow_operation: bool = True) -> Any:
        """The tensor or operation of this graph that `obj` (a tensor, an operation,
        a name, or a variable) stands for, as TF's Graph.as_graph_element."""
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                return self.get_tensor_by_name(obj)
            if ":" not in obj and allow_operation:
                return self.get_operation_by_name(obj)
            raise ValueError(f"Name {obj!r} does not name an allowed graph element.")
        element = getattr(obj, "graph_element", None)   # a variable: its read
        if element is not None and not isinstance(obj, (SymbolicTensor, Operation)):
            obj = element
        if isinstance(obj, SymbolicTensor) and allow_tensor or \
                isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        kinds = " or ".join(k for k, ok in (("Tensor", allow_tensor),
                                             ("Operation", allow_operation)) if ok)
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")

    def get_tensor_by_name(self, name: str) -> SymbolicTensor:
        if not isinstance(name, str) or ":" not in name:
            raise ValueError(f"The name '{name}' looks like an Operation name, not a Tensor "
                             "name: Tensor names must be of the form '<op_name>:<output_index>'.")
        op_name, _, index = name.rpartition(":")
        try:
            op = self._by_name[op_name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. "
                           f"The operation, '{op_name}', does not exist in the graph.") from None
        try:
            return op.outputs[int(index)]
        except (ValueError, IndexError):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', exists but only has {len(op.outputs)} "
                           "outputs.") from None

    def is_fetchable(self, tensor_or_op: Any) -> bool:
        return True

    def add_to_collection(self, name: str, value: Any) -> None:
        self.collections.setdefault(name, []).append(value)

    def get_collection(self, name: str, scope: Optional[str] = None) -> list:
        """A copy of collection `name`; with `scope` (a regular expression), only the
        items whose name matches it from the start, as TF1."""
        items = list(self.collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [item for item in items if isinstance(getattr(item, "name", None), str)
                and pattern.match(item.name)]

    def get_collection_ref(self, name: str) -> list:
        """Collection `name` itself: appending to it adds to the collection."""
        return self.collections.setdefault(name, [])

    @property
    def building_function(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<dg.Graph with {len(self._operations)} ops>"


class NameScope:
    """The context manager of `Graph.name_scope` (a class: it is on the path of every
    gradient function call, where a generator-based one costs several times more)."""

    __slots__ = ("_graph", "_name", "_saved")

    def __init__(self, graph: Graph, name: Optional[str]) -> None:
        self._graph = graph
        self._name = name
        self._saved = ""

    def __enter__(self) -> str:
        graph = self._graph
        thread = graph._thread
        self._saved = thread.name_scope
        name = self._name
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            with graph._lock:
                new = graph.unique_name(name)
        thread.name_scope = new
        return (new + "/") if new else ""

    def __exit__(self, *exc: Any) -> None:
        self._graph._thread.name_scope = self._saved


class _SkippedInputs(context.OwnedThreadState):
    """{Operation: input indices dg.gradients does not need}, set on this thread while
    the op's gradient function runs (`Operation.skip_input_indices`)."""

    def __init__(self) -> None:
        self.by_op: Dict[Any, frozenset] = {}


_skipped = context.owned_state(_SkippedInputs)


@contextlib.contextmanager
def skipping_inputs(op: "Operation", skip: frozenset) -> Iterator[None]:
    """`op.skip_input_indices` is `skip` inside (nothing changes when it is empty)."""
    if not skip:
        yield
        return
    _skipped.by_op[op] = skip
    try:
        yield
    finally:
        del _skipped.by_op[op]


def run_in_default_session(fetch: Any, feed_dict: Optional[dict], session: Any) -> Any:
    """`session.run(fetch, feed_dict)`, with this thread's default session if None."""
    session = session or get_default_session()
    if session is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                         "registered. Use `with sess.as_default()` or pass session=sess.")
    return session.run(fetch, feed_dict)


def validate_override_map(op_type_map: Dict[str, str]) -> None:
    """KeyError naming the entry when an op type or gradient name is unknown."""
    for op_type, grad_name in op_type_map.items():
        if op_type not in op_defs:
            raise KeyError(f"gradient_override_map: '{op_type}' is not a declared op type")
        if grad_name not in gradient_functions:
            raise KeyError(f"gradient_override_map: no gradient registered under "
                           f"'{grad_name}' (to override op type '{op_type}')")


def _describe(op_def: OpDef, name: str, inputs: Sequence[Any]) -> str:
    shapes = ", ".join(f"{t.shape}:{t.dtype.name}" for t in inputs)
    return f"Op '{op_def.type}' (name '{name}') with inputs [{shapes}]"
