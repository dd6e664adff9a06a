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
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..eager import context
from . import nest
from .bfloat16_compute import in_float32, requests_dtype
from .string_values import string_array
from .errors import (FailedPreconditionError, InvalidArgumentError, OpError,
                     ResourceExhaustedError)
from .default_session import default_session
from .graph import Graph, Operation, SymbolicTensor
from .indexed_slices import IndexedSlices, IndexedSlicesValue
from .tensor_shape import TensorShape

_state = context.state


# Plans up to this many ops become generated straight-line code (fastest to
# run, ~15 us per op to compile); larger ones run through an interpreted step
# list, which compiles in ~2 us per op and runs ~0.3 us per op slower.
CODEGEN_LIMIT = 4000


class _Plan:
    """A compiled run: `function(feeds, resources) -> tuple of fetched values`."""

    __slots__ = ("function", "line_ops", "feed_tensors", "steps")

    def __init__(self, function, line_ops: Dict[int, Operation], feed_tensors: list,
                 steps: Optional[list] = None) -> None:
        self.function = function
        self.line_ops = line_ops
        self.feed_tensors = feed_tensors
        self.steps = steps


def _needed_ops(fetch_tensors: List[Any], fed: Dict[Any, int]) -> List[Operation]:
    """Ops the fetches depend on (not through fed tensors), in id (topological) order."""
    needed: Dict[Operation, None] = {}
    stack = [f if isinstance(f, Operation) else f.op for f in fetch_tensors
             if id(f) not in fed]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed[op] = None
        for t in op.inputs:
            if id(t) not in fed and t.op not in needed:
                stack.append(t.op)
        # a control input whose every output is fed has run already (TF replaces a fed
        # op by its feed, control edges included): it must not run, nor ask for its feed
        stack.extend(c for c in op.control_inputs
                     if not c.outputs or any(id(t) not in fed for t in c.outputs))
    ops = sorted(needed, key=_op_id)
    for op in ops:
        if op.type == "Placeholder":
            out = op.outputs[0]
            raise InvalidArgumentError(
                None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{out.dtype.name} and shape {_shape_text(out.shape)}")
    return ops


def compile_plan(graph: Graph, fetch_tensors: List[Any], feed_tensors: List[SymbolicTensor],
                 name: str = "plan", signature: Optional[Tuple[str, List[str]]] = None,
                 quiet: bool = False) -> _Plan:
    """A plan computing `fetch_tensors` (None entries give None) from `feed_tensors`:
    each needed op once, in topological order, every intermediate released after
    its last use. The function is `run(feeds, R)`, or with `signature` =
    (parameters, one expression per feed) `run(<parameters>)` reading each feed
    from its expression (always generated code). `quiet`: the plan only ever runs
    through run_plan, under np.errstate(all="ignore"), so kernels that silence
    NumPy's warnings themselves may run unwrapped (their `plan_kernel`)."""
    fed = {id(t): i for i, t in enumerate(feed_tensors)}  # by id: tensors may be unhashable
    ops = _needed_ops([f for f in fetch_tensors if f is not None], fed)
    # Slots: feeds first, then each op output; constants are bound, not computed.
    slot: Dict[Any, int] = dict(fed)
    constants: Dict[int, Any] = {}
    steps = []  # (op, kernel, input slots, output slots)
    for op in ops:
        outs = []
        for t in op.outputs:
            if id(t) not in fed:
                slot[id(t)] = len(slot)
            outs.append(slot[id(t)])
        if op.type == "Const":
            constants[outs[0]] = op.attrs["value"]
            continue
        kernel = op.op_def.kernel
        if quiet:
            kernel = getattr(kernel, "plan_kernel", kernel)
        if op.op_def.input_kinds is not None and op.inputs and \
                op.inputs[0].dtype.name == "bfloat16" and not requests_dtype(op.attrs):
            kernel = in_float32(kernel, np.dtype(op.inputs[0].dtype.as_numpy_dtype))
        if op.attrs:
            kernel = functools.partial(kernel, **op.attrs)
        steps.append((op, kernel, [slot[id(t)] for t in op.inputs], outs))
    fetch_slots = [None if f is None or isinstance(f, Operation) else slot[id(f)]
                   for f in fetch_tensors]
    keep = set(fetch_slots) | set(constants) | set(range(len(feed_tensors)))
    last_use: Dict[int, int] = {}
    for i, (_, _, ins, _) in enumerate(steps):
        for s in ins:
            last_use[s] = i
    releases: List[List[int]] = [[] for _ in steps]
    for s, i in last_use.items():
        if s not in keep:
            releases[i].append(s)
    if len(steps) <= CODEGEN_LIMIT or signature is not None:
        return _generate(steps, constants, releases, fetch_slots, feed_tensors, name, signature,
                         _reused_temporaries(steps, releases))
    return _interpreted(steps, constants, releases, fetch_slots, feed_tensors, len(slot))


def _plain_ufunc(kernel: Any) -> bool:
    return type(kernel) is np.ufunc and kernel.nout == 1


def _reused_temporaries(steps: list, releases: List[List[int]]) -> Dict[int, int]:
    """{step: input slot its ufunc may write its result into}: NumPy's temporary
    elision, decided statically. The input must be a fresh array another ufunc step
    made (never a feed, constant or view) that only ufunc steps read (a ufunc keeps
    no reference to its inputs and returns no view of them, so nothing else can see
    the array), used for the last time here and only once, with the result's fully
    known shape (rank 1 or more: a ufunc gives an array, not a NumPy scalar) and every
    input's dtype equal to the result's (no casting)."""
    read_by_other = {s for _, kernel, ins, _ in steps if not _plain_ufunc(kernel) for s in ins}
    fresh = set()
    reuse: Dict[int, int] = {}
    for i, (op, kernel, ins, outs) in enumerate(steps):
        if not _plain_ufunc(kernel) or len(outs) != 1:
            continue
        out = op.outputs[0]
        dims = out.shape.dims
        if not dims or None in dims or any(t.dtype is not out.dtype for t in op.inputs):
            continue
        for position, s in enumerate(ins):
            if s in fresh and s not in read_by_other and s in releases[i] and \
                    ins.count(s) == 1 and op.inputs[position].shape.dims == dims:
                reuse[i] = s
                break
        fresh.add(outs[0])
    return reuse


def _generate(steps, constants, releases, fetch_slots, feed_tensors, name,
              signature=None, reuse=None) -> _Plan:
    """Straight-line Python: one kernel call per op on local variables (a ufunc
    writing into a dead temporary where `reuse` says so)."""
    reuse = reuse or {}
    def ref(s: int) -> str:
        if s < len(feed_tensors):
            return f"f{s}"
        return f"c{s}" if s in constants else f"v{s}"

    env: Dict[str, Any] = {f"c{s}": value for s, value in constants.items()}
    if signature is None:
        lines = ["def run(feeds, R):"]
        if feed_tensors:
            lines.append("    " + ", ".join(f"f{i}" for i in range(len(feed_tensors))) + ", = feeds")
    else:
        parameters, feed_exprs = signature
        used = {s for step in steps for s in step[2]} | set(fetch_slots)
        lines = [f"def run({parameters}):"]
        lines.extend(f"    f{i} = {expr}" for i, expr in enumerate(feed_exprs) if i in used)
    line_ops: Dict[int, Operation] = {}
    for i, (op, kernel, ins, outs) in enumerate(steps):
        env[f"k{i}"] = kernel
        args = [ref(s) for s in ins]
        if op.op_def.stateful:
            args.insert(0, "R")
        if i in reuse:
            args.append(f"out={ref(reuse[i])}")
        call = f"k{i}({', '.join(args)})"
        targets = [ref(s) if s is not None else "_" for s in outs]
        if not outs:
            lines.append(f"    {call}")
        elif op.op_def.num_outputs == 1:
            lines.append(f"    {targets[0]} = {call}")
        else:
            lines.append(f"    {', '.join(targets)}, = {call}")
        line_ops[len(lines)] = op
        if releases[i]:
            lines.append(f"    del {', '.join(ref(s) for s in releases[i])}")
    results = ["None" if s is None else ref(s) for s in fetch_slots]
    lines.append(f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    code = compile("\n".join(lines), f"<duograd {name}>", "exec")
    exec(code, env)  # noqa: S102 - our own generated straight-line plan
    return _Plan(env["run"], line_ops, feed_tensors)


def _interpreted(steps, constants, releases, fetch_slots, feed_tensors, n_slots) -> _Plan:
    """A flat step list over a slot list: for plans too large to compile quickly."""
    program = [(kernel, ins, outs[0] if len(outs) == 1 and op.op_def.num_outputs == 1
                else outs, op.op_def.stateful, releases[i])
               for i, (op, kernel, ins, outs) in enumerate(steps)]
    template = [None] * n_slots
    for s, value in constants.items():
        template[s] = value
    n_feeds = len(feed_tensors)

    def run(feeds, R):
        slots = template.copy()
        slots[:n_feeds] = feeds
        for kernel, ins, out, stateful, dead in program:
            args = [slots[s] for s in ins]
            value = kernel(R, *args) if stateful else kernel(*args)
            if type(out) is int:
                slots[out] = value
            elif out:
                for s, v in zip(out, value, strict=True):
                    if s is not None:
                        slots[s] = v
            for s in dead:
                slots[s] = None
        return tuple(None if s is None else slots[s] for s in fetch_slots)

    return _Plan(run, {}, feed_tensors, steps)


def _op_id(op: Operation) -> int:
    return op.id


def _shape_text(shape: TensorShape) -> str:
    if shape.dims is None:
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
    except (ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError,
            OverflowError, MemoryError) as error:
        op = _failing_op(plan, sys.exc_info()[2])
        where = f"{op.type} (op '{op.name}')" if op is not None else "an op"
        if isinstance(error, MemoryError):   # TF's OOM
            raise ResourceExhaustedError(None, op, f"{where}: OOM when allocating the "
                                         f"result ({error})") from None
        raise InvalidArgumentError(None, op, f"{where}: {error}") from None


def _failing_op(plan: _Plan, tb: Any) -> Optional[Operation]:
    """The op whose kernel raised: from the generated code's line number, or,
    for an interpreted plan, the step the loop had reached."""
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename.startswith("<duograd"):
            return plan.line_ops.get(tb.tb_lineno)
        if plan.steps is not None and frame.f_code.co_name == "run" and "kernel" in frame.f_locals:
            kernel = frame.f_locals["kernel"]
            for op, step_kernel, _, _ in plan.steps:
                if step_kernel is kernel:
                    return op
        tb = tb.tb_next
    return None


class Session:
    """Runs fetches of a graph; holds that graph's variable values."""

    def __init__(self, target: str = "", graph: Optional[Graph] = None, config: Any = None) -> None:
        self.graph = graph if graph is not None else get_default_graph()
        self._plans: Dict[Tuple, _Plan] = {}
        # {id(variable): (variable, value)}: variables are unhashable in TF2 contexts
        self._variables: Dict[int, Tuple[Any, Any]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._contexts: List[Any] = []

    # -- resources (variables) ---------------------------------------------
    def read(self, variable: Any) -> Any:
        try:
            return self._variables[id(variable)][1]
        except KeyError:
            raise FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {variable.name}") from None

    def write(self, variable: Any, value: Any) -> None:
        self._variables[id(variable)] = (variable, value)

    def is_initialized(self, variable: Any) -> bool:
        return id(variable) in self._variables

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
            plan = compile_plan(self.graph, leaves, feed_tensors, quiet=True)
            with self._lock:
                self._plans[key] = plan
                plan.feed_tensors = feed_tensors  # keeps the keyed tensors alive
        values = run_plan(plan, tuple(feed_values), self)
        if feed_values:
            values = _unaliased(values, feed_values)
        return nest.pack_sequence_as(fetches, expand(values))

    def _fetch_leaves(self, flat: List[Any]):
        leaves: List[Any] = []
        spans: List[Tuple[str, int]] = []
        for f in flat:
            if isinstance(f, str):
                try:
                    f = (self.graph.get_tensor_by_name(f) if ":" in f
                         else self.graph.get_operation_by_name(f))
                except KeyError as error:  # TF: a ValueError naming the fetch
                    raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor. "
                                     f"({error.args[0]})") from None
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
                    f = _graph_element(f, convert)
            spans.append(("one", 1))
            leaves.append(self._check_fetch(f))

        def expand(values: tuple) -> list:
            out, i = [], 0
            for kind, n in spans:
                if kind == "one":  # TF: a 0-d value comes back as a NumPy scalar
                    value = values[i]
                    out.append(value[()] if isinstance(value, np.ndarray) and value.ndim == 0
                               else value)
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
                try:
                    key = self.graph.get_tensor_by_name(key)
                except (KeyError, ValueError) as error:  # TF: a TypeError naming the key
                    raise TypeError(f"Cannot interpret feed_dict key {key!r} as Tensor: "
                                    f"{error.args[0]}") from None
            if not isinstance(key, SymbolicTensor):
                convert = getattr(key, "__dg_tensor__", None)
                if convert is None:
                    raise TypeError(f"The value of a feed cannot be keyed by {key!r}")
                with self.graph.as_default():
                    key = _graph_element(key, convert)
            if key.graph is not self.graph:
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: Tensor {key.name} "
                                "is not an element of this graph.")
            tensors.append(key)
            values.append(_check_feed(key, value))
        return tensors, values

    # -- context management -------------------------------------------------
    def close(self) -> None:
        """Closes the Session; a resource value with a `release()` method (a dataset
        iterator's running pipeline) is released: its background threads stop."""
        self._closed = True
        self._plans.clear()
        for _, value in list(self._variables.values()):
            release = getattr(value, "release", None)
            if release is not None:
                release()

    def __enter__(self) -> "Session":
        stack = contextlib.ExitStack()
        stack.enter_context(self.graph.as_default())
        stack.enter_context(default_session(self))
        self._contexts.append(stack)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._contexts.pop().close()
        self.close()

    def as_default(self):
        return default_session(self)


def _graph_element(value: Any, convert: Any) -> Any:
    """What a fetch or feed of a non-tensor means: a variable's own read, else a conversion."""
    element = getattr(value, "graph_element", None)
    return element if element is not None else convert()


def _unaliased(values: tuple, feed_values: list) -> tuple:
    """Fetched values that are NumPy views of a fed array (a reshape or slice of a
    placeholder) copied, as TF's fetches are: they must not change when the caller
    later writes into its array. A fetched placeholder is the fed array itself, as TF."""
    feeds = [f for f in feed_values if isinstance(f, np.ndarray) and f.size]
    out = []
    for value in values:
        if (isinstance(value, np.ndarray) and value.base is not None and value.size
                and not any(value is f for f in feeds)
                and any(np.may_share_memory(value, f) for f in feeds)):
            value = value.copy()
        out.append(value)
    return tuple(out)


def _check_feed(tensor: SymbolicTensor, value: Any) -> Any:
    """The fed value as an array of the tensor's dtype; errors name the tensor."""
    target = tensor.dtype.as_numpy_dtype
    if tensor.dtype.name == "string":
        strings = string_array(getattr(value, "array", value))
        if strings is None:
            raise ValueError(f"Cannot feed value {value!r} for Tensor '{tensor.name}', which "
                             "has dtype string: could not convert it")
        value = strings
    array = np.asarray(getattr(value, "array", value))
    if array.dtype != target:
        # As TF, any numeric value converts as NumPy casts it (np.asarray(value,
        # dtype)); strings, None and other objects are a ValueError.
        if array.dtype.kind in "OUSV":
            raise ValueError(f"Cannot feed value {value!r} for Tensor '{tensor.name}', which "
                             f"has dtype {tensor.dtype.name}: could not convert it")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            array = array.astype(target)
    if not tensor.shape.is_compatible_with(array.shape):
        raise ValueError(f"Cannot feed value of shape {array.shape} for Tensor '{tensor.name}', "
                         f"which has shape '{_shape_text(tensor.shape)}'")
    return array


def get_default_graph() -> Graph:
    """The graph being built, or this thread's default graph in eager mode."""
    graph = _state.graph
    if graph is not None:
        return graph
    default = _state.default_graph
    if default is None:
        default = _state.default_graph = Graph()
    return default


def reset_default_graph() -> None:
    if _state.graph is not None:
        raise AssertionError("Do not use reset_default_graph() inside a graph context.")
    _state.default_graph = Graph()
