"""duograd's variants of each workload: eager (GradientTape), graph (Graph +
dg.gradients + Session) and dg.function (with a tape or dg.gradients inside).

A variant whose API is missing raises NotAvailable and is skipped with a note.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

import duograd as dg

from .floor import chain
from .harness import NotAvailable, Variant

F64 = dg.float64


def _api(path: str) -> Any:
    """dg.<path> (dotted), or NotAvailable naming it."""
    obj: Any = dg
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise NotAvailable(f"dg.{path} not available")
    return obj


def _session_step(build: Callable[[], Tuple[dict, Any]]) -> Callable[[], Any]:
    """Builds a graph once; the step is one Session.run of its fetches."""
    graph = dg.Graph()
    with graph.as_default():
        feeds, fetches = build()
    session = dg.Session(graph=graph)
    return lambda: session.run(fetches, feeds)


def _function_step(body: Callable, args: List[Any]) -> Callable[[], Any]:
    """dg.function(body) called on eager `args` (traced on the warm-up call)."""
    fn = _api("function")(body)
    return lambda: fn(*args)


# -- the chain: W1, W5, W6 ------------------------------------------------------
def _chain_value(x: Any, n_ops: int) -> Any:
    return dg.reduce_sum(chain(x, n_ops, dg.sin, dg.tanh))


def chain_eager(data: dict) -> Callable[[], Any]:
    x = dg.constant(data["x"])
    n_ops = data["n_ops"]

    def step():
        with dg.GradientTape() as tape:
            tape.watch(x)
            value = _chain_value(x, n_ops)
        return value, tape.gradient(value, x)
    return step


def chain_session(data: dict) -> Callable[[], Any]:
    def build():
        x = dg.placeholder(F64, data["x"].shape)
        value = _chain_value(x, data["n_ops"])
        return {x: data["x"]}, [value, dg.gradients(value, x)[0]]
    return _session_step(build)


def chain_function_tape(data: dict) -> Callable[[], Any]:
    n_ops = data["n_ops"]

    def body(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            value = _chain_value(x, n_ops)
        return value, tape.gradient(value, x)
    return _function_step(body, [dg.constant(data["x"])])


def chain_function_gradients(data: dict) -> Callable[[], Any]:
    n_ops = data["n_ops"]

    def body(x):
        value = _chain_value(x, n_ops)
        return value, dg.gradients(value, x)[0]
    return _function_step(body, [dg.constant(data["x"])])


def chain_graph_oneshot(data: dict) -> Any:
    """W5 graph: build, gradients and run, all timed."""
    return chain_session(data)()


def chain_function_oneshot(data: dict) -> Any:
    """W5 dg.function: trace (with dg.gradients inside) and run, all timed."""
    return chain_function_gradients(data)()


# -- W2: MLP step ----------------------------------------------------------------
def _cross_entropy(labels: Any, logits: Any) -> Any:
    nn = getattr(dg, "nn", None)
    fused = getattr(nn, "softmax_cross_entropy_with_logits", None)
    if fused is not None:
        return fused(labels=labels, logits=logits)
    # Composite fallback while dg.nn is missing: logsumexp(logits) - <labels, logits>.
    shift = dg.stop_gradient(dg.reduce_max(logits, axis=1, keepdims=True))
    shifted = logits - shift
    lse = dg.log(dg.reduce_sum(dg.exp(shifted), axis=1))
    return lse - dg.reduce_sum(labels * shifted, axis=1)


def _mlp_loss(x: Any, labels: Any, params: List[Any]) -> Any:
    w1, b1, w2, b2, w3, b3 = params
    h1 = dg.tanh(dg.matmul(x, w1) + b1)
    h2 = dg.tanh(dg.matmul(h1, w2) + b2)
    logits = dg.matmul(h2, w3) + b3
    return dg.reduce_mean(_cross_entropy(labels, logits))


def cross_entropy_note() -> str:
    nn = getattr(dg, "nn", None)
    if getattr(nn, "softmax_cross_entropy_with_logits", None) is not None:
        return ""
    return "dg.nn.softmax_cross_entropy_with_logits missing: composite CE"


def mlp_eager(data: dict) -> Callable[[], Any]:
    x, labels = dg.constant(data["x"]), dg.constant(data["labels"])
    params = [dg.constant(p) for p in data["params"]]

    def step():
        with dg.GradientTape() as tape:
            tape.watch(params)
            loss = _mlp_loss(x, labels, params)
        return loss, tape.gradient(loss, params)
    return step


def mlp_session(data: dict) -> Callable[[], Any]:
    def build():
        values = [data["x"], data["labels"]] + list(data["params"])
        holders = [dg.placeholder(F64, v.shape) for v in values]
        params = holders[2:]
        loss = _mlp_loss(holders[0], holders[1], params)
        return dict(zip(holders, values)), [loss, dg.gradients(loss, params)]
    return _session_step(build)


def mlp_function_tape(data: dict) -> Callable[[], Any]:
    def body(x, labels, *params):
        params = list(params)
        with dg.GradientTape() as tape:
            tape.watch(params)
            loss = _mlp_loss(x, labels, params)
        return loss, tape.gradient(loss, params)
    args = [dg.constant(v) for v in [data["x"], data["labels"]] + list(data["params"])]
    return _function_step(body, args)


def mlp_function_gradients(data: dict) -> Callable[[], Any]:
    def body(x, labels, *params):
        loss = _mlp_loss(x, labels, list(params))
        return loss, dg.gradients(loss, list(params))
    args = [dg.constant(v) for v in [data["x"], data["labels"]] + list(data["params"])]
    return _function_step(body, args)


# -- W3: full Hessian -------------------------------------------------------------
def _hessian_f(x: Any, a: Any, b: Any, n: int) -> Any:
    col = dg.reshape(x, [n, 1])
    quad = dg.reduce_sum(col * dg.matmul(b, col)) * 0.5
    return dg.reduce_sum(dg.square(dg.tanh(dg.matmul(a, col)))) + quad


def _hessian_consts(data: dict):
    return dg.constant(data["A"]), dg.constant(data["B"]), dg.constant(data["x"])


def hessian_tape(data: dict) -> Callable[[], Any]:
    a, b, x = _hessian_consts(data)
    n = data["n"]
    if not hasattr(dg.GradientTape, "hessian"):
        raise NotAvailable("GradientTape.hessian not available")

    def step():
        with dg.GradientTape(persistent=True) as tape:
            tape.watch(x)
            f = _hessian_f(x, a, b, n)
        return tape.hessian(f, x)
    return step


def _nested_jacobian(x: Any, a: Any, b: Any, n: int) -> Any:
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            f = _hessian_f(x, a, b, n)
        g = inner.gradient(f, x)
    return outer.jacobian(g, x)


def hessian_nested(data: dict) -> Callable[[], Any]:
    a, b, x = _hessian_consts(data)
    return lambda: _nested_jacobian(x, a, b, data["n"])


def hessian_session(data: dict) -> Callable[[], Any]:
    hessians = _api("hessians")

    def build():
        n = data["n"]
        x = dg.placeholder(F64, [n])
        f = _hessian_f(x, dg.constant(data["A"]), dg.constant(data["B"]), n)
        return {x: data["x"]}, hessians(f, x)[0]
    return _session_step(build)


def hessian_function(data: dict) -> Callable[[], Any]:
    hessians = _api("hessians")
    a, b, x = _hessian_consts(data)
    n = data["n"]
    return _function_step(lambda x: hessians(_hessian_f(x, a, b, n), x)[0], [x])


def hessian_function_jacobian(data: dict) -> Callable[[], Any]:
    a, b, x = _hessian_consts(data)
    n = data["n"]
    return _function_step(lambda x: _nested_jacobian(x, a, b, n), [x])


# -- W4: the gradients() call itself ------------------------------------------------
def gradients_call(data: dict) -> Dict[str, Any]:
    """Seconds of dg.gradients on a fresh chain of n ops (and of building that chain)."""
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(F64, data["x"].shape)
        t0 = time.perf_counter()
        value = _chain_value(x, data["n_ops"])
        t1 = time.perf_counter()
        c1 = time.thread_time()
        grad = dg.gradients(value, x)[0]
        c2 = time.thread_time()
        t2 = time.perf_counter()
    result = dg.Session(graph=graph).run([value, grad], {x: data["x"]})
    return {"gradients_s": t2 - t1, "gradients_cpu_s": c2 - c1, "forward_s": t1 - t0,
            "result": result}


def variants() -> List[Variant]:
    """Every duograd variant, by workload."""
    v = Variant
    out = [
        v("W1", "dg eager (GradientTape)", "step", chain_eager),
        v("W1", "dg graph (Session)", "step", chain_session),
        v("W1", "dg.function + GradientTape", "step", chain_function_tape),
        v("W1", "dg.function + dg.gradients", "step", chain_function_gradients),
        v("W2", "dg eager (GradientTape)", "step", mlp_eager, cross_entropy_note()),
        v("W2", "dg graph (Session)", "step", mlp_session, cross_entropy_note()),
        v("W2", "dg.function + GradientTape", "step", mlp_function_tape, cross_entropy_note()),
        v("W2", "dg.function + dg.gradients", "step", mlp_function_gradients,
          cross_entropy_note()),
    ]
    for n in (500, 100):
        w = f"W3 n={n}"
        out += [
            v(w, "dg eager (tape.hessian)", "step", hessian_tape),
            v(w, "dg eager (nested tapes, jacobian)", "step", hessian_nested),
            v(w, "dg graph (dg.hessians, Session)", "step", hessian_session),
            v(w, "dg.function + dg.hessians", "step", hessian_function),
            v(w, "dg.function + nested tapes", "step", hessian_function_jacobian),
        ]
    out += [
        v("W4", "dg graph (dg.gradients)", "w4", gradients_call),
        v("W5", "dg eager (GradientTape)", "step", chain_eager),
        v("W5", "dg graph (build + gradients + run)", "oneshot", chain_graph_oneshot),
        v("W5", "dg.function (trace + run)", "oneshot", chain_function_oneshot),
        v("W6", "dg eager (GradientTape)", "memory", chain_eager),
        v("W6", "dg graph (Session)", "memory", chain_session),
        v("W6", "dg.function + GradientTape", "memory", chain_function_tape),
        v("W6", "dg.function + dg.gradients", "memory", chain_function_gradients),
    ]
    return out


def to_numpy(result: Any) -> Any:
    """EagerTensors (nested) as NumPy arrays."""
    if isinstance(result, (list, tuple)):
        return [to_numpy(r) for r in result]
    return result.numpy() if hasattr(result, "numpy") else np.asarray(result)
