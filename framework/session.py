"""Session: runs a pruned graph through a compiled, cached plan.

For each (fetches, feeds) pair the needed ops are found once, put in id
order (a topological order) and turned into straight-line Python: one
kernel call per op over local slots, each slot deleted after its last use.
Replaying the plan costs one Python call per op, as hand-written NumPy does.
"""
from __future__ import annotations

import contextlib
import functools
import sys
import threading
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ..eager import context
from . import nest
from .errors import FailedPreconditionError, InvalidArgumentError, OpError
from .graph import Graph, Operation, SymbolicTensor
from .indexed_slices import IndexedSlices, IndexedSlicesValue
from .tensor_shape import TensorShape

_state = context.state


class _Plan:
    """A compiled run: `function(feeds, resources) -> tuple of fetched values`."""

    __slots__ = ("function", "line_ops", "feed_tensors")

    def __init__(self, function, line_ops: Dict[int, Operation], feed_tensors: list) -> None:
        self.function = function
        self.line_ops = line_ops
        self.feed_tensors = feed_tensors


def compile_plan(graph: Graph, fetch_tensors: List[Any], feed_tensors: List[SymbolicTensor],
                 name: str = "plan") -> _Plan:
    """Straight-line code computing `fetch_tensors` from `feed_tensors`."""
    fed = {t: i for i, t in enumerate(feed_tensors)}
    needed: Dict[Operation, None] = {}
    stack = []
    for f in fetch_tensors:
        if isinstance(f, Operation):
            stack.append(f)
        elif f not in fed:
            stack.append(f.op)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed[op] = None
        for t in op.inputs:
            if t not in fed and t.op not in needed:
                stack.append(t.op)
        stack.extend(c for c in op.control_inputs if c not in needed)
    ops = sorted(needed, key=_op_id)
    for op in ops:
        if op.type == "Placeholder":
            out = op.outputs[0]
            shape = out.shape
            raise InvalidArgumentError(
                None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{out.dtype.name} and shape {_shape_text(shape)}")
    last_use: Dict[Any, int] = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            last_use[t] = i
    for f in fetch_tensors:
        if not isinstance(f, Operation):
            last_use[f] = len(ops)
    names: Dict[Any, str] = {t: f"f{i}" for t, i in fed.items()}
    env: Dict[str, Any] = {}
    lines = ["def run(feeds, R):"]
    if feed_tensors:
        lines.append("    " + ", ".join(f"f{i}" for i in range(len(feed_tensors)))
                     + ("," if len(feed_tensors) == 1 else "") + " = feeds")
    line_ops: Dict[int, Operation] = {}
    releases: Dict[int, List[str]] = {}
    for t, i in last_use.items():
        if i < len(ops) and t not in fed:
            releases.setdefault(i, []).append(t)
    for i, op in enumerate(ops):
        outs = [f"v{i}_{k}" for k in range(len(op.outputs))]
        for t, n in zip(op.outputs, outs):
            if t not in fed:
                names[t] = n
        if op.type == "Const":
            env[f"c{i}"] = op.attrs["value"]
            lines.append(f"    {outs[0]} = c{i}")
            line_ops[len(lines)] = op
            continue
        kernel = op.op_def.kernel
        if op.attrs:
            kernel = functools.partial(kernel, **op.attrs)
        env[f"k{i}"] = kernel
        args = [names[t] for t in op.inputs]
        if op.op_def.stateful:
            args.insert(0, "R")
        call = f"k{i}({', '.join(args)})"
        n = op.op_def.num_outputs
        if not op.outputs:
            lines.append(f"    {call}")
        elif n == 1:
            lines.append(f"    {outs[0]} = {call}")
        else:
            lines.append(f"    {', '.join(outs)}, = {call}")
        line_ops[len(lines)] = op
        dead = [names[t] for t in releases.get(i, ()) if t in names and not _fetched(t, fetch_tensors)]
        if dead:
            lines.append(f"    del {', '.join(sorted(set(dead)))}")
    results = [("None" if isinstance(f, Operation) else names[f]) for f in fetch_tensors]
    lines.append(f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    source = "\n".join(lines)
    code = compile(source, f"<duograd {name}>", "exec")
    exec(code, env)  # noqa: S102 - our own generated straight-line plan
    return _Plan(env["run"], line_ops, feed_tensors)


def _fetched(t: Any, fetch_tensors: List[Any]) -> bool:
    return any(t is f for f in fetch_tensors)


def _op_id(op: Operation) -> int:
    return op.id


def _shape_text(shape: TensorShape) -> str:
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims) + "]"


def run_plan(plan: _Plan, feeds: tuple, resources: Any) -> tuple:
    """Runs a plan; a failing kernel becomes an OpError naming its op."""
    try:
        with np.errstate(all="ignore"):
            return plan.function(feeds, resources)
    except OpError as error:
        if error.op is None:
            error.op = _failing_op(plan, sys.exc_info()[2])
        raise
    except (ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError) as error:
        op = _failing_op(plan, sys.exc_info()[2])
        where = f"{op.type} (op '{op.name}')" if op is not None else "an op"
        raise InvalidArgumentError(None, op, f"{where}: {error}") from None


def _failing_op(plan: _Plan, tb: Any) -> Optional[Operation]:
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<duograd"):
            return plan.line_ops.get(tb.tb_lineno)
        tb = tb.tb_next
    return None


class Session:
    """Runs fetches of a graph; holds that graph's variable values."""

    def __init__(self, target: str = "", graph: Optional[Graph] = None, config: Any = None) -> None:
        self.graph = graph if graph is not None else get_default_graph()
        self._plans: Dict[Tuple, _Plan] = {}
        self._variables: Dict[Any, Any] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._contexts: List[Any] = []

    # -- resources (variables) ---------------------------------------------
    def read(self, variable: Any) -> Any:
        try:
            return self._variables[variable]
        except KeyError:
            raise FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {variable.name}") from None

    def write(self, variable: Any, value: Any) -> None:
        self._variables[variable] = value

    def is_initialized(self, variable: Any) -> bool:
        return variable in self._variables

    # -- running ------------------------------------------------------------
    def run(self, fetches: Any, feed_dict: Optional[dict] = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Values of `fetches` (a tensor, op, or nested list/tuple/dict of them)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = nest.flatten(fetches)
        leaves, expand = self._fetch_leaves(flat)
        feed_tensors, feed_values = self._feeds(feed_dict)
        key = (tuple(map(id, leaves)), tuple(map(id, feed_tensors)))
        plan = self._plans.get(key)
        if plan is None:
            plan = compile_plan(self.graph, leaves, feed_tensors)
            with self._lock:
                self._plans[key] = plan
                plan.feed_tensors = feed_tensors  # keeps the keyed tensors alive
        values = run_plan(plan, tuple(feed_values), self)
        return nest.pack_sequence_as(fetches, expand(values))

    def _fetch_leaves(self, flat: List[Any]):
        leaves: List[Any] = []
        spans: List[Tuple[str, int]] = []
        for f in flat:
            if isinstance(f, str):
                f = (self.graph.get_tensor_by_name(f) if ":" in f
                     else self.graph.get_operation_by_name(f))
            if isinstance(f, IndexedSlices):
                parts = [f.values, f.indices] + ([f.dense_shape] if f.dense_shape is not None else [])
                spans.append(("slices", len(parts)))
                leaves.extend(self._check_fetch(p) for p in parts)
                continue
            if not isinstance(f, (SymbolicTensor, Operation)):
                convert = getattr(f, "__dg_tensor__", None)
                if convert is None:
                    raise TypeError(f"Fetch argument {f!r} has invalid type {type(f).__name__}, "
                                    "must be a string or Tensor or Operation.")
                with self.graph.as_default():
                    f = convert()
            spans.append(("one", 1))
            leaves.append(self._check_fetch(f))

        def expand(values: tuple) -> list:
            out, i = [], 0
            for kind, n in spans:
                if kind == "one":
                    out.append(values[i])
                else:
                    part = values[i:i + n]
                    out.append(IndexedSlicesValue(part[0], part[1], part[2] if n == 3 else None))
                i += n
            return out
        return leaves, expand

    def _check_fetch(self, f: Any) -> Any:
        graph = f.graph
        if graph is not self.graph:
            raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor: it is not "
                             "an element of this graph.")
        return f

    def _feeds(self, feed_dict: Optional[dict]):
        if not feed_dict:
            return [], []
        tensors, values = [], []
        for key, value in feed_dict.items():
            if isinstance(key, str):
                key = self.graph.get_tensor_by_name(key)
            if not isinstance(key, SymbolicTensor):
                convert = getattr(key, "__dg_tensor__", None)
                if convert is None:
                    raise TypeError(f"The value of a feed cannot be keyed by {key!r}")
                with self.graph.as_default():
                    key = convert()
            if key.graph is not self.graph:
                raise ValueError(f"Cannot feed tensor {key.name}: it is not in this session's graph")
            tensors.append(key)
            values.append(_check_feed(key, value))
        return tensors, values

    # -- context management -------------------------------------------------
    def close(self) -> None:
        self._closed = True
        self._plans.clear()

    def __enter__(self) -> "Session":
        stack = contextlib.ExitStack()
        stack.enter_context(self.graph.as_default())
        stack.enter_context(_default_session(self))
        self._contexts.append(stack)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._contexts.pop().close()
        self.close()

    def as_default(self):
        return _default_session(self)


def _check_feed(tensor: SymbolicTensor, value: Any) -> Any:
    """The fed value as an array of the tensor's dtype; errors name the tensor."""
    target = tensor.dtype.as_numpy_dtype
    array = np.asarray(getattr(value, "array", value))
    if array.dtype != target:
        src, dst = array.dtype.kind, np.dtype(target).kind
        lossy = (src in "fc" and dst in "iub") or (src == "c" and dst != "c") or \
            (src == "b") != (dst == "b") or src in "OUS"
        if lossy:
            raise TypeError(f"Cannot feed value of dtype {array.dtype} for Tensor "
                            f"'{tensor.name}', which has dtype {tensor.dtype.name}")
        array = array.astype(target)
    if not tensor.shape.is_compatible_with(array.shape):
        raise ValueError(f"Cannot feed value of shape {array.shape} for Tensor '{tensor.name}', "
                         f"which has shape '{_shape_text(tensor.shape)}'")
    return array


class _SessionStack(threading.local):
    def __init__(self) -> None:
        self.sessions: List[Session] = []


_sessions = _SessionStack()


@contextlib.contextmanager
def _default_session(session: Session) -> Iterator[Session]:
    _sessions.sessions.append(session)
    try:
        yield session
    finally:
        _sessions.sessions.pop()


def get_default_session() -> Optional[Session]:
    return _sessions.sessions[-1] if _sessions.sessions else None


def default_session_run(fetch: Any, feed_dict: Optional[dict], session: Optional[Session]) -> Any:
    session = session or get_default_session()
    if session is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                         "registered. Use `with sess.as_default()` or pass session=sess.")
    return session.run(fetch, feed_dict)


def get_default_graph() -> Graph:
    """The graph being built, or this thread's default graph in eager mode."""
    graph = _state.graph
    if graph is not None:
        return graph
    default = getattr(_state, "default_graph", None)
    if default is None:
        default = _state.default_graph = Graph()
    return default


def reset_default_graph() -> None:
    if _state.graph is not None:
        raise AssertionError("Do not use reset_default_graph() inside a graph context.")
    _state.default_graph = Graph()
