"""dg.autodiff.ForwardAccumulator: JVP rules against central differences, fallbacks, nesting."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from duograd.framework.registry import jvp_functions
from duograd.grad_registry.jvp_rules import get_jvp_rule
from duograd.ops.array.array_ops import sum_to_shape

FA = dg.autodiff.ForwardAccumulator


def n(*shape):
    return lambda rng: rng.standard_normal(shape)


def pos(*shape):
    return lambda rng: rng.uniform(0.5, 2.0, shape)


def away(*shape):
    """Values whose magnitude is at least 0.5 (abs, max/min without near-ties)."""
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)


def const(value):
    return lambda rng: np.asarray(value)


# op type -> (function of tensors, input makers[, central-difference eps, rtol])
JVP_CASES = {
    "AddV2": (dg.add, [n(3, 4), n(4)]),
    "Sub": (dg.subtract, [n(3, 1), n(1, 4)]),
    "Mul": (dg.multiply, [n(2, 3), n(3)]),
    "RealDiv": (dg.divide, [n(3), pos(2, 3)]),
    "Pow": (dg.pow, [pos(3), n(3)]),
    "Maximum": (dg.maximum, [n(6), n(6)]),
    "Minimum": (dg.minimum, [n(6), n(6)]),
    "Neg": (dg.negative, [n(4)]),
    "Sin": (dg.sin, [n(4)]),
    "Cos": (dg.cos, [n(4)]),
    "Tanh": (dg.tanh, [n(4)]),
    "Exp": (dg.exp, [n(4)]),
    "Log": (dg.log, [pos(4)]),
    "Log1p": (dg.log1p, [pos(4)]),
    "Sqrt": (dg.sqrt, [pos(4)]),
    "Rsqrt": (dg.rsqrt, [pos(4)]),
    "Square": (dg.square, [n(3, 2)]),
    "Abs": (dg.abs, [away(5)]),
    "Sigmoid": (dg.sigmoid, [n(5)]),
    "Cast": (lambda x: dg.cast(dg.cast(x, dg.float32), dg.float64), [n(4)], 1e-3, 1e-3),
    "MatMul": (dg.matmul, [n(3, 4), n(4, 2)]),
    "BatchMatMulV2": (lambda a, b: dg.matmul(a, b, transpose_b=True), [n(2, 3, 4), n(5, 4)]),
    "Sum": (lambda x: dg.reduce_sum(x, axis=1), [n(3, 4)]),
    "Mean": (lambda x: dg.reduce_mean(x, axis=0, keepdims=True), [n(3, 4)]),
    "Max": (lambda x: dg.reduce_max(x, axis=-1), [n(3, 4)]),
    "Min": (lambda x: dg.reduce_min(x, axis=0, keepdims=True), [n(3, 4)]),
    "AddN": (lambda a, b, c: dg.add_n([a, b, c]), [n(3), n(3), n(3)]),
    "Reshape": (lambda x: dg.reshape(x, [2, -1]), [n(3, 4)]),
    "ExpandDims": (lambda x: dg.expand_dims(x, 1), [n(3, 4)]),
    "Squeeze": (lambda x: dg.squeeze(x, [1]), [n(3, 1)]),
    "Transpose": (lambda x: dg.transpose(x, [1, 2, 0]), [n(2, 3, 4)]),
    "BroadcastTo": (lambda x: dg.broadcast_to(x, [3, 4]), [n(4)]),
    "SumToShape": (lambda x: sum_to_shape(x, [1, 4]), [n(3, 4)]),
    "Identity": (dg.identity, [n(3)]),
    "IdentityN": (lambda a, b: dg.identity_n([a, b]), [n(3), n(2)]),
    "ConcatV2": (lambda a, b: dg.concat([a, b], axis=1), [n(2, 3), n(2, 2)]),
    "Pack": (lambda a, b: dg.stack([a, b], axis=1), [n(2, 3), n(2, 3)]),
    "GatherV2": (lambda p: dg.gather(p, [2, 0, 2], axis=1), [n(3, 4)]),
    "UnsortedSegmentSum": (lambda d: dg.math.unsorted_segment_sum(d, [0, 2, 0, -1], 3),
                           [n(4, 2)]),
    "SelectV2": (lambda c, x, y: dg.where(c > 0, x, y), [n(3, 4), n(3, 4), n(4)]),
}
# Rules whose op needs a variable: checked by their own tests below.
SPECIAL = {"ReadVariableOp": "test_variable_primal"}


def _flat(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _central(fn, xs, vs, eps):
    plus = fn(*[dg.constant(x + eps * v) for x, v in zip(xs, vs)])
    minus = fn(*[dg.constant(x - eps * v) for x, v in zip(xs, vs)])
    return [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(_flat(plus), _flat(minus))]


def _eager_jvp(fn, xs, vs):
    ts = [dg.constant(x) for x in xs]
    with FA(ts, [dg.constant(v) for v in vs]) as acc:
        y = fn(*ts)
    return [np.asarray(acc.jvp(t, unconnected_gradients="zero")) for t in _flat(y)]


def _graph_jvp(fn, xs, vs, op_type):
    g = dg.Graph()
    with g.as_default():
        ps = [dg.placeholder(dg.float64, x.shape) for x in xs]
        with FA(ps, [dg.constant(v) for v in vs]) as acc:
            y = fn(*ps)
        assert op_type in {op.type for op in g.get_operations()}, op_type
        tangents = [acc.jvp(t, unconnected_gradients="zero") for t in _flat(y)]
        with dg.Session(graph=g) as sess:
            return sess.run(tangents, dict(zip(ps, xs)))


@pytest.mark.parametrize("op_type", sorted(JVP_CASES))
def test_jvp_rule_matches_central_differences(op_type):
    fn, makers, *tol = JVP_CASES[op_type]
    eps, rtol = tol if tol else (1e-6, 1e-6)
    assert get_jvp_rule(op_type) is not None
    rng = np.random.default_rng(7)
    xs = [np.asarray(m(rng), dtype=np.float64) for m in makers]
    vs = [rng.standard_normal(x.shape) for x in xs]
    expected = _central(fn, xs, vs, eps)
    for got in (_eager_jvp(fn, xs, vs), _graph_jvp(fn, xs, vs, op_type)):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)


def test_every_jvp_rule_is_tested():
    untested = sorted(set(jvp_functions) - set(JVP_CASES) - set(SPECIAL))
    assert not untested, f"JVP rules without a test case: {untested}"


def test_jvp_rule_output_is_differentiable_again():
    """A rule built from public ops: reverse mode through the tangent works (second order)."""
    x = dg.constant(np.array([0.4, -0.9]))
    v = dg.constant(np.array([1.0, 0.5]))
    with dg.GradientTape() as tape:
        tape.watch(x)
        with FA(x, v) as acc:
            y = dg.reduce_sum(dg.sin(x) * dg.exp(x))
        jvp = acc.jvp(y)
    xv = x.numpy()
    expected = (2 * np.cos(xv) * np.exp(xv)) * v.numpy()   # d/dx of (cos+sin) e^x . v
    np.testing.assert_allclose(tape.gradient(jvp, x), expected, rtol=1e-12)


# -- the double-VJP fallback -----------------------------------------------------------
FALLBACK = {
    "Prod": (lambda x: dg.reduce_prod(x, axis=0), [pos(3, 2)]),
    "Cumsum": (lambda x: dg.math.cumsum(x, axis=1), [n(2, 3)]),
}


@pytest.mark.parametrize("op_type", sorted(FALLBACK))
def test_ops_without_a_rule_use_their_gradient(op_type):
    fn, makers = FALLBACK[op_type]
    assert get_jvp_rule(op_type) is None
    rng = np.random.default_rng(3)
    xs = [m(rng) for m in makers]
    vs = [rng.standard_normal(x.shape) for x in xs]
    expected = _central(fn, xs, vs, 1e-6)
    for got in (_eager_jvp(fn, xs, vs), _graph_jvp(fn, xs, vs, op_type)):
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_custom_gradient_is_used_by_forward_mode(mode):
    @dg.custom_gradient
    def f(x):
        return dg.sin(x), lambda dy: dy * 10.0   # deliberately not cos(x)

    xs, vs = [np.array([0.1, 0.2])], [np.array([1.0, 3.0])]
    got = _eager_jvp(f, xs, vs) if mode == "eager" else _graph_jvp(f, xs, vs, "IdentityN")
    np.testing.assert_allclose(got[0], [10.0, 30.0])


def test_non_differentiable_op_has_no_tangent():
    x = dg.constant(np.array([1.0, -2.0]))
    with FA(x, dg.constant(np.array([1.0, 1.0]))) as acc:
        y = dg.sign(x)
        z = dg.stop_gradient(x)
    assert acc.jvp(y) is None and acc.jvp(z) is None


# -- nesting with GradientTape, Hessian-vector products --------------------------------
def _loss(x):
    return dg.reduce_sum(dg.sin(x) * x ** 2) + dg.reduce_prod(dg.exp(x * 0.3))


X = np.array([0.3, -0.7, 1.1])
V = np.array([1.0, 2.0, -0.5])


def test_forward_over_reverse_hvp_matches_hessian_vector_product_eager():
    x, v = dg.constant(X), dg.constant(V)
    with FA(x, v) as acc:
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = _loss(x)
        grad = tape.gradient(y, x)
    expected = dg.hessian_vector_product(_loss, [x], [v])[0]
    np.testing.assert_allclose(acc.jvp(grad), expected, rtol=1e-12)


def test_forward_over_reverse_hvp_matches_hessian_vector_product_graph():
    g = dg.Graph()
    with g.as_default():
        x, v = dg.constant(X), dg.constant(V)
        with FA(x, v) as acc:
            (grad,) = dg.gradients(_loss(x), x)
        hvp = acc.jvp(grad)
        expected = dg.hessian_vector_product(_loss(x), [x], [v])[0]
        with dg.Session(graph=g) as sess:
            got, want = sess.run([hvp, expected])
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_reverse_over_forward_equals_forward_over_reverse(mode):
    def run():
        x, v = dg.constant(X), dg.constant(V)
        with dg.GradientTape() as tape:
            tape.watch(x)
            with FA(x, v) as acc:
                y = _loss(x)
            jvp = acc.jvp(y)
        return tape.gradient(jvp, x)

    if mode == "eager":
        got = np.asarray(run())
        expected = dg.hessian_vector_product(_loss, [dg.constant(X)], [dg.constant(V)])[0]
    else:
        g = dg.Graph()
        with g.as_default():
            out = run()
            x = dg.constant(X)
            want = dg.hessian_vector_product(_loss(x), [x], [dg.constant(V)])[0]
            with dg.Session(graph=g) as sess:
                got, expected = sess.run([out, want])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_nested_accumulators_give_second_directional_derivatives():
    x = dg.constant(np.array([0.4, 1.3]))
    v = dg.constant(np.array([1.0, -2.0]))
    with FA(x, v) as outer:
        with FA(x, v) as inner:
            y = dg.sin(x)
        first = inner.jvp(y)
    second = outer.jvp(first)
    np.testing.assert_allclose(first, np.cos(x.numpy()) * v.numpy(), rtol=1e-12)
    np.testing.assert_allclose(second, -np.sin(x.numpy()) * v.numpy() ** 2, rtol=1e-12)


# -- primals, tangents, unconnected -----------------------------------------------------
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_variable_primal(mode):
    def run():
        w = dg.Variable(np.array([1.5, -0.5]))
        x = dg.constant(np.array([2.0, 3.0]))
        with FA(w, dg.constant(np.array([1.0, 10.0]))) as acc:
            y = w * x + dg.square(w)
        return w, acc.jvp(y), acc.jvp(w)

    if mode == "eager":
        w, jvp, wt = run()
        jvp, wt = np.asarray(jvp), np.asarray(wt)
    else:
        g = dg.Graph()
        with g.as_default():
            w, jvp, wt = run()
            with dg.Session(graph=g) as sess:
                sess.run(dg.global_variables_initializer())
                jvp, wt = sess.run([jvp, wt])
    expected = np.array([1.0, 10.0]) * (np.array([2.0, 3.0]) + 2 * np.array([1.5, -0.5]))
    np.testing.assert_allclose(jvp, expected)
    np.testing.assert_array_equal(wt, [1.0, 10.0])


def test_unconnected_gradients():
    x = dg.constant(np.array([1.0, 2.0]))
    other = dg.constant(np.array([3.0]))
    with FA(x, dg.constant(np.array([1.0, 1.0]))) as acc:
        y = other * 2.0
    assert acc.jvp(y) is None
    np.testing.assert_array_equal(acc.jvp(y, unconnected_gradients="zero"), [0.0])
    with pytest.raises(ValueError):
        acc.jvp(y, unconnected_gradients="bogus")


def test_nested_primals_and_structured_jvp():
    a, b = dg.constant(np.array(2.0)), dg.constant(np.array(3.0))
    tangents = {"a": dg.constant(np.array(1.0)), "b": dg.constant(np.array(0.5))}
    with FA({"a": a, "b": b}, tangents) as acc:
        y = a * b
        z = a + b
    out = acc.jvp({"y": y, "z": [z]})
    assert float(out["y"]) == 1.0 * 3.0 + 2.0 * 0.5
    assert float(out["z"][0]) == 1.5


def test_ops_after_exit_are_not_tracked():
    x = dg.constant(np.array([1.0]))
    acc = FA(x, dg.constant(np.array([1.0])))
    with acc:
        y = x * 3.0
    z = y * 2.0
    assert float(acc.jvp(y)[0]) == 3.0
    assert acc.jvp(z) is None


def test_tangent_errors():
    x = dg.constant(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="shape"):
        FA(x, dg.constant(np.array([1.0, 2.0, 3.0])))
    with pytest.raises(ValueError, match="same structure"):
        FA([x, x], [dg.constant(np.array([1.0, 2.0]))])
    with pytest.raises(TypeError):
        FA("x", "y")
    with pytest.raises(ValueError, match="dtype"):
        FA(x, dg.constant(np.array([1.0, 2.0], np.float32)))
