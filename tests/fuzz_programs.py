"""Random differentiable programs for differential fuzzing (tests/ops/test_fuzz_programs.py).

A program is a DAG of 3-30 ops over float64 inputs of small static shapes:
elementwise math, broadcasting binary ops, reductions, matmul, reshapes,
transposes, slicing, gather, concat, stack, tile, where, cond, softmax. Its
loss is the weighted sum of every value nothing else consumes. `run_*`
evaluate the loss and its gradients in each of duograd's settings (eager tape,
graph `gradients` run by a Session, a tape inside `dg.function`) and by
central finite differences, so a checker can compare them.

Ops with kinks (relu, abs, maximum, reduce_max, where, cond, ...) record
how far their inputs are from the kink; a program whose margin is smaller
than `KINK_MARGIN` is not compared (finite differences would straddle the
kink), the way a hand-written gradient check picks points off the kinks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from hypothesis import strategies as st

import duograd as dg

Shape = Tuple[int, ...]
KINK_MARGIN = 1e-3


@dataclass(frozen=True)
class Node:
    """One op: `op` applied to the values `args` (indices into the program's values)."""

    op: str
    args: Tuple[int, ...]
    params: Tuple[Any, ...] = ()


@dataclass
class Program:
    """Inputs of `input_shapes`, then `nodes` in order; value i < len(inputs) is input i."""

    input_shapes: List[Shape]
    nodes: List[Node]
    shapes: List[Shape] = field(default_factory=list)  # every value's static shape
    seed: int = 0

    def sinks(self) -> List[int]:
        used = {a for n in self.nodes for a in n.args}
        return [i for i in range(len(self.shapes)) if i not in used]

    def describe(self) -> str:
        """A literal that rebuilds this program (for regression tests)."""
        return (f"Program({self.input_shapes!r}, {self.nodes!r}, {self.shapes!r}, "
                f"seed={self.seed})")


# -- ops: how to build them on tensors, and their kink margins on values --------
UNARY: Dict[str, Callable[[Any], Any]] = {
    "sin": dg.sin,
    "cos": dg.cos,
    "tanh": dg.tanh,
    "sigmoid": dg.sigmoid,
    "softplus": dg.math.softplus,
    "atan": dg.atan,
    "log_sigmoid": dg.math.log_sigmoid,
    "erf": dg.math.erf,
    "neg": lambda x: -x,
    "gauss": lambda x: dg.exp(-dg.square(x)),
    "log1p_sq": lambda x: dg.math.log1p(dg.square(x)),
    "sqrt1p_sq": lambda x: dg.sqrt(1.0 + dg.square(x)),
    "recip1p_sq": lambda x: dg.math.reciprocal(1.0 + dg.square(x)),
    "softmax": lambda x: dg.nn.softmax(x),
    "log_softmax": lambda x: dg.nn.log_softmax(x),
    "cumsum": lambda x: dg.cumsum(x),
    "reverse": lambda x: dg.reverse(x, [0]),
    "clip": lambda x: dg.clip_by_value(x, -0.5, 0.7),
    "norm": lambda x: dg.norm(x) * dg.ones_like(x),
    "relu": dg.nn.relu,
    "abs": dg.abs,
    "leaky_relu": lambda x: dg.nn.leaky_relu(x, 0.2),
    "elu": dg.nn.elu,
}
KINKED_UNARY = {"relu", "abs", "leaky_relu", "elu"}
AXIS_UNARY = {"softmax", "log_softmax", "cumsum", "reverse"}  # take an axis parameter

BINARY: Dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1.0 + dg.square(b)),
    "pow": lambda a, b: dg.pow(1.0 + dg.square(a), dg.tanh(b)),
    "squared_difference": dg.math.squared_difference,
    "maximum": dg.maximum,
    "minimum": dg.minimum,
}
KINKED_BINARY = {"maximum", "minimum"}

REDUCTIONS: Dict[str, Callable[..., Any]] = {
    "reduce_sum": dg.reduce_sum,
    "reduce_mean": dg.reduce_mean,
    "reduce_max": dg.reduce_max,
    "reduce_logsumexp": dg.reduce_logsumexp,
    "reduce_prod": dg.reduce_prod,
    "reduce_min": dg.reduce_min,
}


def build(node: Node, values: Sequence[Any]) -> Any:
    """The tensor `node` computes from the tensors `values` (any mode)."""
    op, p = node.op, node.params
    xs = [values[a] for a in node.args]
    if op in UNARY:
        if op == "softmax":
            return dg.nn.softmax(xs[0], axis=p[0])
        if op == "log_softmax":
            return dg.nn.log_softmax(xs[0], axis=p[0])
        if op == "cumsum":
            return dg.cumsum(xs[0], axis=p[0], exclusive=p[1], reverse=p[2])
        if op == "reverse":
            return dg.reverse(xs[0], [p[0]])
        return UNARY[op](xs[0])
    if op in BINARY:
        return BINARY[op](xs[0], xs[1])
    if op in REDUCTIONS:
        axis, keepdims = p
        return REDUCTIONS[op](xs[0], axis=axis, keepdims=keepdims)
    if op == "matmul":
        return dg.matmul(xs[0], xs[1], transpose_b=p[0])
    if op == "reshape":
        return dg.reshape(xs[0], list(p[0]))
    if op == "transpose":
        return dg.transpose(xs[0], list(p[0]))
    if op == "slice":
        axis, start, stop, step = p
        index = (slice(None),) * axis + (slice(start, stop, step),)
        return xs[0][index]
    if op == "gather":
        axis, indices = p
        return dg.gather(xs[0], list(indices), axis=axis)
    if op == "concat":
        return dg.concat(xs, axis=p[0])
    if op == "stack":
        return dg.stack(xs, axis=p[0])
    if op == "tile":
        return dg.tile(xs[0], list(p[0]))
    if op == "broadcast_to":
        return dg.broadcast_to(xs[0], list(p[0]))
    if op == "expand_dims":
        return dg.expand_dims(xs[0], p[0])
    if op == "where":
        return dg.where(xs[0] > 0, xs[1], xs[2])
    if op == "pad":
        return dg.pad(xs[0], [list(q) for q in p[0]], mode=p[1])
    if op == "split":
        return dg.split(xs[0], 2, axis=p[0])[p[1]]
    if op == "unstack":
        return dg.unstack(xs[0], axis=p[0])[p[1]]
    if op == "einsum":
        return dg.einsum(p[0], xs[0], xs[1])
    if op == "squeeze":
        return dg.squeeze(xs[0], [p[0]])
    if op == "cond":
        return dg.cond(dg.reduce_sum(xs[0]) > 0, lambda: dg.sin(xs[1]) * 2.0,
                       lambda: dg.cos(xs[1]) - xs[1])
    raise ValueError(f"unknown fuzz op {op}")


def margin(node: Node, arrays: Sequence[np.ndarray]) -> float:
    """How far this node's inputs are from a kink of its output (inf: no kink)."""
    op, p = node.op, node.params
    xs = [arrays[a] for a in node.args]
    if op in KINKED_UNARY:
        return float(np.min(np.abs(xs[0]), initial=np.inf))
    if op == "clip":
        return float(np.min(np.minimum(np.abs(xs[0] + 0.5), np.abs(xs[0] - 0.7)),
                            initial=np.inf))
    if op == "norm":
        return float(np.sqrt(np.sum(np.square(xs[0]))))
    if op in KINKED_BINARY:
        return float(np.min(np.abs(xs[0] - xs[1]), initial=np.inf))
    if op == "where":
        return float(np.min(np.abs(xs[0]), initial=np.inf))
    if op == "cond":
        return float(abs(np.sum(xs[0])))
    if op in ("reduce_max", "reduce_min"):
        x = xs[0] if op == "reduce_max" else -xs[0]
        axis = p[0]
        if x.ndim == 0:
            return np.inf
        flat = np.moveaxis(x, axis, -1) if axis is not None else x.reshape(-1)
        if flat.shape[-1] < 2:
            return np.inf
        top = np.sort(flat, axis=-1)
        return float(np.min(top[..., -1] - top[..., -2]))
    return np.inf


# -- generation --------------------------------------------------------------------
DIMS = st.integers(1, 3)
SHAPES = st.lists(DIMS, min_size=0, max_size=3).map(tuple)


def _broadcastable(a: Shape, b: Shape) -> Optional[Shape]:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


@st.composite
def programs(draw: Any, min_ops: int = 3, max_ops: int = 30) -> Program:
    n_inputs = draw(st.integers(1, 2))
    input_shapes = [draw(SHAPES) for _ in range(n_inputs)]
    shapes: List[Shape] = list(input_shapes)
    nodes: List[Node] = []
    n_ops = draw(st.integers(min_ops, max_ops))
    kinds = ["unary", "binary", "reduce", "matmul", "reshape", "transpose", "slice",
             "gather", "concat", "stack", "tile", "broadcast_to", "expand_dims", "where",
             "cond", "pad", "split", "unstack", "einsum", "squeeze"]
    while len(nodes) < n_ops:
        kind = _choice(draw, kinds)
        made = _make_node(draw, kind, shapes)
        if made is None:
            continue
        node, shape = made
        if int(np.prod(shape)) > 64:  # keep finite differences cheap
            continue
        nodes.append(node)
        shapes.append(shape)
    return Program(input_shapes, nodes, shapes, seed=draw(st.integers(0, 2**31 - 1)))


def _choice(draw: Any, options: Sequence[Any]) -> Any:
    """A near-uniform choice (sampled_from favours the first options heavily)."""
    return options[draw(st.integers(0, 2**20)) % len(options)]


def _pick(draw: Any, shapes: List[Shape], where: Callable[[Shape], bool]) -> Optional[int]:
    choices = [i for i, s in enumerate(shapes) if where(s)]
    if not choices:
        return None
    # Prefer recent values so programs are deep, not wide.
    weights = st.sampled_from(choices[-4:]) if draw(st.booleans()) else st.sampled_from(choices)
    return draw(weights)


def _make_node(draw: Any, kind: str, shapes: List[Shape]) -> Optional[Tuple[Node, Shape]]:
    any_shape = lambda s: True  # noqa: E731
    if kind == "unary":
        i = _pick(draw, shapes, any_shape)
        op = _choice(draw, sorted(UNARY))
        if op in AXIS_UNARY:
            if not shapes[i]:
                return None
            axis = draw(st.integers(-len(shapes[i]), len(shapes[i]) - 1))
            if op == "cumsum":
                return Node(op, (i,), (axis, draw(st.booleans()), draw(st.booleans()))), \
                    shapes[i]
            return Node(op, (i,), (axis,)), shapes[i]
        return Node(op, (i,)), shapes[i]
    if kind == "binary":
        i = _pick(draw, shapes, any_shape)
        j = _pick(draw, shapes, lambda s: _broadcastable(s, shapes[i]) is not None)
        op = _choice(draw, sorted(BINARY))
        return Node(op, (i, j)), _broadcastable(shapes[i], shapes[j])
    if kind == "reduce":
        i = _pick(draw, shapes, any_shape)
        shape = shapes[i]
        op = _choice(draw, sorted(REDUCTIONS))
        keepdims = draw(st.booleans())
        if not shape or draw(st.booleans()):
            axis = None
            out = tuple(1 for _ in shape) if keepdims else ()
        else:
            axis = draw(st.integers(-len(shape), len(shape) - 1))
            k = axis % len(shape)
            out = shape[:k] + ((1,) if keepdims else ()) + shape[k + 1:]
        return Node(op, (i,), (axis, keepdims)), out
    if kind == "matmul":
        i = _pick(draw, shapes, lambda s: len(s) == 2)
        if i is None:
            return None
        m, k = shapes[i]
        transpose_b = draw(st.booleans())
        j = _pick(draw, shapes, lambda s: len(s) == 2 and (s[1] if transpose_b else s[0]) == k)
        if j is None:
            return None
        n = shapes[j][0] if transpose_b else shapes[j][1]
        return Node("matmul", (i, j), (transpose_b,)), (m, n)
    if kind == "reshape":
        i = _pick(draw, shapes, any_shape)
        size = int(np.prod(shapes[i]))
        options = [(size,), (1, size), (size, 1)] + \
            [(a, size // a) for a in (2, 3) if size % a == 0 and size > a]
        target = draw(st.sampled_from(options))
        return Node("reshape", (i,), (target,)), target
    if kind == "transpose":
        i = _pick(draw, shapes, lambda s: len(s) >= 2)
        if i is None:
            return None
        perm = tuple(draw(st.permutations(range(len(shapes[i])))))
        return Node("transpose", (i,), (perm,)), tuple(shapes[i][a] for a in perm)
    if kind == "slice":
        i = _pick(draw, shapes, lambda s: any(d >= 2 for d in s))
        if i is None:
            return None
        shape = shapes[i]
        axis = draw(st.sampled_from([a for a, d in enumerate(shape) if d >= 2]))
        start, stop, step = draw(st.sampled_from([(1, None, None), (None, -1, None),
                                                  (None, None, -1), (None, None, 2)]))
        length = len(range(shape[axis])[slice(start, stop, step)])
        return Node("slice", (i,), (axis, start, stop, step)), \
            shape[:axis] + (length,) + shape[axis + 1:]
    if kind == "gather":
        i = _pick(draw, shapes, lambda s: len(s) >= 1)
        if i is None:
            return None
        shape = shapes[i]
        axis = draw(st.integers(0, len(shape) - 1))
        indices = tuple(draw(st.lists(st.integers(0, shape[axis] - 1), min_size=1,
                                      max_size=4)))
        return Node("gather", (i,), (axis, indices)), \
            shape[:axis] + (len(indices),) + shape[axis + 1:]
    if kind in ("concat", "stack"):
        i = _pick(draw, shapes, lambda s: len(s) >= 1 or kind == "stack")
        if i is None:
            return None
        j = _pick(draw, shapes, lambda s: s == shapes[i])
        shape = shapes[i]
        if kind == "concat":
            axis = draw(st.integers(0, len(shape) - 1))
            return Node("concat", (i, j), (axis,)), \
                shape[:axis] + (2 * shape[axis],) + shape[axis + 1:]
        axis = draw(st.integers(0, len(shape)))
        return Node("stack", (i, j), (axis,)), shape[:axis] + (2,) + shape[axis:]
    if kind == "tile":
        i = _pick(draw, shapes, lambda s: len(s) >= 1)
        if i is None:
            return None
        multiples = tuple(draw(st.integers(1, 2)) for _ in shapes[i])
        return Node("tile", (i,), (multiples,)), tuple(d * m for d, m in zip(shapes[i], multiples))
    if kind == "broadcast_to":
        i = _pick(draw, shapes, any_shape)
        target = tuple(draw(st.lists(DIMS, min_size=0, max_size=2))) + shapes[i]
        return Node("broadcast_to", (i,), (target,)), target
    if kind == "expand_dims":
        i = _pick(draw, shapes, any_shape)
        axis = draw(st.integers(0, len(shapes[i])))
        return Node("expand_dims", (i,), (axis,)), shapes[i][:axis] + (1,) + shapes[i][axis:]
    if kind == "where":
        i = _pick(draw, shapes, any_shape)
        j = _pick(draw, shapes, lambda s: _broadcastable(s, shapes[i]) is not None)
        shape = _broadcastable(shapes[i], shapes[j])
        k = _pick(draw, shapes, lambda s: _broadcastable(s, shape) is not None)
        return Node("where", (i, j, k)), _broadcastable(shape, shapes[k])
    if kind == "pad":
        i = _pick(draw, shapes, lambda s: 1 <= len(s))
        if i is None:
            return None
        mode = draw(st.sampled_from(["CONSTANT", "REFLECT", "SYMMETRIC"]))
        pads = []
        for d in shapes[i]:  # REFLECT pads at most d - 1, SYMMETRIC at most d
            limit = min(2, {"CONSTANT": 2, "SYMMETRIC": d, "REFLECT": d - 1}[mode])
            pads.append((draw(st.integers(0, limit)), draw(st.integers(0, limit))))
        pads = tuple(pads)
        return Node("pad", (i,), (pads, mode)), \
            tuple(d + a + b for d, (a, b) in zip(shapes[i], pads))
    if kind == "split":
        i = _pick(draw, shapes, lambda s: any(d % 2 == 0 for d in s))
        if i is None:
            return None
        shape = shapes[i]
        axis = draw(st.sampled_from([a for a, d in enumerate(shape) if d % 2 == 0]))
        return Node("split", (i,), (axis, draw(st.integers(0, 1)))), \
            shape[:axis] + (shape[axis] // 2,) + shape[axis + 1:]
    if kind == "unstack":
        i = _pick(draw, shapes, lambda s: len(s) >= 1)
        if i is None:
            return None
        shape = shapes[i]
        axis = draw(st.integers(0, len(shape) - 1))
        return Node("unstack", (i,), (axis, draw(st.integers(0, shape[axis] - 1)))), \
            shape[:axis] + shape[axis + 1:]
    if kind == "einsum":
        i = _pick(draw, shapes, lambda s: len(s) == 2)
        if i is None:
            return None
        m, k = shapes[i]
        j = _pick(draw, shapes, lambda s: len(s) >= 1 and s[-1] == k)
        if j is None:
            return None
        if len(shapes[j]) == 1:
            return Node("einsum", (i, j), ("ij,j->i",)), (m,)
        if len(shapes[j]) == 2:
            return Node("einsum", (i, j), ("ij,nj->in",)), (m, shapes[j][0])
        return None
    if kind == "squeeze":
        i = _pick(draw, shapes, lambda s: 1 in s)
        if i is None:
            return None
        axis = draw(st.sampled_from([a for a, d in enumerate(shapes[i]) if d == 1]))
        return Node("squeeze", (i,), (axis,)), shapes[i][:axis] + shapes[i][axis + 1:]
    if kind == "cond":
        i = _pick(draw, shapes, any_shape)
        j = _pick(draw, shapes, any_shape)
        return Node("cond", (i, j)), shapes[j]
    raise ValueError(kind)


# -- evaluation in each setting -------------------------------------------------------
def inputs_of(program: Program) -> List[np.ndarray]:
    rng = np.random.default_rng(program.seed)
    return [rng.uniform(-1.5, 1.5, s) for s in program.input_shapes]


def _weights(program: Program) -> List[np.ndarray]:
    rng = np.random.default_rng(program.seed + 1)
    return [rng.uniform(0.5, 1.5, program.shapes[i]) for i in program.sinks()]


def loss_tensor(program: Program, xs: Sequence[Any]) -> Any:
    values = list(xs)
    for node in program.nodes:
        values.append(build(node, values))
    total = None
    for i, w in zip(program.sinks(), _weights(program)):
        term = dg.reduce_sum(values[i] * dg.constant(w))
        total = term if total is None else total + term
    return total


def forward_arrays(program: Program, args: Sequence[np.ndarray]) -> Tuple[float, float]:
    """(loss, smallest kink margin) computed eagerly."""
    values = [dg.constant(a) for a in args]
    smallest = np.inf
    for node in program.nodes:
        smallest = min(smallest, margin(node, [np.asarray(v) for v in values]))
        values.append(build(node, values))
    total = 0.0
    for i, w in zip(program.sinks(), _weights(program)):
        total += float(np.sum(np.asarray(values[i]) * w))
    return total, smallest


def _dense(g: Any, like: np.ndarray) -> np.ndarray:
    if g is None:
        return np.zeros_like(like)
    return np.asarray(dg.convert_to_tensor(g))


ZERO = dg.UnconnectedGradients.ZERO


def run_eager(program: Program, args: Sequence[np.ndarray]) -> Tuple[float, List[np.ndarray]]:
    xs = [dg.constant(a) for a in args]
    with dg.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        loss = loss_tensor(program, xs)
    grads = tape.gradient(loss, xs, unconnected_gradients=ZERO)
    return float(loss), [_dense(g, a) for g, a in zip(grads, args)]


def run_graph(program: Program, args: Sequence[np.ndarray]) -> Tuple[float, List[np.ndarray]]:
    graph = dg.Graph()
    with graph.as_default():
        ps = [dg.placeholder(dg.float64, a.shape) for a in args]
        loss = loss_tensor(program, ps)
        grads = dg.gradients(loss, ps, unconnected_gradients=ZERO)
        grads = [dg.convert_to_tensor(g) for g in grads]
        with dg.Session() as sess:
            value, grad_values = sess.run([loss, grads], dict(zip(ps, args)))
    return float(value), [np.asarray(g) for g in grad_values]


def run_function(program: Program, args: Sequence[np.ndarray]) -> Tuple[float, List[np.ndarray]]:
    @dg.function
    def loss_and_grads(*xs: Any) -> Any:
        with dg.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            loss = loss_tensor(program, xs)
        grads = tape.gradient(loss, list(xs), unconnected_gradients=ZERO)
        return loss, [dg.convert_to_tensor(g) for g in grads]

    loss, grads = loss_and_grads(*[dg.constant(a) for a in args])
    return float(loss), [np.asarray(g) for g in grads]


def run_function_outer_tape(program: Program,
                            args: Sequence[np.ndarray]) -> Tuple[float, List[np.ndarray]]:
    """A tape outside the function: differentiates the function call itself."""
    fn = dg.function(lambda *xs: loss_tensor(program, xs))
    xs = [dg.constant(a) for a in args]
    with dg.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        loss = fn(*xs)
    grads = tape.gradient(loss, xs, unconnected_gradients=ZERO)
    return float(loss), [_dense(g, a) for g, a in zip(grads, args)]


def finite_differences(program: Program, args: Sequence[np.ndarray],
                       eps: float = 1e-6) -> List[np.ndarray]:
    grads = []
    for j, a in enumerate(args):
        g = np.zeros_like(a)
        for k in range(a.size):
            shifted = [x.copy() for x in args]
            shifted[j].reshape(-1)[k] += eps
            up = forward_arrays(program, shifted)[0]
            shifted[j].reshape(-1)[k] -= 2 * eps
            down = forward_arrays(program, shifted)[0]
            g.reshape(-1)[k] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


# -- second order: Hessian-vector products -------------------------------------------
def directions(program: Program, args: Sequence[np.ndarray]) -> List[np.ndarray]:
    rng = np.random.default_rng(program.seed + 2)
    return [rng.uniform(-1.0, 1.0, a.shape) for a in args]


def hvp_eager(program: Program, args: Sequence[np.ndarray],
              vs: Sequence[np.ndarray]) -> List[np.ndarray]:
    xs = [dg.constant(a) for a in args]
    with dg.GradientTape() as outer:
        for x in xs:
            outer.watch(x)
        with dg.GradientTape() as inner:
            for x in xs:
                inner.watch(x)
            loss = loss_tensor(program, xs)
        grads = inner.gradient(loss, xs, unconnected_gradients=ZERO)
        dot = dg.add_n([dg.reduce_sum(dg.convert_to_tensor(g) * dg.constant(v))
                        for g, v in zip(grads, vs)])
    hvps = outer.gradient(dot, xs, unconnected_gradients=ZERO)
    return [_dense(h, a) for h, a in zip(hvps, args)]


def hvp_graph(program: Program, args: Sequence[np.ndarray],
              vs: Sequence[np.ndarray]) -> List[np.ndarray]:
    graph = dg.Graph()
    with graph.as_default():
        ps = [dg.placeholder(dg.float64, a.shape) for a in args]
        loss = loss_tensor(program, ps)
        grads = dg.gradients(loss, ps, unconnected_gradients=ZERO)
        dot = dg.add_n([dg.reduce_sum(dg.convert_to_tensor(g) * dg.constant(v))
                        for g, v in zip(grads, vs)])
        hvps = [dg.convert_to_tensor(h)
                for h in dg.gradients(dot, ps, unconnected_gradients=ZERO)]
        with dg.Session() as sess:
            return [np.asarray(h) for h in sess.run(hvps, dict(zip(ps, args)))]


def hvp_finite_differences(program: Program, args: Sequence[np.ndarray],
                           vs: Sequence[np.ndarray], eps: float = 1e-5) -> List[np.ndarray]:
    up = run_eager(program, [a + eps * v for a, v in zip(args, vs)])[1]
    down = run_eager(program, [a - eps * v for a, v in zip(args, vs)])[1]
    return [(u - d) / (2 * eps) for u, d in zip(up, down)]
