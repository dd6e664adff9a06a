"""Deep structure: cond, while_loop and dg.function nested in each other, in every
setting, against central differences; and 1,000 nested dg.function calls traced,
run and differentiated (depth bounded by memory, not Python's recursion limit)."""
import sys

import numpy as np
import pytest

import duograd as dg
from cf_check import all_modes, central_difference

XV = np.array([0.3, -0.7, 1.1])


def _cond_in_while(x):
    """A cond inside a while_loop whose branch taken changes per iteration."""
    def body(i, y):
        y = dg.cond(dg.equal(i % 2, 0), lambda: y * dg.sin(y), lambda: dg.cos(y) * 1.5 + y)
        return i + 1, y
    return dg.reduce_sum(dg.while_loop(lambda i, y: i < 4, body, [0, x])[1])


def _while_in_cond(x):
    def loop():
        return dg.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, dg.sin(y) * x), [0, x])[1]
    return dg.reduce_sum(dg.cond(dg.reduce_sum(x) > 0.0, loop, lambda: x * x))


_inner_function = dg.function(lambda y: dg.cond(dg.reduce_sum(y) > 0.5, lambda: y * y,
                                                 lambda: dg.exp(y * 0.5)))


def _function_in_while_in_function(x):
    def body(i, y):
        return i + 1, _inner_function(y) * 0.5 + dg.sin(x)
    return dg.reduce_sum(dg.while_loop(lambda i, y: i < 3, body, [0, x])[1])


def _nested_while(x):
    """A while whose body runs a while a different number of times per iteration."""
    def outer(i, acc):
        inner = dg.while_loop(lambda c, v: c > 0, lambda c, v: (c - 1, v * x + 0.1),
                              [i, dg.ones_like(x)])[1]
        return i - 1, acc + inner
    return dg.reduce_sum(dg.while_loop(lambda i, _: i >= 0, outer, [3, dg.zeros_like(x)])[1])


@pytest.mark.parametrize("fn", [_cond_in_while, _while_in_cond, _function_in_while_in_function,
                                _nested_while],
                         ids=["cond_in_while", "while_in_cond", "function_in_while",
                              "nested_while"])
def test_nested_control_flow_agrees_in_every_setting(fn):
    """Eager tape, tape over a dg.function, dg.gradients in a graph and inside a
    function: same value, gradient and Hessian-vector product; finite differences."""
    all_modes(fn, XV)
    all_modes(fn, -XV)  # the other branches


@pytest.mark.parametrize("fn", [_cond_in_while, _nested_while])
def test_tape_inside_function_over_nested_control_flow(fn):
    @dg.function
    def grad(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)

    np.testing.assert_allclose(grad(dg.constant(XV)).numpy(), central_difference(fn, XV),
                               rtol=1e-6, atol=1e-8)


def test_nested_while_gradient_in_graph_mode_matches_tf():
    """TF's while_v2_test.testNestedWhile: sum of n^k by nested loops; TF 2.21
    gives 364 and d/dn = 547."""
    with dg.Graph().as_default():
        n = dg.constant(3.0)
        m = dg.constant(5.0)

        def body(i, previous):
            power = dg.while_loop(lambda c, _: c > 0, lambda c, v: (c - 1.0, v * n),
                                  [i, dg.constant(1.0)])[1]
            return i - 1.0, previous + power

        result = dg.while_loop(lambda i, _: i >= 0, body, [m, dg.constant(0.0)])[1]
        (grad,) = dg.gradients(result, [n])
        with dg.Session() as sess:
            assert sess.run(result) == 364.0
            assert sess.run(grad) == 547.0


def _chain(depth: int):
    """f_0(x) = x * x; f_k(x) = f_{k-1}(x) * 1.001 (each a dg.function)."""
    f = dg.function(lambda x: x * x)
    for _ in range(depth):
        f = dg.function(lambda x, inner=f: inner(x) * 1.001)
    return f


DEPTH = 1000


def test_a_thousand_nested_function_calls_trace_run_and_differentiate():
    assert sys.getrecursionlimit() <= 10 * DEPTH  # depth is not bought with the limit
    limit = sys.getrecursionlimit()
    x = dg.constant(3.0, dtype=dg.float64)
    scale = 1.001 ** DEPTH
    f = _chain(DEPTH)
    with dg.GradientTape() as tape:            # eager tape over the outermost call
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(y.numpy(), 9.0 * scale, rtol=1e-12)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 6.0 * scale, rtol=1e-12)

    graph = dg.Graph()                         # dg.gradients in a graph
    with graph.as_default():
        xp = dg.placeholder(dg.float64, [])
        (g,) = dg.gradients(f(xp), [xp])
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(g, {xp: 2.0}), 4.0 * scale, rtol=1e-12)

    @dg.function                               # a tape inside a function
    def grad_inside(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = _chain(DEPTH)(x)
        return tape.gradient(y, x)

    np.testing.assert_allclose(grad_inside(x).numpy(), 6.0 * scale, rtol=1e-12)
    assert sys.getrecursionlimit() == limit


def test_a_continuation_thread_sees_the_thread_states_modules_own():
    """The deep-nesting hop copies the context and every owned thread state (the
    variable scopes, the seeds, the summary step, the Jacobian plans), so a trace
    continued on another thread names, seeds and steps as it would have here."""
    import threading

    from duograd.eager import context
    from duograd.eager.jacobian_plans import plan_cache
    from duograd.ops.random.random_ops import get_seed
    seen = {}
    with dg.compat.v1.variable_scope("outer_scope"):
        dg.random.set_seed(1234)
        dg.summary.experimental.set_step(17)
        cache = plan_cache()
        saved = context.snapshot()

        def run():
            context.restore(saved)
            seen["scope"] = dg.compat.v1.get_variable_scope().name
            seen["seed"] = get_seed(5)
            seen["step"] = dg.summary.experimental.get_step()
            seen["cache"] = plan_cache()
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    dg.random.set_seed(None)
    dg.summary.experimental.set_step(None)
    assert seen == {"scope": "outer_scope", "seed": (1234, 5), "step": 17, "cache": cache}
