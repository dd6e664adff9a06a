"""The bad-input table: public entry points x bad values, in eager and graph mode.

One table serves duograd (tests/ops/test_bad_input.py) and TensorFlow
(tests/tf_reference/gen_bad_input.py records TF's outcome of every case into
bad_input_reference.py). A case is a function of an `Api` (TF's or ours) that
makes one call; its outcome is "ok" or the name of the exception class raised
("errors.X" for the framework's own error classes).

Generated cases: every public function that both libraries have in the top
level, `math`, `nn` and `linalg` namespaces is called with bad values in each
argument position (None, strings, Ellipsis, objects, ragged lists, tensors of
the wrong dtype or shape, graph tensors used eagerly or in another graph) in
eager mode and while building a graph (a graph that builds is also run).
Hand-written cases cover sessions (unknown feed and fetch names, bad feeds),
name scopes, variables, tapes, TensorArrays and control flow.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

# Functions left out of the generated cases: global state, or no tensor arguments.
SKIP = {
    "set_seed", "reset_default_graph", "get_default_graph", "get_default_session",
    "executing_eagerly", "global_variables", "trainable_variables",
    "global_variables_initializer", "no_op", "group", "name_scope", "device",
    "control_dependencies", "function", "custom_gradient", "recompute_grad",
    "numpy_function", "py_function", "gradient_override_map", "RegisterGradient",
    "NotDifferentiable", "get_gradient_function", "print", "vectorized_map", "while_loop",
    "cond", "gradients", "hessians", "hessian_vector_product", "placeholder",
    "placeholder_with_default", "dropout", "random_normal", "normal", "uniform",
    "truncated_normal", "shuffle", "variables_initializer", "is_tensor", "tuple",
    "grad_pass_through", "identity_n", "as_dtype", "meshgrid",
}
SPACES = ("", "math", "nn", "linalg")


class Api:
    """The few names a case needs, for TF or for duograd."""

    def __init__(self, lib: Any, errors: Any, placeholder: Callable, session: Callable) -> None:
        self.lib = lib
        self.errors = errors
        self.placeholder = placeholder
        self.Session = session


def outcome(api: Api, call: Callable[[Api], Any]) -> str:
    """'ok', or the class name of what `call(api)` raised."""
    try:
        with np.errstate(all="ignore"):
            call(api)
    except Exception as error:  # noqa: BLE001 - the class is the result
        cls = type(error)
        if getattr(api.errors, cls.__name__, None) is cls:
            return "errors." + cls.__name__
        if cls.__module__ == "builtins":
            return cls.__name__
        return f"{cls.__module__}.{cls.__name__}"
    return "ok"


# -- arguments ----------------------------------------------------------------------------
def _float(api: Api) -> Any:
    return api.lib.constant([[1.0, 2.0], [3.0, 4.0]])


BAD_VALUES: Dict[str, Callable[[Api], Any]] = {
    "none": lambda api: None,
    "str": lambda api: "abc",
    "ellipsis": lambda api: ...,
    "object": lambda api: object(),
    "ragged": lambda api: [[1.0], [2.0, 3.0]],
    "dict": lambda api: {"a": 1},
    "int_tensor": lambda api: api.lib.constant([[1, 2], [3, 4]]),
    "bool_tensor": lambda api: api.lib.constant([[True, False], [False, True]]),
    "complex_tensor": lambda api: api.lib.constant([[1j, 2.0], [3.0, 4.0]]),
    "f64_tensor": lambda api: api.lib.constant([[1.0, 2.0], [3.0, 4.0]], dtype=api.lib.float64),
    "wrong_shape": lambda api: api.lib.constant([1.0, 2.0, 3.0]),
    "empty": lambda api: api.lib.zeros([0]),
    "axis_out_of_range": lambda api: 7,
    "negative": lambda api: -3,
    # a scalar where an axis may be asked of it (ZeroDivisionError for `a % rank`), an
    # int beyond int64 (OverflowError). Huge shapes are hand-written cases, eager only:
    # TF's allocator retries an OOM for a minute, and a graph run of one can hang.
    "scalar_tensor": lambda api: api.lib.constant(3.0),
    "int64_overflow": lambda api: 2**63,
}
POSITIONS = ("first", "second")


def _graph_tensor(api: Api) -> Any:
    """A placeholder of a graph that is not the one being built (or eager mode's)."""
    with api.lib.Graph().as_default():
        return api.placeholder(api.lib.float32, [2, 2])


def _generated_call(fn_getter: Callable[[Api], Any], position: str,
                    bad: Callable[[Api], Any], graph: bool) -> Callable[[Api], Any]:
    def call(api: Api) -> Any:
        fn = fn_getter(api)
        if not graph:
            args = [bad(api)] if position == "first" else [_float(api), bad(api)]
            return fn(*args)
        g = api.lib.Graph()
        with g.as_default():
            x = api.placeholder(api.lib.float32, [2, 2])
            args = [bad(api)] if position == "first" else [x, bad(api)]
            out = fn(*args)
            fetches = [t for t in (out if isinstance(out, (list, tuple)) else [out])
                       if isinstance(t, (api.lib.Tensor, api.lib.Operation))]
            if fetches:
                with api.Session(graph=g) as sess:
                    sess.run(fetches, {x: np.ones((2, 2), np.float32)})
        return out
    return call


def _getter(space: str, name: str) -> Callable[[Api], Any]:
    def get(api: Api) -> Any:
        module = getattr(api.lib, space) if space else api.lib
        return getattr(module, name)
    return get


def _public_functions(lib: Any, space: str) -> List[str]:
    module = getattr(lib, space) if space else lib
    names = []
    for name in dir(module):
        if name.startswith("_") or name in SKIP:
            continue
        value = getattr(module, name, None)
        if callable(value) and not inspect.isclass(value) and not inspect.ismodule(value):
            names.append(name)
    return names


def shared_functions(dg: Any, other: Any = None) -> List[Tuple[str, str]]:
    """(namespace, name) of the public functions to try (those of `dg`; the TF
    generator passes TF as `other` and keeps the names both have)."""
    found = []
    for space in SPACES:
        names = set(_public_functions(dg, space))
        if other is not None:
            names &= set(_public_functions(other, space))
        found.extend((space, n) for n in sorted(names))
    return found


def generated_cases(functions: List[Tuple[str, str]]) -> Dict[str, Callable[[Api], Any]]:
    cases: Dict[str, Callable[[Api], Any]] = {}
    for space, name in functions:
        label = f"{space}.{name}" if space else name
        for position in POSITIONS:
            for bad_name, bad in BAD_VALUES.items():
                for graph in (False, True):
                    key = f"{label}({position}={bad_name}){'@graph' if graph else ''}"
                    cases[key] = _generated_call(_getter(space, name), position, bad, graph)
        for graph in (False, True):  # a graph tensor used eagerly / in another graph
            cases[f"{label}(first=foreign_graph_tensor){'@graph' if graph else ''}"] = \
                _generated_call(_getter(space, name), "first", _graph_tensor, graph)
    return cases


# -- hand-written cases -----------------------------------------------------------------------
def _session_case(body: Callable[[Api, Any, Any, Any], Any]) -> Callable[[Api], Any]:
    """body(api, session, placeholder x [2] float32, y = 2 * x) inside a graph."""
    def call(api: Api) -> Any:
        g = api.lib.Graph()
        with g.as_default():
            x = api.placeholder(api.lib.float32, [2], name="x")
            y = api.lib.multiply(x, 2.0, name="y")
            with api.Session(graph=g) as sess:
                return body(api, sess, x, y)
    return call


def _in_graph(body: Callable[[Api], Any]) -> Callable[[Api], Any]:
    def call(api: Api) -> Any:
        with api.lib.Graph().as_default():
            return body(api)
    return call


def _closed_session(api: Api) -> Any:
    g = api.lib.Graph()
    with g.as_default():
        y = api.lib.constant(1.0)
        sess = api.Session(graph=g)
        sess.close()
        return sess.run(y)


def _tape_twice(api: Api) -> Any:
    x = api.lib.constant(1.0)
    with api.lib.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    return tape.gradient(y, x)


def _tensor_array_read_past_end(api: Api) -> Any:
    ta = api.lib.TensorArray(api.lib.float32, size=2)
    ta = ta.write(0, 1.0).write(1, 2.0)
    return ta.read(5)


def _graph_tensor_array_read_past_end(api: Api) -> Any:
    g = api.lib.Graph()
    with g.as_default():
        ta = api.lib.TensorArray(api.lib.float32, size=2)
        ta = ta.write(0, 1.0).write(1, 2.0)
        out = ta.read(5)
        with api.Session(graph=g) as sess:
            return sess.run(out)


def _symbolic_numpy(api: Api) -> Any:
    with api.lib.Graph().as_default():
        x = api.placeholder(api.lib.float32, [2])
    return x.numpy()


def _variable_in_graph_read_eagerly(api: Api) -> Any:
    with api.lib.Graph().as_default():
        v = api.lib.Variable(1.0)
    return v + 1.0


def _gradients_of_other_graph(api: Api) -> Any:
    with api.lib.Graph().as_default():
        x = api.placeholder(api.lib.float32, [2])
    with api.lib.Graph().as_default():
        y = api.lib.constant([1.0, 2.0])
        return api.lib.gradients(y, [x])


HAND_WRITTEN: Dict[str, Callable[[Api], Any]] = {
    "Session.run(unknown tensor name)": _session_case(lambda a, s, x, y: s.run("nope:0")),
    "Session.run(unknown op name)": _session_case(lambda a, s, x, y: s.run("nope")),
    "Session.run(None)": _session_case(lambda a, s, x, y: s.run(None)),
    "Session.run(int fetch)": _session_case(lambda a, s, x, y: s.run(3)),
    "Session.run([y, None])": _session_case(lambda a, s, x, y: s.run([y, None], {x: [1, 2]})),
    "Session.run(object fetch)": _session_case(lambda a, s, x, y: s.run(object())),
    "Session.run(unfed placeholder)": _session_case(lambda a, s, x, y: s.run(y)),
    "Session.run(feed unknown name)": _session_case(
        lambda a, s, x, y: s.run(y, {"nope:0": [1.0, 2.0]})),
    "Session.run(feed op name)": _session_case(lambda a, s, x, y: s.run(y, {"x": [1.0, 2.0]})),
    "Session.run(feed by name)": _session_case(lambda a, s, x, y: s.run(y, {"x:0": [1.0, 2.0]})),
    "Session.run(feed wrong shape)": _session_case(lambda a, s, x, y: s.run(y, {x: [1.0]})),
    "Session.run(feed string)": _session_case(lambda a, s, x, y: s.run(y, {x: ["a", "b"]})),
    "Session.run(feed None)": _session_case(lambda a, s, x, y: s.run(y, {x: None})),
    "Session.run(feed ragged)": _session_case(lambda a, s, x, y: s.run(y, {x: [[1.0], [2, 3]]})),
    "Session.run(feed complex)": _session_case(lambda a, s, x, y: s.run(y, {x: [1j, 2j]})),
    "Session.run(feed int key)": _session_case(lambda a, s, x, y: s.run(y, {3: [1.0, 2.0]})),
    "Session.run(feed object key)": _session_case(
        lambda a, s, x, y: s.run(y, {object(): [1.0, 2.0]})),
    "Session.run(feed a tensor value)": _session_case(
        lambda a, s, x, y: s.run(y, {x: a.lib.constant([1.0, 2.0])})),
    "Session.run(fetch tensor of other graph)": _session_case(
        lambda a, s, x, y: s.run(_graph_tensor(a))),
    "Session.run(feed tensor of other graph)": _session_case(
        lambda a, s, x, y: s.run(y, {_graph_tensor(a): np.ones((2, 2))})),
    "Session.run(bad fetch structure)": _session_case(lambda a, s, x, y: s.run({"a": [1.5]})),
    "Session.run(closed)": _closed_session,
    "name_scope(3)": lambda api: api.lib.name_scope(3).__enter__(),
    "name_scope(None)": lambda api: api.lib.name_scope(None).__enter__(),
    "name_scope(object)": lambda api: api.lib.name_scope(object()).__enter__(),
    "name_scope(3)@graph": _in_graph(lambda api: api.lib.name_scope(3).__enter__()),
    "name_scope('a b!')@graph": _in_graph(lambda api: api.lib.name_scope("a b!").__enter__()),
    "Variable(None)": lambda api: api.lib.Variable(None),
    "Variable('abc')": lambda api: api.lib.Variable("abc") + 1.0,
    "Variable(object)": lambda api: api.lib.Variable(object()),
    "Variable.assign(wrong shape)": lambda api: api.lib.Variable([1.0, 2.0]).assign([1.0]),
    "Variable.assign(wrong dtype)": lambda api: api.lib.Variable([1.0, 2.0]).assign([1, 2]),
    "Variable.assign(None)": lambda api: api.lib.Variable([1.0, 2.0]).assign(None),
    "Variable.assign_add(str)": lambda api: api.lib.Variable([1.0, 2.0]).assign_add("a"),
    "Variable(graph) used eagerly": _variable_in_graph_read_eagerly,
    "SymbolicTensor.numpy()": _symbolic_numpy,
    "symbolic tensor in eager op": lambda api: api.lib.add(_graph_tensor(api), 1.0),
    "gradients(other graph xs)": _gradients_of_other_graph,
    "gradients eager": lambda api: api.lib.gradients(api.lib.constant(1.0),
                                                     [api.lib.constant(1.0)]),
    "gradients(None)@graph": _in_graph(lambda api: api.lib.gradients(None, [api.lib.constant(
        1.0)])),
    "gradients(str)@graph": _in_graph(lambda api: api.lib.gradients("abc", [api.lib.constant(
        1.0)])),
    "tape.gradient twice": _tape_twice,
    "tape.watch(str)": lambda api: api.lib.GradientTape().__enter__().watch("abc"),
    "tape.gradient(None, x)": lambda api: api.lib.GradientTape().gradient(
        None, api.lib.constant(1.0)),
    "TensorArray.read past end": _tensor_array_read_past_end,
    "TensorArray.read past end@graph": _graph_tensor_array_read_past_end,
    "TensorArray(size=-1)": lambda api: api.lib.TensorArray(api.lib.float32, size=-1).stack(),
    "TensorArray(dtype None)": lambda api: api.lib.TensorArray(None, size=1),
    "TensorArray.write wrong dtype": lambda api: api.lib.TensorArray(
        api.lib.float32, size=1).write(0, api.lib.constant([1, 2])),
    "constant(shape mismatch)": lambda api: api.lib.constant([1.0, 2.0], shape=[3]),
    "constant(str as float)": lambda api: api.lib.constant("abc", dtype=api.lib.float32),
    "constant(object)": lambda api: api.lib.constant(object()),
    "constant(ragged)": lambda api: api.lib.constant([[1.0], [2.0, 3.0]]),
    "constant(float as int)": lambda api: api.lib.constant(1.5, dtype=api.lib.int32),
    "constant(overflow int32)": lambda api: api.lib.constant(2**40, dtype=api.lib.int32),
    "convert_to_tensor(object)": lambda api: api.lib.convert_to_tensor(object()),
    "convert_to_tensor(None)": lambda api: api.lib.convert_to_tensor(None),
    "convert_to_tensor(dtype mismatch)": lambda api: api.lib.convert_to_tensor(
        api.lib.constant(1.0), dtype=api.lib.int32),
    "cond(None)": lambda api: api.lib.cond(None, lambda: 1.0, lambda: 2.0),
    "cond(non-callable)": lambda api: api.lib.cond(True, 1.0, 2.0),
    "cond(vector pred)@graph": _in_graph(lambda api: api.lib.cond(
        api.lib.constant([True, False]), lambda: 1.0, lambda: 2.0)),
    "cond(branch structures differ)@graph": _in_graph(lambda api: api.lib.cond(
        api.placeholder(api.lib.bool, []), lambda: (1.0, 2.0), lambda: 1.0)),
    "while_loop(non-callable)": lambda api: api.lib.while_loop(True, lambda i: i, [0]),
    "while_loop(shape change)@graph": _in_graph(lambda api: api.lib.while_loop(
        lambda x: api.lib.reduce_sum(x) < 10.0, lambda x: api.lib.concat([x, x], 0),
        [api.lib.constant([1.0])])),
    "reshape(bad size)": lambda api: api.lib.reshape(api.lib.constant([1.0, 2.0]), [3]),
    "reshape(bad size)@graph": _in_graph(lambda api: api.lib.reshape(
        api.lib.constant([1.0, 2.0]), [3])),
    "reshape(fed bad size)": _session_case(lambda a, s, x, y: s.run(
        a.lib.reshape(x, [3]), {x: [1.0, 2.0]})),
    "matmul(shape mismatch)": lambda api: api.lib.matmul(api.lib.ones([2, 3]),
                                                         api.lib.ones([2, 3])),
    "matmul(fed shape mismatch)": _session_case(lambda a, s, x, y: s.run(
        a.lib.matmul(a.lib.reshape(x, [1, 2]), a.lib.reshape(x, [1, 2])), {x: [1.0, 2.0]})),
    "gather(index out of range)": lambda api: api.lib.gather(api.lib.constant([1.0, 2.0]), [5]),
    "gather(fed index out of range)": _session_case(lambda a, s, x, y: s.run(
        a.lib.gather(x, [5]), {x: [1.0, 2.0]})),
    "add(fed shape mismatch)": _session_case(lambda a, s, x, y: s.run(
        a.lib.add(x, a.lib.ones([3])), {x: [1.0, 2.0]})),
    "one_hot(depth str)": lambda api: api.lib.one_hot([0, 1], "abc"),
    "zeros(negative dim)": lambda api: api.lib.zeros([-2]),
    "zeros(str shape)": lambda api: api.lib.zeros("abc"),
    "range(str)": lambda api: api.lib.range("abc"),
    "range(delta 0)": lambda api: api.lib.range(0, 5, 0),
    "split(uneven)": lambda api: api.lib.split(api.lib.constant([1.0, 2.0, 3.0]), 2),
    "reduce_sum(axis str)": lambda api: api.lib.reduce_sum(api.lib.constant([1.0]), axis="a"),
    "cast(str dtype)": lambda api: api.lib.cast(api.lib.constant(1.0), "abc"),
    "nn.softmax(scalar)": lambda api: api.lib.nn.softmax(api.lib.constant(1.0)),
    "linalg.inv(singular)": lambda api: api.lib.linalg.inv(api.lib.zeros([2, 2])),
    "linalg.cholesky(not PD)": lambda api: api.lib.linalg.cholesky(-api.lib.eye(2)),
}


def _fed_scalar(body: Callable[[Api, Any], Any]) -> Callable[[Api], Any]:
    """body(api, p) on a float32 placeholder of unknown shape, run with p = 3.0."""
    def call(api: Api) -> Any:
        g = api.lib.Graph()
        with g.as_default():
            p = api.placeholder(api.lib.float32, None)
            out = body(api, p)
            with api.Session(graph=g) as sess:
                return sess.run(out, {p: 3.0})
    return call


def _tape_call(method: str, source: Callable[[Api, Any], Any]) -> Callable[[Api], Any]:
    """tape.<method>(y, source(api, x)) for y = 2x, x of shape [1, 2]."""
    def call(api: Api) -> Any:
        x = api.lib.constant([[1.0, 2.0]])
        with api.lib.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * 2.0
        return getattr(tape, method)(y, source(api, x))
    return call


def _scalar(api: Api) -> Any:
    return api.lib.constant(3.0)


# The Python-internal errors (ZeroDivisionError, IndexError, MemoryError,
# OverflowError, AttributeError), each in the modes where it occurred.
HAND_WRITTEN.update({
    "gather(scalar params, axis=0)": lambda api: api.lib.gather(_scalar(api), 0, axis=0),
    "gather(scalar params, axis=-1)": lambda api: api.lib.gather(_scalar(api), [0], axis=-1),
    "gather(scalar params, axis=0)@graph": _in_graph(
        lambda api: api.lib.gather(_scalar(api), 0, axis=0)),
    "gather(scalar params, batch_dims=1)@graph": _in_graph(
        lambda api: api.lib.gather(_scalar(api), [0], batch_dims=1)),
    "gather(fed scalar params)": _fed_scalar(lambda api, p: api.lib.gather(p, [0], axis=0)),
    "gather(batch_dims too large)": lambda api: api.lib.gather(
        api.lib.ones([2, 3]), [[0], [1]], axis=1, batch_dims=3),
    "gather(batch dims differ)": lambda api: api.lib.gather(
        api.lib.ones([2, 3]), [[0], [1], [2]], axis=1, batch_dims=1),
    "reverse(scalar, [0])": lambda api: api.lib.reverse(_scalar(api), [0]),
    "reverse(scalar, [-1])": lambda api: api.lib.reverse(_scalar(api), [-1]),
    "reverse(scalar, [0])@graph": _in_graph(lambda api: api.lib.reverse(_scalar(api), [0])),
    "reverse(fed scalar, [0])": _fed_scalar(lambda api, p: api.lib.reverse(p, [0])),
    "squeeze(scalar, [0])": lambda api: api.lib.squeeze(_scalar(api), [0]),
    "squeeze(scalar, -1)@graph": _in_graph(lambda api: api.lib.squeeze(_scalar(api), -1)),
    "squeeze(fed scalar, [0])": _fed_scalar(lambda api, p: api.lib.squeeze(p, [0])),
    "expand_dims(fed scalar, 3)": _fed_scalar(lambda api, p: api.lib.expand_dims(p, 3)),
    "scatter_nd(scalar indices)": lambda api: api.lib.scatter_nd(0, [1.0], [3]),
    "scatter_nd(scalar indices)@graph": _in_graph(
        lambda api: api.lib.scatter_nd(0, [1.0], [3])),
    "scatter_nd(scalar updates)": lambda api: api.lib.scatter_nd([0], 1.0, [3]),
    "scatter_nd(scalar updates)@graph": _in_graph(
        lambda api: api.lib.scatter_nd([0], 1.0, [3])),
    "tensor_scatter_nd_update(scalar indices)": lambda api: api.lib.tensor_scatter_nd_update(
        api.lib.zeros([3]), 0, 1.0),
    "tensor_scatter_nd_update(scalar indices)@graph": _in_graph(
        lambda api: api.lib.tensor_scatter_nd_update(api.lib.zeros([3]), 0, 1.0)),
    "tensor_scatter_nd_update(scalar updates)": lambda api: api.lib.tensor_scatter_nd_update(
        api.lib.zeros([3]), [[0]], 1.0),
    "zeros(2**62 elements)": lambda api: api.lib.zeros([2**62]),
    "zeros(over 2**63 elements)": lambda api: api.lib.zeros([2**40, 2**40]),
    "zeros([2**63])": lambda api: api.lib.zeros([2**63]),
    "ones(10**12)": lambda api: api.lib.ones([10**12]),
    "ones(10**12, int32)": lambda api: api.lib.ones([10**12], api.lib.int32),
    "fill(10**12)": lambda api: api.lib.fill([10**12], 1.0),
    "range(10**12)": lambda api: api.lib.range(10**12),
    "range(0., 1e12)": lambda api: api.lib.range(0.0, 1e12),
    "range(0., inf)": lambda api: api.lib.range(0.0, float("inf")),
    "range(0., nan)": lambda api: api.lib.range(0.0, float("nan")),
    "range(2**63)": lambda api: api.lib.range(2**63),
    "tile(x, [2**40])": lambda api: api.lib.tile(api.lib.zeros([3]), [2**40]),
    "broadcast_to(x, [2**40, 3])": lambda api: api.lib.broadcast_to(api.lib.zeros([3]),
                                                                     [2**40, 3]),
    "eye(2**20)": lambda api: api.lib.eye(2**20),
    "slice(size 2**63)": lambda api: api.lib.slice(api.lib.zeros([3]), [0], [2**63]),
    "slice(begin 2**40)": lambda api: api.lib.slice(api.lib.zeros([3]), [2**40], [1]),
    "expand_dims(x, 2**63)": lambda api: api.lib.expand_dims(api.lib.zeros([3]), 2**63),
    "expand_dims(x, 2**31)": lambda api: api.lib.expand_dims(api.lib.zeros([3]), 2**31),
    "constant(2**63)": lambda api: api.lib.constant(2**63),
    "constant(2**64)@graph": _in_graph(lambda api: api.lib.constant(2**64)),
    "add(int32, 2**63)": lambda api: api.lib.add(api.lib.constant(1), 2**63),
    "tape.jacobian(y, str)": _tape_call("jacobian", lambda api, x: "a"),
    "tape.jacobian(y, int)": _tape_call("jacobian", lambda api, x: 3),
    "tape.jacobian(y, None)": _tape_call("jacobian", lambda api, x: None),
    "tape.jacobian(y, [x, str])": _tape_call("jacobian", lambda api, x: [x, "a"]),
    "tape.batch_jacobian(y, str)": _tape_call("batch_jacobian", lambda api, x: "a"),
    "tape.batch_jacobian(y, int)": _tape_call("batch_jacobian", lambda api, x: 3),
    "tape.gradient(y, int)": _tape_call("gradient", lambda api, x: 3),
    "tape.gradient(y, None)": _tape_call("gradient", lambda api, x: None),
})


def all_cases(dg: Any, functions: List[Tuple[str, str]]) -> Dict[str, Callable[[Api], Any]]:
    cases = dict(HAND_WRITTEN)
    cases.update(generated_cases(functions))
    return cases
