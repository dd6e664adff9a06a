"""Small programs run unchanged under TensorFlow and under duograd (`tf` is either).

Each returns values, Nones and caught exceptions; the runner compares the two
backends' results (values, dtypes, None positions, exception classes). Every
program pins a behaviour learned from TensorFlow's own tests; add one for
each new behaviour you match.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np

PROGRAMS: Dict[str, Callable[[Any], Any]] = {}


def program(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    PROGRAMS[f.__name__] = f
    return f


def attempt(f: Callable[[], Any]) -> Any:
    """f's result, or the exception it raised (compared by class)."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return e


# -- the gradient checkers (gradient_checker_v2_test, gradient_checker) ---------------
@program
def checker_shapes_are_y_by_x(tf):
    x = np.array([[1.0, 2.0, 3.0]])
    w = np.array([[1.0], [2.0], [3.0]])
    return tf.test.compute_gradient(lambda x, w: tf.matmul(x, w) * tf.matmul(x, w), [x, w])


@program
def checker_complex_and_gather(tf):
    c = tf.constant(1 + 2j, dtype=tf.complex64)
    x = tf.constant([3 + 4j], dtype=tf.complex64)
    params = tf.constant(np.arange(6.0).reshape(3, 2))
    return [tf.test.compute_gradient(lambda x: c * x, [x])[0],
            tf.test.compute_gradient(lambda p: tf.gather(p, [2, 0, 2]), (params,))[0]]


@program
def checker_empty_output_and_errors(tf):
    x = np.array([[1.0, 2.0, 3.0]])

    @tf.custom_gradient
    def nonzero(x):
        return tf.zeros([0]), lambda dy: tf.ones([2])

    return [tf.test.compute_gradient(lambda x: tf.matmul(x, tf.zeros([3, 0], tf.float64)), [x]),
            attempt(lambda: tf.test.compute_gradient(nonzero, [np.zeros([2], np.float32)])),
            attempt(lambda: tf.test.compute_gradient(tf.sin, np.zeros(2)))]


@program
def checker_in_graph_mode_with_default_session(tf):
    with tf.Graph().as_default(), tf.compat.v1.Session().as_default():
        x = tf.constant([1.0, 2.0], dtype=tf.float64)
        return tf.test.compute_gradient(lambda x: x * x * 3.0, [x])


@program
def checker_v1_is_x_by_y(tf):
    with tf.Graph().as_default(), tf.compat.v1.Session():
        x = tf.compat.v1.placeholder(tf.float64, [2])
        y = tf.stack([x[0] * x[1], tf.sin(x[0]) * 3.0, x[1]])
        init = np.array([1.0, 2.0])
        return [tf.compat.v1.test.compute_gradient(x, [2], y, [3], x_init_value=init),
                bool(tf.compat.v1.test.compute_gradient_error(x, [2], y, [3],
                                                              x_init_value=init) < 1e-6)]


# -- tf.gradients arguments and edge cases (gradients_test) -----------------------------
@program
def gradients_argument_forms(tf):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [3])
        y = x * 2.0
        z = y * y
        grads = [tf.gradients(z, x, stop_gradients=y), tf.gradients(z, (x,), stop_gradients=(y,)),
                 tf.gradients((z, y), x), tf.gradients(z, x, grad_ys=tf.ones([3])),
                 tf.gradients(z, tf.constant(3.0)),
                 attempt(lambda: tf.gradients([z, y], x, grad_ys=[tf.ones([3])])),
                 attempt(lambda: tf.gradients(z, x, grad_ys=tf.ones([3], tf.int32)))]
        fetch = grads[2] + grads[3]
        with tf.compat.v1.Session() as sess:
            values = sess.run(fetch, {x: [1.0, 2.0, 3.0]})
        return [grads[0], grads[1], grads[4], grads[5], grads[6], values]


@program
def gradients_of_reductions_of_unknown_rank(tf):
    value = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with tf.Graph().as_default():
        u = tf.compat.v1.placeholder(tf.float32, None)
        grads = [tf.gradients(r(u), u)[0] for r in (tf.reduce_sum, tf.reduce_mean,
                                                    tf.reduce_prod, tf.reduce_logsumexp)]
        with tf.compat.v1.Session() as sess:
            return sess.run(grads, {u: value})


@program
def complex_y_needs_grad_ys(tf):
    with tf.Graph().as_default():
        x = tf.constant(7 + 3j, dtype=tf.complex64)
        return attempt(lambda: tf.gradients(tf.square(x), x))


@program
def hessians_of_unconnected_are_errors(tf):
    with tf.Graph().as_default():
        p = tf.compat.v1.placeholder(tf.float32, (3, 3))
        x = tf.constant([1.0, 2.0])
        u = tf.constant([3.0])
        q = tf.compat.v1.placeholder(tf.float32, [3])
        (h,) = tf.compat.v1.hessians(tf.reduce_sum(q * q * q), q)
        with tf.compat.v1.Session() as sess:
            value = sess.run(h, {q: [1.0, 2.0, 3.0]})
        return [attempt(lambda: tf.compat.v1.hessians(p, p)),
                attempt(lambda: tf.compat.v1.hessians(tf.reduce_sum(x * x), u)), value]


@program
def custom_gradient_keeps_nested_inputs(tf):
    seen = []

    @tf.custom_gradient
    def f(first, rest):
        seen.append((type(first).__name__.endswith("Tensor"), rest[0], len(rest[1])))
        total = first + rest[1][0]
        return total * 2.0, lambda dy: [dy * 3.0, dy * 4.0]

    a, b = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, ((), [b]))
    return [y, tape.gradient(y, [a, b]), seen]


@program
def graph_element_of_a_variable(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(3.0)
        t = g.as_graph_element(v)
        grad = tf.gradients(t * t, v)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            return sess.run(grad)


# -- jacobians (backprop_test JacobianTest / BatchJacobianTest) --------------------------
@program
def jacobian_zero_size(tf):
    x = tf.zeros([0, 3])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
        empty = tf.zeros([1, 0])
        tape.watch(empty)
        doubled = empty * 2.0
    return [tape.jacobian(y, x), tape.batch_jacobian(doubled, empty),
            tape.jacobian(y, tf.constant(1.0))]


@program
def batch_jacobian_degenerate_and_rank_errors(tf):
    x = tf.zeros([1, 0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 2
    z = tf.ones([3, 2])
    with tf.GradientTape(persistent=True) as tape2:
        tape2.watch(z)
        column_sums = tf.reduce_sum(z, axis=0)
    with tf.GradientTape() as once:
        w = tf.constant([[1.0, 2.0]])
        once.watch(w)
        ww = w * w
    return [tf.shape(tape.batch_jacobian(y, x, experimental_use_pfor=False)),
            tf.shape(tape.batch_jacobian(y, x)),
            attempt(lambda: tape2.batch_jacobian(column_sums, z)),
            attempt(lambda: once.batch_jacobian(ww, w, experimental_use_pfor=False))]


@program
def jacobian_parallel_iterations(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.matmul(x, tf.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]]))
    return [tape.batch_jacobian(y, x, parallel_iterations=2),
            tape.jacobian(y, x, parallel_iterations=3, experimental_use_pfor=False)]


# -- forward mode (forwardprop_test) -------------------------------------------------
@program
def jvp_inside_vectorized_map(tf):
    primal = tf.constant([0.1, 0.2, 0.3])
    f = tf.function(lambda x: tf.sin(x) * tf.reduce_sum(x * x))

    def jvp(tangent):
        with tf.autodiff.ForwardAccumulator(primal, tangent) as acc:
            y = f(primal)
        return acc.jvp(y)

    return tf.vectorized_map(jvp, tf.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3)))


@program
def jvp_and_tape_inside_function_of_outer_tensor(tf):
    primal = tf.constant([0.1, 0.2, 0.3])

    @tf.function
    def both(tangent):
        with tf.autodiff.ForwardAccumulator(primal, tangent) as acc:
            y = tf.sin(primal)
        with tf.GradientTape() as tape:
            tape.watch(primal)
            z = tf.reduce_sum(tf.cos(primal) * tangent)
        return acc.jvp(y), tape.gradient(z, primal)

    return both(tf.constant([1.0, 2.0, 3.0]))


@program
def accumulator_misuse(tf):
    x = tf.constant(-2.0)

    def reenter():
        with tf.autodiff.ForwardAccumulator(x, 1.5) as acc:
            with acc:
                pass

    return [attempt(lambda: tf.autodiff.ForwardAccumulator([x, x], [1.0, 2.0])),
            attempt(reenter)]


# -- porting TF1 graph code (tf.compat.v1) --------------------------------------------
@program
def variable_scopes(tf):
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        with v1.variable_scope("foo"):
            a = v1.get_variable("v", [2], initializer=v1.constant_initializer(3.0))
            again = attempt(lambda: v1.get_variable("v", [2]))
        with v1.variable_scope("foo", reuse=True):
            shared = v1.get_variable("v", [2]) is a
            missing = attempt(lambda: v1.get_variable("w", [2]))
            misshapen = attempt(lambda: v1.get_variable("v", [3]))
        with v1.variable_scope("bar", initializer=v1.ones_initializer()):
            d = v1.get_variable("d", [2])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = sess.run([a, d])
        return [a.name, d.name, shared, again, missing, misshapen, values]


@program
def tensor_shape_assertions(tf):
    shape = tf.TensorShape([2, None])
    return [attempt(lambda: shape.assert_is_compatible_with([2, 3])),
            attempt(lambda: shape.assert_is_compatible_with([3])),
            attempt(lambda: tf.TensorShape([2]).assert_is_compatible_with([]))]


# -- map_fn and scan (forwardprop_test HessianTests, parallel_for gradients_test) --------
@program
def map_fn_and_scan(tf):
    x = tf.constant(np.arange(6.0).reshape(3, 2))
    with tf.GradientTape() as tape:
        tape.watch(x)
        squares = tf.map_fn(lambda r: r * r, x)
        products = tf.scan(lambda a, e: a * e, x, initializer=tf.constant([1.0, 1.0], tf.float64))
        suffix = tf.scan(lambda a, e: a + e, x, reverse=True)
        loss = tf.reduce_sum(squares) + tf.reduce_sum(products) + tf.reduce_sum(suffix)
    with tf.Graph().as_default():
        z = tf.scan(lambda a, e: a + e, tf.ones([6]), initializer=tf.ones([3, 4]))
        static = z.shape.as_list()
    return [squares, products, suffix, tape.gradient(loss, x), static]


@program
def forward_over_back_hessian_in_map_fn_in_function(tf):
    mat_value = np.random.RandomState([1, 2, 3]).randn(4, 4).astype("float32")
    mat = tf.Variable(mat_value)

    def hvp(x, tangent):
        with tf.autodiff.ForwardAccumulator(x, tangent) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(x[:, None] * mat * x[None, :])
            grad = tape.gradient(y, x)
        return acc.jvp(grad)

    hessian = tf.function(lambda x: tf.map_fn(lambda t: hvp(x, t), tf.eye(4), dtype=tf.float32))
    return hessian(tf.constant([0.5, -1.0, 2.0, 0.25]))


# -- tf.data: TF1 captures, element errors, ignore_errors (issue 23) ------------------
def _drain_with_errors(tf, dataset):
    iterator, out = iter(dataset), []
    for _ in range(12):
        try:
            out.append(next(iterator))
        except StopIteration:
            break
        except tf.errors.OpError as error:
            out.append(error)
    return out


def _inverse(tf):
    return lambda x: tf.debugging.check_numerics(1.0 / tf.cast(x - 2, tf.float32), "boom")


@program
def data_iteration_goes_on_after_an_element_error(tf):
    d = tf.data.Dataset
    return [_drain_with_errors(tf, d.range(5).map(_inverse(tf))),
            _drain_with_errors(tf, d.range(5).map(_inverse(tf)).batch(2)),
            _drain_with_errors(tf, d.range(5).filter(lambda x: _inverse(tf)(x) > 0)),
            _drain_with_errors(tf, d.range(5).map(_inverse(tf)).ignore_errors()),
            _drain_with_errors(tf, d.range(5).map(_inverse(tf)).apply(
                tf.data.experimental.ignore_errors()).batch(2))]


@program
def data_tf1_iterators_capture_placeholders_constants_variables(tf):
    v1 = tf.compat.v1
    out = []
    with tf.Graph().as_default():
        scale = v1.placeholder(tf.float32, [])
        w = v1.get_variable("w", initializer=2.0, use_resource=True)
        d = v1.data.Dataset.range(3)
        fed = v1.data.make_initializable_iterator(
            d.map(lambda x: tf.cast(x, tf.float32) * scale * w))
        const = v1.data.make_one_shot_iterator(
            d.map(lambda x: tf.cast(x, tf.float32) * (tf.constant(2.0) * 3.0)))
        out.append(attempt(lambda: v1.data.make_one_shot_iterator(
            d.map(lambda x: tf.cast(x, tf.float32) * scale))))
        out.append(attempt(lambda: v1.data.make_one_shot_iterator(
            d.map(lambda x: tf.cast(x, tf.float32) * w))))
        fed_next, const_next = fed.get_next(), const.get_next()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(fed.initializer, feed_dict={scale: 1.5})
            out.append([sess.run(fed_next) for _ in range(3)])
            out.append(attempt(lambda: sess.run(fed_next)))
            out.append([sess.run(const_next) for _ in range(3)])
    return out
