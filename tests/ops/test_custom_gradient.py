"""dg.custom_gradient and dg.grad_pass_through in eager and graph mode."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from gradcheck import check_grads

MODES = ["eager", "graph"]


def grads(mode, fn, values, kwargs=None):
    """(value of fn, d sum(fn) / d each input): positional inputs, then keyword ones."""
    kwargs = kwargs or {}
    if mode == "eager":
        xs = [dg.constant(v) for v in values]
        kw = {k: dg.constant(v) for k, v in kwargs.items()}
        with dg.GradientTape() as tape:
            tape.watch(xs + list(kw.values()))
            y = fn(*xs, **kw)
        gs = tape.gradient(y, xs + list(kw.values()))
        return np.asarray(y), [None if g is None else np.asarray(g) for g in gs]
    g = dg.Graph()
    with g.as_default():
        xs = [dg.placeholder(dg.as_dtype(np.asarray(v).dtype), np.shape(v)) for v in values]
        kw = {k: dg.placeholder(dg.as_dtype(np.asarray(v).dtype), np.shape(v))
              for k, v in kwargs.items()}
        y = fn(*xs, **kw)
        gs = dg.gradients(y, xs + list(kw.values()))
        feed = dict(zip(xs + list(kw.values()), list(values) + list(kwargs.values())))
        with dg.Session(graph=g) as sess:
            out = sess.run([y] + [t for t in gs if t is not None], feed)
    it = iter(out[1:])
    return out[0], [None if t is None else next(it) for t in gs]


@dg.custom_gradient
def log1pexp(x):
    e = dg.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return dg.math.log(1 + e), grad


@pytest.mark.parametrize("mode", MODES)
def test_log1pexp_gradient_is_one_at_100(mode):
    with np.errstate(over="ignore", invalid="ignore"):
        _, (dx,) = grads(mode, log1pexp, [np.float32(100.0)])
        _, (plain,) = grads(mode, lambda x: dg.math.log(1 + dg.exp(x)), [np.float32(100.0)])
    assert dx == 1.0
    assert np.isnan(plain)  # the plain formula's gradient: inf / inf


@pytest.mark.parametrize("mode", MODES)
def test_custom_gradient_matches_central_differences(mode):
    @dg.custom_gradient
    def softplus(x):
        def grad(dy):
            return dy * dg.sigmoid(x)
        return dg.math.log1p(dg.exp(x)), grad

    check_grads(softplus, [np.array([-1.5, 0.2, 2.0])], order=2, modes=[mode])


@pytest.mark.parametrize("mode", MODES)
def test_decorator_with_parentheses_and_two_inputs(mode):
    @dg.custom_gradient()
    def f(x, y):
        def grad(dz):
            return dz * 10.0, None   # deliberately not the true gradient
        return x * y, grad

    value, (dx, dy) = grads(mode, f, [np.array([2.0, 3.0]), np.array([4.0, 5.0])])
    np.testing.assert_array_equal(value, [8.0, 15.0])
    np.testing.assert_array_equal(dx, [10.0, 10.0])
    assert dy is None


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    @dg.custom_gradient
    def __call__(self, x):
        def grad(dy):
            return dy * self.scale * 100.0
        return x * self.scale, grad


@pytest.mark.parametrize("mode", MODES)
def test_method(mode):
    value, (dx,) = grads(mode, Scaler(3.0), [np.array([1.0, 2.0])])
    np.testing.assert_array_equal(value, [3.0, 6.0])
    np.testing.assert_array_equal(dx, [300.0, 300.0])


@pytest.mark.parametrize("mode", MODES)
def test_nested_output_structure(mode):
    @dg.custom_gradient
    def f(x):
        def grad(d_sum, d_prod):   # flat, in nest order (dict keys sorted)
            return d_sum * 2.0 + d_prod * 3.0
        return {"sum": x + x, "prod": x * x}, grad

    def loss(x):
        out = f(x)
        return dg.reduce_sum(out["sum"]) + dg.reduce_sum(out["prod"])
    value, (dx,) = grads(mode, loss, [np.array([1.0, 2.0])])
    assert value == 2 * 3 + 5
    np.testing.assert_array_equal(dx, [5.0, 5.0])


def _bar(x, y):
    """tensorflow/tensorflow#65839: a custom gradient far from the true one."""
    def grad(upstream):
        return upstream * 1000.0 * (x - y), {"y": upstream * -2.0 * (x - y)}
    return dg.reduce_sum(dg.square(x - y)), grad


@pytest.mark.parametrize("mode", MODES)
def test_keyword_tensors_are_inputs_and_gradients_come_back_by_keyword(mode):
    bar = dg.custom_gradient(_bar)
    x, y = np.array([4.0, 5.0]), np.array([5.0, 7.0])
    _, (dx, dy) = grads(mode, lambda x, y: bar(x, y=y), [x, y])
    np.testing.assert_array_equal(dx, 1000.0 * (x - y))
    np.testing.assert_array_equal(dy, -2.0 * (x - y))


@pytest.mark.parametrize("mode", MODES)
def test_all_keyword_call_uses_the_custom_gradient(mode):
    @dg.custom_gradient
    def bar(x, y):
        def grad(upstream):
            return {"x": upstream * 1000.0 * (x - y), "y": upstream * -2.0 * (x - y)}
        return dg.reduce_sum(dg.square(x - y)), grad

    x, y = np.array([4.0, 5.0]), np.array([5.0, 7.0])
    _, (dx, dy) = grads(mode, lambda x, y: bar(x=x, y=y), [x, y])
    np.testing.assert_array_equal(dx, 1000.0 * (x - y))
    np.testing.assert_array_equal(dy, -2.0 * (x - y))


@pytest.mark.parametrize("mode", MODES)
def test_keyword_gradients_as_one_flat_sequence(mode):
    @dg.custom_gradient
    def f(x, scale=None):
        def grad(dy):
            return dy * 7.0, dy * 11.0
        return x * scale, grad

    _, (dx, ds) = grads(mode, lambda x, s: f(x, scale=s), [np.array(2.0), np.array(3.0)])
    assert (dx, ds) == (7.0, 11.0)


@pytest.mark.parametrize("mode", MODES)
def test_non_tensor_keywords_are_passed_through(mode):
    @dg.custom_gradient
    def f(x, power=2):
        def grad(dy):
            return dy * power * 100.0
        return x ** power, grad

    value, (dx,) = grads(mode, lambda x: f(x, power=3), [np.array(2.0)])
    assert (value, dx) == (8.0, 300.0)


@pytest.mark.parametrize("mode", MODES)
def test_wrong_number_of_input_gradients(mode):
    @dg.custom_gradient
    def f(x, y):
        def grad(dz):
            return dz
        return x * y, grad

    with pytest.raises(ValueError, match="expected to return 2 gradients but returned 1"):
        grads(mode, f, [np.array(1.0), np.array(2.0)])


@pytest.mark.parametrize("mode", MODES)
def test_unknown_keyword_gradient(mode):
    @dg.custom_gradient
    def f(x, y=None):
        def grad(dz):
            return dz, {"z": dz}
        return x * y, grad

    with pytest.raises(ValueError, match=r"keywords \['z'\]"):
        grads(mode, lambda x, y: f(x, y=y), [np.array(1.0), np.array(2.0)])


# -- variables ------------------------------------------------------------------
def _var_grads(mode, make_fn, x_value=2.0, w_value=3.0):
    """(dx, dw) of fn(x) where fn reads a variable w it is not given."""
    if mode == "eager":
        w = dg.Variable(w_value, dtype=dg.float64)
        fn = make_fn(w)
        x = dg.constant(x_value, dg.float64)
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        dx, dw = tape.gradient(y, [x, w])
        return float(dx), float(dw)
    g = dg.Graph()
    with g.as_default():
        w = dg.Variable(w_value, dtype=dg.float64)
        fn = make_fn(w)
        x = dg.constant(x_value, dg.float64)
        y = fn(x)
        dx, dw = dg.gradients(y, [x, w])
        with dg.Session(graph=g) as sess:
            sess.run(dg.global_variables_initializer())
            return tuple(float(v) for v in sess.run([dx, dw]))


@pytest.mark.parametrize("mode", MODES)
def test_variables_get_gradients_from_grad_fn(mode):
    def make(w):
        @dg.custom_gradient
        def f(x):
            def grad(dy, variables=None):
                assert len(variables) == 1 and variables[0] is w
                return dy * w * 10.0, [dy * x * 100.0]
            return x * w, grad
        return f

    assert _var_grads(mode, make) == (30.0, 200.0)


@pytest.mark.parametrize("mode", MODES)
def test_variables_need_the_variables_keyword(mode):
    def make(w):
        @dg.custom_gradient
        def f(x):
            def grad(dy):
                return dy * w
            return x * w, grad
        return f

    with pytest.raises(TypeError, match="grad_fn must accept a keyword argument 'variables'"):
        _var_grads(mode, make)


@pytest.mark.parametrize("mode", MODES)
def test_one_gradient_per_variable(mode):
    def make(w):
        @dg.custom_gradient
        def f(x):
            def grad(dy, variables=None):
                return dy * w, []
            return x * w, grad
        return f

    with pytest.raises(ValueError, match="Must return gradient for each variable"):
        _var_grads(mode, make)


@pytest.mark.parametrize("mode", MODES)
def test_variable_passed_as_input_is_an_input(mode):
    def make(w):
        @dg.custom_gradient
        def f(x, v):
            def grad(dy):
                return dy * 5.0, dy * 7.0
            return x * v, grad
        return lambda x: f(x, w)

    assert _var_grads(mode, make) == (5.0, 7.0)


# -- second order through nested custom gradients ---------------------------------
def _cube(mark):
    """y = x**3 whose first and second derivatives are custom (second scaled by `mark`)."""
    @dg.custom_gradient
    def cube(x):
        def first_order(dy):
            @dg.custom_gradient
            def slope(x_):
                def second_order(ddy):
                    return ddy * 6.0 * x_ * mark
                return 3.0 * x_ * x_, second_order
            return dy * slope(x)
        return x * x * x, first_order
    return cube


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("mark", [1.0, 2.0])
def test_second_order_through_nested_custom_gradients(mode, mark):
    cube = _cube(mark)
    if mode == "eager":
        x = dg.constant(1.5, dg.float64)
        with dg.GradientTape() as outer:
            outer.watch(x)
            with dg.GradientTape() as inner:
                inner.watch(x)
                y = cube(x)
            dx = inner.gradient(y, x)
        d2x = outer.gradient(dx, x)
        first, second = float(dx), float(d2x)
    else:
        g = dg.Graph()
        with g.as_default():
            x = dg.constant(1.5, dg.float64)
            (dx,) = dg.gradients(cube(x), x)
            (d2x,) = dg.gradients(dx, x)
            with dg.Session(graph=g) as sess:
                first, second = sess.run([dx, d2x])
    assert first == pytest.approx(3 * 1.5 ** 2)
    assert second == pytest.approx(6 * 1.5 * mark)


def test_graph_mode_uses_an_identity_n_with_the_override():
    g = dg.Graph()
    with g.as_default():
        y = log1pexp(dg.constant(1.0))
    assert y.op.type == "IdentityN"
    assert y.op.gradient_name == "CustomGradient"


def test_tape_inside_a_graph_uses_the_custom_gradient():
    g = dg.Graph()
    with g.as_default():
        x = dg.constant(100.0)
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        dx = tape.gradient(y, x)
        with dg.Session(graph=g) as sess, np.errstate(over="ignore"):
            assert sess.run(dx) == 1.0


def test_outputs_are_fresh_tensors_even_when_f_returns_its_input():
    @dg.custom_gradient
    def same(x):
        return x, lambda dy: dy * 4.0

    x = dg.constant(2.0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = same(x)
    assert y is not x
    assert float(tape.gradient(y, x)) == 4.0


# -- grad_pass_through ----------------------------------------------------------------
def test_grad_pass_through_assign_eager():
    x = dg.Variable(1.0, name="x")
    z = dg.Variable(3.0, name="z")
    with dg.GradientTape() as tape:
        y = dg.grad_pass_through(x.assign)(z ** 2)
    assert float(y) == 9.0
    assert float(tape.gradient(y, z)) == 6.0
    assert float(x.numpy()) == 9.0


def test_grad_pass_through_assign_graph():
    g = dg.Graph()
    with g.as_default():
        x = dg.Variable(1.0, name="x")
        z = dg.Variable(3.0, name="z")
        y = dg.grad_pass_through(x.assign)(z ** 2)
        (dz,) = dg.gradients(y, z)
        with dg.Session(graph=g) as sess:
            sess.run(dg.global_variables_initializer())
            assert sess.run([y, dz]) == [9.0, 6.0]


class MovingAverage:
    def __init__(self, decay=0.5):
        self.decay = decay
        self.average = dg.Variable(0.0, dtype=dg.float64, trainable=False)

    def __call__(self, x):
        return self.average.assign(self.decay * self.average + (1 - self.decay) * x)


@pytest.mark.parametrize("mode", MODES)
def test_grad_pass_through_moving_average(mode):
    if mode == "eager":
        average = MovingAverage()
        x = dg.constant(4.0, dg.float64)
        with dg.GradientTape() as tape:
            tape.watch(x)
            mavg = dg.grad_pass_through(average)(x)
        assert float(mavg) == 2.0
        assert float(tape.gradient(mavg, x)) == 1.0
        return
    g = dg.Graph()
    with g.as_default():
        average = MovingAverage()
        x = dg.constant(4.0, dg.float64)
        mavg = dg.grad_pass_through(average)(x)
        (dx,) = dg.gradients(mavg, x)
        with dg.Session(graph=g) as sess:
            sess.run(dg.global_variables_initializer())
            assert sess.run([mavg, dx]) == [2.0, 1.0]


def test_inside_a_function_the_custom_gradient_is_used():
    @dg.custom_gradient
    def f(x):
        return dg.sin(x), lambda dy: dy * 10.0

    @dg.function
    def h(x):
        return f(x) * 2.0

    x = dg.constant(np.array([0.5, 1.0]))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = h(x)
    np.testing.assert_array_equal(tape.gradient(y, x), [20.0, 20.0])
