"""AutoGraph's runtime operators: what converted code calls instead of Python's statements.

Each operator looks at its condition or iterable when the converted function
runs: a tensor being traced into a graph turns the statement into `dg.cond`
or `dg.while_loop`; anything else (a Python value, or an eager tensor) runs
the statement as plain Python. The branch and loop bodies come as functions
that read and write the enclosing function's variables (`nonlocal`);
`get_state` / `set_state` read and write the variables that become cond
outputs or loop variables, named by `names` for TF's error messages.
"""
from __future__ import annotations

import builtins
from typing import Any, Callable, List, Optional, Sequence

from ..eager import context
from ..framework import dtypes, nest
from ..framework.func_graph import FuncGraph, tracing
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..ops.control_flow.cond_ops import cond
from ..ops.constant_op import convert_to_tensor, is_tensor
from ..ops.array.creation_ops import range as tensor_range
from ..ops.control_flow.tensor_array_ops import TensorArray
from ..ops.control_flow.while_loop_ops import while_loop
from ..framework.scopes import control_dependencies
from ..ops.array import array_ops
from ..ops.math import math_ops
from ..ops.debugging.check_ops import Assert

_state = context.state


class Undefined:
    """The value of a variable that no statement has assigned yet."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str) -> None:
        self.symbol_name = symbol_name

    def __repr__(self) -> str:
        return f"<undefined {self.symbol_name}>"


class UndefinedReturnValue:
    """The return value of a function before any `return` statement ran."""

    def __repr__(self) -> str:
        return "<undefined return value>"


def ld(value: Any) -> Any:
    """A variable read: an undefined one raises as Python would."""
    if isinstance(value, Undefined):
        raise UnboundLocalError(f"'{value.symbol_name}' is used before assignment")
    return value


def ldu(read: Callable[[], Any], symbol_name: str) -> Any:
    """The value of a composite symbol (`x['k']`, `a.b`), Undefined when it has none."""
    try:
        return read()
    except (KeyError, AttributeError, IndexError, UnboundLocalError, NameError):
        return Undefined(symbol_name)


def retval(value: Any) -> Any:
    """The function's return value (None when no return statement ran)."""
    return None if isinstance(value, UndefinedReturnValue) else value


def _staged(value: Any) -> bool:
    """True when `value` is a tensor and a graph is being built (cond/while apply)."""
    return _state.graph is not None and is_tensor(value)


# -- boolean operators ------------------------------------------------------------
def and_(a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    """`a and b`, lazily: a tensor `a` gives `cond(a, b, lambda: a)`."""
    a_value = a()
    if _staged(a_value):
        return cond(a_value, b, lambda: a_value)
    return a_value and b()


def or_(a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    """`a or b`, lazily: a tensor `a` gives `cond(a, lambda: a, b)`."""
    a_value = a()
    if _staged(a_value):
        return cond(a_value, lambda: a_value, b)
    return a_value or b()


def not_(a: Any) -> Any:
    """`not a`; a tensor gives `logical_not(a)`."""
    if is_tensor(a):
        return math_ops.logical_not(a)
    return not a


def if_exp(test: Any, if_true: Callable[[], Any], if_false: Callable[[], Any]) -> Any:
    """`if_true() if test else if_false()`; a tensor test gives a cond."""
    if _staged(test):
        return cond(test, if_true, if_false)
    return if_true() if test else if_false()


def assert_stmt(test: Any, message: Callable[[], Any]) -> Any:
    """`assert test, message`: an `Assert` op for a tensor being traced (it runs with
    the function's other side effects), else Python's assert."""
    if _staged(test):
        data = message()
        return Assert(test, data if isinstance(data, list) else [data])
    if not test:
        raise AssertionError(message())
    return None


# -- if ---------------------------------------------------------------------------
def if_stmt(test: Any, body: Callable[[], None], orelse: Callable[[], None],
            get_state: Callable[[], tuple], set_state: Callable[[tuple], None],
            names: Sequence[str], nouts: int) -> None:
    """An `if` statement; the first `nouts` of `names` are the cond's outputs."""
    if not _staged(test):
        if test:
            body()
        else:
            orelse()
        return
    init = get_state()
    done: dict = {}

    def branch(fn: Callable[[], None], label: str) -> Callable[[], tuple]:
        def run() -> tuple:
            set_state(init)
            fn()
            outs = _branch_outputs(get_state()[:nouts], names, label)
            done[label] = outs
            if len(done) == 2:
                _check_branches(done["main"], done["else"], names)
            return outs
        return run

    outs = cond(test, branch(body, "main"), branch(orelse, "else"))
    set_state(tuple(outs) + tuple(init[nouts:]))


def _branch_outputs(values: Sequence[Any], names: Sequence[str], label: str) -> tuple:
    outs = []
    for name, value in zip(names, values, strict=False):
        if isinstance(value, UndefinedReturnValue):
            raise ValueError(f"the {label} branch must also have a return statement.")
        if isinstance(value, Undefined):
            raise ValueError(f"'{name}' must also be initialized in the {label} branch")
        if value is None:
            raise ValueError(f"'{name}' is None at the end of the {label} branch.")
        outs.append(nest.map_structure(_as_tensor, value))
    return tuple(outs)


def _check_branches(main: tuple, orelse: tuple, names: Sequence[str]) -> None:
    for name, a, b in zip(names, main, orelse, strict=False):
        try:
            nest.assert_same_structure(a, b)
        except ValueError as error:
            raise TypeError(f"'{name}' must have the same nested structure in the main and "
                            f"else branches:\n\n{error}") from None
        for x, y in zip(nest.flatten(a), nest.flatten(b), strict=True):
            if x.dtype != y.dtype:
                raise TypeError(f"'{name}' has dtype {x.dtype.name} in the main branch, but "
                                f"dtype {y.dtype.name} in the else branch")


def _as_tensor(value: Any) -> Any:
    if isinstance(value, (Tensor, TensorArray)):
        return value
    return convert_to_tensor(value)


# -- loops ------------------------------------------------------------------------
def while_stmt(test: Callable[[], Any], body: Callable[[], None],
               get_state: Callable[[], tuple], set_state: Callable[[tuple], None],
               names: Sequence[str], opts: Optional[dict] = None) -> None:
    """A `while` loop: a `while_loop` when the first test is a tensor in a graph."""
    first = test()
    if not _staged(first):
        keep_going = first
        while keep_going:
            body()
            keep_going = test()
        return

    def probe() -> None:
        test()
        body()

    _staged_loop(lambda _: test(), lambda _: body(), get_state, set_state, names, probe, None,
                 opts)


def for_stmt(iterable: Any, extra_test: Optional[Callable[[], Any]],
             body: Callable[[Any], None], get_state: Callable[[], tuple],
             set_state: Callable[[tuple], None], names: Sequence[str],
             opts: Optional[dict] = None) -> None:
    """A `for` loop over a tensor, a `dg.range`, a TensorArray or a Python iterable."""
    graph_iterator = getattr(iterable, "graph_iterator", None)  # a dg.data.Dataset
    if _state.graph is not None and graph_iterator is not None:
        _dataset_loop(graph_iterator(), extra_test, body, get_state, set_state, names, opts)
        return
    if _state.graph is not None and (is_tensor(iterable) or isinstance(iterable, TensorArray)):
        start, limit, delta, element = _iteration(iterable)

        def loop_test(i: Any) -> Any:
            more = math_ops.logical_or(math_ops.logical_and(delta > 0, i < limit),
                                       math_ops.logical_and(delta < 0, i > limit))
            if extra_test is None:
                return more
            extra = extra_test()
            if is_tensor(extra):
                return math_ops.logical_and(more, extra)
            return more if extra else math_ops.logical_and(more, False)

        def probe() -> None:
            body(element(start))

        _staged_loop(loop_test, lambda i: body(element(i)), get_state, set_state, names, probe,
                     (start, delta), opts)
        return
    for target in iterable:
        if extra_test is not None and not extra_test():
            break
        body(target)


def _dataset_loop(iterator: Any, extra_test: Optional[Callable[[], Any]],
                  body: Callable[[Any], None], get_state: Callable[[], tuple],
                  set_state: Callable[[tuple], None], names: Sequence[str],
                  opts: Optional[dict]) -> None:
    """A `for` over a dataset as one while_loop: each test fetches the next element
    (`iterator.has_next()`), the body reads it (`iterator.fetched()`), as TF's loop
    over a dataset's iterator does; the dataset is iterated afresh at each run."""
    def loop_test(_: Any) -> Any:
        more = iterator.has_next()
        if extra_test is None:
            return more
        extra = extra_test()
        if is_tensor(extra):
            return math_ops.logical_and(extra, more)   # `break` ends before fetching
        return more if extra else math_ops.logical_and(more, False)

    _staged_loop(loop_test, lambda _: body(iterator.fetched()), get_state, set_state, names,
                 lambda: body(iterator.fetched()), None, opts)


def _iteration(iterable: Any):
    """(start, limit, delta, element(i)) for iterating a tensor or TensorArray in a graph."""
    if isinstance(iterable, TensorArray):
        zero = convert_to_tensor(0)
        return zero, iterable.size(), convert_to_tensor(1), iterable.read
    iterable = convert_to_tensor(iterable)
    op = getattr(iterable, "op", None)
    if op is not None and op.type == "Range":
        start, limit, delta = op.inputs
        return start, limit, delta, lambda i: i
    if iterable.shape.rank == 0:
        raise TypeError(f"Cannot iterate over a scalar tensor {iterable.name}")
    limit = array_ops.shape(iterable)[0]
    return convert_to_tensor(0), limit, convert_to_tensor(1), lambda i: iterable[i]


def _staged_loop(test: Callable[[Any], Any], body: Callable[[Any], None],
                 get_state: Callable[[], tuple], set_state: Callable[[tuple], None],
                 names: Sequence[str], probe: Callable[[], None], index: Any,
                 opts: Optional[dict] = None) -> None:
    """Runs the loop as one `while_loop` over `names`; `index` is (start, delta) of a
    `for` loop's hidden index (None for `while`); `opts` are set_loop_options's."""
    opts = opts or {}
    state = list(get_state())
    guessed = [n for n, v in zip(names, state, strict=True) if _to_guess(v)]
    shapes = _shape_invariants(state, opts.get("shape_invariants") or ())
    init = _initial_values(state, names, get_state, set_state, probe)
    has_index = index is not None
    # an iteration count: variables first assigned in the body need one iteration to be
    # defined (and while_loop needs at least one loop variable)
    has_count = bool(guessed) or not (init or has_index)
    head = ([index[0]] if has_index else []) + ([convert_to_tensor(0)] if has_count else [])
    n = len(head)

    def loop_cond(*values: Any) -> Any:
        set_state(tuple(values[n:]))
        return test(values[0] if has_index else None)

    def loop_body(*values: Any) -> tuple:
        i = values[0] if has_index else None
        set_state(tuple(values[n:]))
        body(i)
        state = get_state()
        for name, value in zip(names, state, strict=True):
            if isinstance(value, Undefined):   # e.g. `del x` in the body (TF: ValueError)
                raise ValueError(f"'{name}' is undefined at the end of the loop body: a "
                                 "loop variable must keep a value in every iteration")
        new = [nest.map_structure(_as_tensor, v) for v in state]
        _check_iteration(init, new, names, shapes)
        new_head = ([i + index[1]] if has_index else []) + \
            ([values[n - 1] + 1] if has_count else [])
        return tuple(new_head) + tuple(new)

    loop_vars = tuple(head) + tuple(init)
    invariants = None
    if any(shape is not None for shape in shapes):
        invariants = tuple(t.shape for t in head) + tuple(
            nest.map_structure(_shape_of, v) if shape is None else shape
            for v, shape in zip(init, shapes, strict=True))
    outs = while_loop(loop_cond, loop_body, loop_vars, shape_invariants=invariants,
                      maximum_iterations=opts.get("maximum_iterations"))
    final = list(outs[n:])
    if guessed:
        check = Assert(outs[n - 1] > 0, [
            f"loop must iterate at least once to initialize {', '.join(guessed)}"])
        with control_dependencies([check]):
            final = [nest.map_structure(array_ops.identity, v) for v in final]
    set_state(tuple(final))


def _initial_values(init: List[Any], names: Sequence[str], get_state: Callable[[], tuple],
                    set_state: Callable[[tuple], None], probe: Callable[[], None]) -> List[Any]:
    """Loop variables as tensors; undefined ones take the dtype and shape the body gives
    them (traced once in a scratch graph), starting from zeros, as TF's AutoGraph does.
    The function's return value is one of them when a `return` sits in the loop: TF
    accepts it when the body always sets it (e.g. under a static Python condition)."""
    undefined = [k for k, v in enumerate(init) if _to_guess(v)]
    values = [v if k in undefined else nest.map_structure(_as_tensor, v)
              for k, v in enumerate(init)]
    if not undefined:
        return values
    scratch = FuncGraph("autograph_loop_probe", outer_graph=_state.graph)
    failure: Optional[BaseException] = None
    with tracing(scratch):
        set_state(tuple(v if k in undefined else nest.map_structure(_placeholder_of(scratch), v)
                        for k, v in enumerate(values)))
        try:
            probe()
        except Exception as error:  # noqa: BLE001 - reported as TF's "must be defined"
            failure = error
        after = get_state()
    set_state(tuple(init))
    for k in undefined:
        if isinstance(init[k], UndefinedReturnValue):
            _check_return_value(None if failure is not None else after[k])
        found = None if failure is not None else after[k]
        leaves = nest.flatten(found) if found is not None else []
        if not leaves or not all(isinstance(t, Tensor) and t.shape.is_fully_defined()
                                 for t in leaves):
            note = "" if failure is None else (
                f"\nNote: AutoGraph tried to define it automatically, but ran into a "
                f"{type(failure).__name__}: {failure}")
            raise ValueError(f"'{names[k]}' must be defined before the loop{note}")
        values[k] = nest.map_structure(
            lambda t: array_ops.zeros(t.shape.as_list(), t.dtype), found)
    return values


def _to_guess(value: Any) -> bool:
    """A loop variable without a value yet, whose dtype and shape the body decides."""
    return isinstance(value, (Undefined, UndefinedReturnValue)) or value is None


def _check_return_value(value: Any) -> None:
    """TF's classes for a return value the loop body does not define as a tensor: none
    set (a return under a tensor condition, or a bare `return`) NotImplementedError; the
    body leaves it unset ValueError."""
    if value is None or not isinstance(value, UndefinedReturnValue) and not all(
            isinstance(t, Tensor) for t in nest.flatten(value)):
        raise NotImplementedError(
            "a return statement cannot be placed inside this TensorFlow loop; this may "
            "happen if a return statement depends on a static Python condition such as "
            "a hyperparameter")
    if isinstance(value, UndefinedReturnValue):
        raise ValueError("the return value from a TensorFlow loop may only be a Tensor, int, "
                         "float, bool or a list, tuple or dict of them; the loop body did "
                         "not set it")


def _placeholder_of(graph: FuncGraph) -> Callable[[Any], Any]:
    def placeholder(value: Any) -> Any:
        if isinstance(value, Tensor):
            return graph.add_input(value.dtype, value.shape, "probe")
        return value
    return placeholder


def _shape_invariants(state: List[Any], pairs: Sequence[Any]) -> List[Any]:
    """Per loop variable, the shape set_loop_options gave it (matched by identity)."""
    shapes: List[Any] = [None] * len(state)
    for value, shape in pairs:
        for k, current in enumerate(state):
            if current is value:
                shapes[k] = as_shape(shape)
    return shapes


def _shape_of(value: Any) -> Any:
    return value.shape if isinstance(value, Tensor) else TensorShape(None)


def _check_iteration(before: List[Any], after: List[Any], names: Sequence[str],
                     shapes: Sequence[Any]) -> None:
    for name, a, b, invariant in zip(names, before, after, shapes, strict=True):
        try:
            nest.assert_same_structure(a, b)
        except ValueError as error:
            raise TypeError(f"'{name}' does not have the same nested structure after one "
                            f"iteration.\n\n{error}") from None
        for x, y in zip(nest.flatten(a), nest.flatten(b), strict=True):
            if not isinstance(x, Tensor) or not isinstance(y, Tensor):
                continue
            if x.dtype != y.dtype:
                raise TypeError(f"'{name}' has dtype {x.dtype.name} before the loop, but dtype "
                                f"{y.dtype.name} after one iteration")
            if not (x.shape if invariant is None else invariant).is_compatible_with(y.shape):
                raise ValueError(f"'{name}' has shape {x.shape} before the loop, but shape "
                                 f"{y.shape} after one iteration. Use "
                                 "dg.autograph.experimental.set_loop_options to set shape "
                                 "invariants.")


def set_loop_options(parallel_iterations: Any = None, swap_memory: Any = None,
                     maximum_iterations: Any = None, shape_invariants: Any = None) -> None:
    """Options of the enclosing loop (`shape_invariants`: [(variable, shape)],
    `maximum_iterations`), read by AutoGraph from the loop body; a no-op when run."""


# -- builtins that take tensors ----------------------------------------------------
def range_(*args: Any) -> Any:
    """Python's range; `dg.range` when an argument is a tensor being traced."""
    if _state.graph is not None and any(is_tensor(a) for a in args):
        return tensor_range(*args)
    return builtins.range(*args)


def len_(value: Any) -> Any:
    """len(); a graph tensor's static first dimension, else its dynamic one."""
    if isinstance(value, TensorArray):
        return value.size()
    if _state.graph is not None and is_tensor(value):
        value = convert_to_tensor(value)
        if value.shape.rank == 0:
            raise ValueError(f"len requires a non-scalar tensor, got one of shape {value.shape}")
        if value.shape.rank is not None and value.shape.as_list()[0] is not None:
            return value.shape.as_list()[0]
        return array_ops.shape(value)[0]
    return len(value)


def int_(value: Any = 0, *base: Any) -> Any:
    """int(); a graph tensor is cast to int32, as TF's AutoGraph does."""
    if _staged(value) and not base:
        return math_ops.cast(value, dtypes.int32)
    return int(value, *base)


def float_(value: Any = 0.0) -> Any:
    """float(); a graph tensor is cast to float32, as TF's AutoGraph does."""
    if _staged(value):
        return math_ops.cast(value, dtypes.float32)
    return float(value)


BUILTIN_OVERRIDES = ((builtins.range, range_), (builtins.len, len_), (builtins.int, int_),
                     (builtins.float, float_))
