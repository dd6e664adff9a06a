"""dg.Variable: mutable state, in both modes, usable wherever a tensor is.

Eager mode: the variable holds its value (a NumPy array never mutated in
place) and a small handle whose `tensor_id` tapes watch; a read records a
ReadVariableOp entry on active tapes, so gradients flow to the handle.
Graph mode: a VarHandleOp names the variable, its value lives in each
Session; reads, assignments and scatters are graph ops, and
`global_variables_initializer()` runs the initial assignments.
"""
from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any, Iterator, List, Optional

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...eager.execute import record
from ...framework import dtypes
from ...framework.func_graph import init_scope
from ...framework.graph import run_in_default_session
from ...framework.tensor import Reference, Tensor, call_operator, new_tensor_id
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.value_text import value_repr
from ..control_flow import control_flow_ops
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op
from ..functions.function_variables import (DeferredInitialValue, check_creation,
                                            lifted_initial_value, record_created)
from .resource_variable_ops import (ASSIGN_ADD_VARIABLE, ASSIGN_SUB_VARIABLE, ASSIGN_VARIABLE,
                                    READ_VARIABLE, RESOURCE_SCATTER_ADD, RESOURCE_SCATTER_SUB,
                                    RESOURCE_SCATTER_UPDATE, VAR_HANDLE, VAR_IS_INITIALIZED)

_state = context.state

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"


class EagerHandle:
    """An eager variable's identity on tapes: `tensor_id`, and the value's shape/dtype."""

    __slots__ = ("tensor_id", "shape", "dtype", "variable", "__weakref__")

    def __init__(self, variable: "Variable", shape: TensorShape, dtype: dtypes.DType) -> None:
        self.tensor_id = new_tensor_id()
        self.shape = shape
        self.dtype = dtype
        self.variable = variable

    @property
    def array(self) -> "Variable":
        """The handle's runtime value (what stateful kernels receive): the variable."""
        return self.variable

    def __repr__(self) -> str:
        return f"<EagerHandle of {self.variable.name} id={self.tensor_id}>"


# TF's process-wide variable kind (tf.compat.v1.disable_resource_variables, part of
# disable_v2_behavior). duograd's variables are always resource variables; with the
# switch off, graph variables print as TF1's reference variables (`dtype=float32_ref`).
_RESOURCE_VARIABLES = [True]


def enable_resource_variables() -> None:
    _RESOURCE_VARIABLES[0] = True


def disable_resource_variables() -> None:
    _RESOURCE_VARIABLES[0] = False


def resource_variables_enabled() -> bool:
    return _RESOURCE_VARIABLES[0]


class VariableMetaclass(type):
    """`Variable(...)` goes through the creators of `variable_creator_scope`, innermost
    first, as in TF (a distribution strategy mirrors the variables made in its scope)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        graph = _state.graph
        if graph is None or graph.building_function:
            return cls._create(*args, **kwargs)
        # TF: a variable's initial value and initializer ignore the control dependencies
        # around its creation (an optimizer's slots made under UPDATE_OPS dependencies)
        with graph.control_dependencies(None):
            return cls._create(*args, **kwargs)

    def _create(cls, *args: Any, **kwargs: Any) -> Any:
        creators = _creators.stack
        if cls is not Variable or not creators:
            return super().__call__(*args, **kwargs)
        kwargs = _creator_kwargs(args, kwargs)

        def make(**final: Any) -> Any:
            return type.__call__(Variable, **final)

        for creator in creators:  # the innermost creator calls the next outer one
            make = _chained(creator, make)
        return make(**kwargs)


def _chained(creator: Any, next_creator: Any) -> Any:
    def create(**kwargs: Any) -> Any:
        return creator(next_creator, **kwargs)
    return create


_VARIABLE_ARGS = ("initial_value", "trainable", "name", "dtype", "shape", "validate_shape")


def _creator_kwargs(args: tuple, kwargs: dict) -> dict:
    if len(args) > len(_VARIABLE_ARGS):
        raise TypeError(f"Variable() takes at most {len(_VARIABLE_ARGS)} positional arguments")
    merged = dict(zip(_VARIABLE_ARGS, args, strict=False))  # fewer args than names
    merged.update(kwargs)
    return merged


class _CreatorState(context.OwnedThreadState):
    """This thread's variable_creator_scope stack, innermost last."""

    def __init__(self) -> None:
        self.stack: List[Any] = []


_creators = context.owned_state(_CreatorState)


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Any) -> Iterator[None]:
    """Variables made inside are made by `variable_creator(next_creator, **kwargs)`."""
    _creators.stack.append(variable_creator)
    try:
        yield
    finally:
        _creators.stack.remove(variable_creator)


class Variable(metaclass=VariableMetaclass):
    """A mutable tensor. `assign*`/`scatter_*` change it; reads see the latest value."""

    __array_priority__ = 100  # NumPy defers binary operators to us

    def __init__(self, initial_value: Any = None, trainable: bool = True,
                 name: Optional[str] = None, dtype: Any = None, shape: Any = None,
                 validate_shape: bool = True, collections: Any = None, **unused: Any) -> None:
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        graph = _state.graph
        if graph is not None and graph.building_function and check_creation(graph):
            with init_scope():  # a dg.function's first trace: the variable lives outside
                lifted = lifted_initial_value(graph, initial_value)
                if isinstance(lifted, DeferredInitialValue):  # set by the first call
                    shape = lifted.tensor.shape if shape is None else shape
                    initial_value = lifted.placeholder_value()
                else:
                    initial_value = lifted
                # re-entrant on purpose: a subclass __init__ (MirroredVariable) runs again too
                self.__init__(initial_value, trainable, name, dtype, shape, validate_shape)  # type: ignore[misc]
            record_created(graph, self, lifted)
            return
        if callable(initial_value):
            initial_value = initial_value()
        self._trainable = bool(trainable)
        self._collections = list(collections) if collections is not None else [GLOBAL_VARIABLES]
        # Held by every update kernel across its read-modify-write, so concurrent
        # assign/assign_add/scatter calls serialise; plain reads take no lock.
        self.update_lock = threading.Lock()
        graph = _state.graph
        self.created_eagerly = graph is None
        base = name or "Variable"
        if base.endswith(":0"):
            base = base[:-2]
        if graph is None:
            value: Any = convert_to_tensor(initial_value, dtype=dtype)  # eager: an EagerTensor
            self._dtype = value.dtype
            self._shape = _declared_shape(value.shape, shape, validate_shape)
            self._value = value.array
            self._name = f"{_state.name_scope}{base}:0"
            self._handle: Any = EagerHandle(self, self._shape, self._dtype)  # graph: a tensor
            self._graph_handles: Any = weakref.WeakKeyDictionary()
            self._graph = None
            self._initial_value = value
            self.initializer = None
            return
        value = convert_to_tensor(initial_value, dtype=dtype)
        self._dtype = value.dtype
        self._shape = _declared_shape(value.shape, shape, validate_shape)
        self._graph = graph
        self._handle = apply_op(VAR_HANDLE, (), self._attrs(), base)
        op_name = self._handle.op.name
        self._name = op_name + ":0"
        self._initial_value = value
        with graph.name_scope(op_name + "/"):
            self.initializer = apply_op(ASSIGN_VARIABLE, (self._handle, value), name="Assign")
            self._graph_element = apply_op(READ_VARIABLE, (self._handle,), self._read_attrs(),
                                           "Read/ReadVariableOp")
        keys = list(getattr(self, "_collections", [GLOBAL_VARIABLES]))  # TF1's `collections`
        if self._trainable and TRAINABLE_VARIABLES not in keys:
            keys.append(TRAINABLE_VARIABLES)
        for key in dict.fromkeys(keys):
            graph.add_to_collection(key, self)

    def _attrs(self) -> dict:
        """The handle op's attrs (reads take only dtype and shape)."""
        return {"variable": self, "dtype": self._dtype, "shape": self._shape}

    def _read_attrs(self) -> dict:
        return {"dtype": self._dtype, "shape": self._shape}

    # -- properties ---------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def ndim(self) -> Optional[int]:
        return self._shape.rank

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def initial_value(self) -> Any:
        return self._initial_value

    @property
    def device(self) -> str:
        return ""

    @property
    def graph(self) -> Any:
        return self._graph if self._graph is not None else _state.graph

    @property
    def op(self) -> Any:
        return self.handle.op

    @property
    def handle(self) -> Any:
        """The resource handle: a graph tensor, or (eager) an object with `tensor_id`.

        A variable created eagerly and used while a graph is built gets one
        handle op per graph (it is captured, as in a `tf.function`)."""
        graph = _state.graph
        if graph is None or not self.created_eagerly:
            return self._handle
        if graph.building_function:  # a function body: the handle is fed at call time
            return graph.capture_variable(self)
        handle = self._graph_handles.get(graph)
        if handle is None:
            with graph.control_dependencies(None):
                handle = apply_op(VAR_HANDLE, (), self._attrs(), self._name[:-2])
            self._graph_handles[graph] = handle
        return handle

    @property
    def graph_element(self) -> Any:
        """The read that `Session.run` fetches (and a feed replaces) for this variable."""
        if not self.created_eagerly:
            return self._graph_element
        return self.value()

    # -- the resource store's view (eager.execute.EagerResources) -------------
    def eager_value(self) -> np.ndarray:
        return self._value

    def set_eager_value(self, value: np.ndarray) -> None:
        self._value = value

    # -- reading --------------------------------------------------------------
    def value(self) -> Tensor:
        """The current value as a tensor (a new read op in graph mode)."""
        graph = _state.graph
        if graph is None:
            if not self.created_eagerly:
                raise TypeError(f"Variable {self._name} was created in a graph: its value lives "
                                "in a Session (use sess.run), not in eager mode.")
            out = EagerTensor(self._value)
            state = _state
            if state.tapes or state.accumulators:
                for tape in state.tapes:
                    tape.variable_accessed(self)
                record(READ_VARIABLE, self._read_attrs(), (self._handle,), (out,))
            return out
        handle = self.handle
        for tape in _state.tapes:
            tape.variable_accessed(self)
        return apply_op(READ_VARIABLE, (handle,), self._read_attrs(), "ReadVariableOp")

    def read_value(self) -> Tensor:
        return self.value()

    def numpy(self) -> Any:
        if not self.created_eagerly:
            raise NotImplementedError("numpy() is only available when eager execution is "
                                      f"enabled (variable {self._name} was created in a graph).")
        value = self._value
        return value.copy() if value.ndim else value[()]

    def eval(self, session: Any = None) -> Any:
        return run_in_default_session(self.graph_element, None, session)

    def is_initialized(self, name: Optional[str] = None) -> Tensor:
        if _state.graph is None:
            return convert_to_tensor(True)
        return apply_op(VAR_IS_INITIALIZED, (self.handle,), name=name or "VarIsInitializedOp")

    def __dg_tensor__(self, dtype: Any = None, name: Optional[str] = None) -> Tensor:
        if dtype is not None and dtypes.as_dtype(dtype) != self._dtype:
            raise ValueError(f"Incompatible type conversion requested to type "
                             f"'{dtypes.as_dtype(dtype).name}' for variable of type "
                             f"'{self._dtype.name}' ({self._name})")
        return self.value()

    # -- writing --------------------------------------------------------------
    def _update(self, op_def: Any, inputs: tuple, name: Optional[str], read_value: bool) -> Any:
        graph = _state.graph
        if graph is None and not self.created_eagerly:
            raise TypeError(f"Variable {self._name} was created in a graph: assign to it with "
                            "graph ops run by a Session, not in eager mode.")
        op = apply_op(op_def, (self.handle,) + inputs, name=name)
        if graph is None:
            return self if read_value else None
        if not read_value:
            return op
        with graph.control_dependencies([op]):
            return self.value()

    def _converted(self, value: Any) -> Tensor:
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable '{self._name}': Shape mismatch. "
                             f"The variable shape {self._shape}, and the assigned value shape "
                             f"{value.shape} are incompatible.")
        return value

    def assign(self, value: Any, use_locking: Any = None, name: Optional[str] = None,
               read_value: bool = True) -> Any:
        """Sets the value. Eager: returns the variable; graph: the new value (or the op)."""
        return self._update(ASSIGN_VARIABLE, (self._converted(value),), name, read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: Optional[str] = None,
                   read_value: bool = True) -> Any:
        return self._update(ASSIGN_ADD_VARIABLE, (self._converted(delta),), name, read_value)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Optional[str] = None,
                   read_value: bool = True) -> Any:
        return self._update(ASSIGN_SUB_VARIABLE, (self._converted(delta),), name, read_value)

    def _scatter(self, op_def: Any, sparse_delta: Any, name: Optional[str]) -> Any:
        if not hasattr(sparse_delta, "indices") or not hasattr(sparse_delta, "values"):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta!r}")
        indices = convert_to_tensor(sparse_delta.indices)
        if not indices.dtype.is_integer:
            raise TypeError(f"scatter indices must be integers, got {indices.dtype.name}")
        updates = convert_to_tensor(sparse_delta.values, dtype=self._dtype)
        return self._update(op_def, (indices, updates), name, True)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False,
                    name: Optional[str] = None) -> Any:
        """Adds `sparse_delta.values` to rows `sparse_delta.indices` (repeats add up)."""
        return self._scatter(RESOURCE_SCATTER_ADD, sparse_delta, name)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False,
                    name: Optional[str] = None) -> Any:
        return self._scatter(RESOURCE_SCATTER_SUB, sparse_delta, name)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False,
                       name: Optional[str] = None) -> Any:
        """Sets rows `sparse_delta.indices` to `sparse_delta.values` (others untouched)."""
        return self._scatter(RESOURCE_SCATTER_UPDATE, sparse_delta, name)

    # -- Python protocol: behave like the value -----------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if _state.graph is not None or not self.created_eagerly:
            raise TypeError(f"Cannot convert variable {self._name} to a NumPy array in graph "
                            "mode; fetch it with Session.run.")
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype, copy=False)

    def __repr__(self) -> str:
        if self.created_eagerly and _state.graph is None:
            return (f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}, "
                    f"numpy={value_repr(self._value)}>")
        suffix = "" if _RESOURCE_VARIABLES[0] else "_ref"
        return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}{suffix}>"

    def __len__(self) -> int:
        return len(self.value())

    def __iter__(self):
        return iter(self.value())

    def __bool__(self) -> bool:
        return bool(self.value())

    # Eager values convert; a graph tensor raises TypeError, as in TF (hence the ignores).
    def __float__(self) -> float:
        return float(self.value())  # type: ignore[arg-type]

    def __int__(self) -> int:
        return int(self.value())  # type: ignore[call-overload]

    def __index__(self) -> int:
        return self.value().__index__()  # type: ignore[attr-defined]

    def __getitem__(self, key): return self.value()[key]
    def __add__(self, other): return self.value() + other
    def __radd__(self, other): return other + self.value()
    def __sub__(self, other): return self.value() - other
    def __rsub__(self, other): return other - self.value()
    def __mul__(self, other): return self.value() * other
    def __rmul__(self, other): return other * self.value()
    def __truediv__(self, other): return self.value() / other
    def __rtruediv__(self, other): return other / self.value()
    def __floordiv__(self, other): return self.value() // other
    def __rfloordiv__(self, other): return other // self.value()
    def __mod__(self, other): return self.value() % other
    def __rmod__(self, other): return other % self.value()
    def __pow__(self, other): return self.value() ** other
    def __rpow__(self, other): return other ** self.value()
    def __matmul__(self, other): return self.value() @ other
    def __rmatmul__(self, other): return other @ self.value()
    def __neg__(self): return -self.value()
    def __abs__(self): return abs(self.value())
    def __lt__(self, other): return self.value() < other
    def __le__(self, other): return self.value() <= other
    def __gt__(self, other): return self.value() > other
    def __ge__(self, other): return self.value() >= other

    # TF2: eagerly and inside functions traced from eager mode variables compare
    # by value and are unhashable; in a v1 Graph (and its functions) by identity. (The library keys on id(variable).)
    def __eq__(self, other: Any) -> Any:
        if _tf2_semantics():
            return call_operator("tensor_equals", self.value(), other)
        return self is other

    def __ne__(self, other: Any) -> Any:
        if _tf2_semantics():
            return call_operator("tensor_not_equals", self.value(), other)
        return self is not other

    def __hash__(self) -> int:
        if _tf2_semantics():
            raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key. "
                            f"(Variable: {self._name})")
        return id(self)

    def ref(self) -> Reference:
        """A hashable reference (`.deref()` gives the variable back)."""
        return Reference(self)


def _tf2_semantics() -> bool:
    """Executing eagerly, or tracing a function from eager mode (TF's
    executing_eagerly_outside_functions): value equality, no hashing."""
    graph = _state.graph
    return graph is None or graph.value_equality


def _declared_shape(value_shape: TensorShape, shape: Any, validate_shape: bool) -> TensorShape:
    if not validate_shape:
        return TensorShape(None)
    if shape is None:
        return value_shape
    declared = as_shape(shape)
    if not declared.is_compatible_with(value_shape):
        raise ValueError(f"The initial value's shape ({value_shape}) is not compatible with "
                         f"the explicitly supplied `shape` argument ({declared}).")
    return declared


def global_variables() -> list:
    """Variables created in the current graph (empty in eager mode)."""
    graph = _state.graph
    return graph.get_collection(GLOBAL_VARIABLES) if graph is not None else []


def trainable_variables() -> list:
    graph = _state.graph
    return graph.get_collection(TRAINABLE_VARIABLES) if graph is not None else []


def variables_initializer(var_list: Any, name: str = "init") -> Any:
    """An op running the initial assignment of each variable (None in eager mode)."""
    if _state.graph is None:
        return None
    inits = [v.initializer for v in var_list if v.initializer is not None]
    if not inits:
        return control_flow_ops.no_op(name=name)
    return control_flow_ops.group(*inits, name=name)


def global_variables_initializer() -> Any:
    """Initialises every variable of the current graph (None in eager mode)."""
    return variables_initializer(global_variables(), name="init")


def is_variable_initialized(variable: Variable) -> Tensor:
    return variable.is_initialized()


__all__ = ["Variable", "variable_creator_scope", "global_variables_initializer", "variables_initializer",
           "global_variables", "trainable_variables", "is_variable_initialized"]
