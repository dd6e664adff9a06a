"""Control-flow behaviours found by TF's cond_v2/while_v2 tests (values from
TF 2.21 or mathematics): tapes inside functions see variable reads in bodies,
back_prop=False, static shapes through constant shape tensors, custom
gradients with variables in loop bodies, control dependencies on outer ops."""
import numpy as np
import pytest

import duograd as dg


@pytest.mark.parametrize("dtype", [dg.float32, dg.float64])
def test_tape_inside_a_function_sees_variable_reads_in_a_loop_body(dtype):
    v = dg.Variable(1.0, dtype=dtype)

    @dg.function
    def loop():
        with dg.GradientTape() as tape:
            _, x = dg.while_loop(lambda i, _: i < 2, lambda i, x: (i + 1, x * v),
                                 [0, dg.constant(2.0, dtype=dtype)])
        return tape.gradient(x, v)

    assert loop().numpy() == 4.0     # d(2 v^2)/dv at v = 1 (TF 2.21: 4.0)


def test_tape_inside_a_function_sees_variable_reads_in_a_cond_branch():
    v = dg.Variable(3.0)

    @dg.function
    def grad(x):
        with dg.GradientTape() as tape:
            y = dg.cond(x > 0.0, lambda: v * v * x, lambda: x)
        return tape.gradient(y, v)

    assert grad(dg.constant(2.0)).numpy() == 12.0    # 2 v x
    assert grad(dg.constant(-2.0)).numpy() == 0.0     # connected statically: zero


def test_while_loop_without_back_prop_has_no_gradient_in_every_mode():
    with dg.Graph().as_default():
        x = dg.constant(2.0)
        out = dg.while_loop(lambda v: v < 8.0, lambda v: v * v, [x], back_prop=False)
        assert dg.gradients(out, [x]) == [None]     # TF 2.21: [None]
        with dg.Session() as sess:
            assert sess.run(out) == [16.0]
    x = dg.constant(2.0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        out = dg.while_loop(lambda v: v < 8.0, lambda v: v * v, [x], back_prop=False)
    assert out[0].numpy() == 16.0 and tape.gradient(out, x) is None

    @dg.function
    def f(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            out = dg.while_loop(lambda v: v < 8.0, lambda v: v * v, [x], back_prop=False)
        return tape.gradient(out, x, unconnected_gradients="zero")

    assert f(dg.constant(2.0)).numpy() == 0.0


@pytest.mark.parametrize("make", [dg.zeros, dg.ones, lambda s: dg.fill(s, 2.0),
                                  lambda s: dg.random.uniform(s)],
                         ids=["zeros", "ones", "fill", "uniform"])
def test_static_shapes_through_constant_shape_tensors_in_loop_bodies(make):
    """TF 2.21 (while_v2_test.testFillOpsShape): concat([[5], shape]) keeps [5, 3, 4]."""
    with dg.Graph().as_default():
        shape = dg.constant([3, 4])
        shapes = []

        def body(i, u):
            extended = dg.concat([[5], shape], axis=0)
            u = make(extended)
            shapes.append(u.shape.as_list())
            shapes.append(dg.reshape(dg.reshape(u, [-1]), extended).shape.as_list())
            return i + 1, u

        dg.while_loop(lambda i, _: i < 3, body, [0, dg.zeros([5, 3, 4])])
        assert shapes == [[5, 3, 4], [5, 3, 4]]


def test_custom_gradient_with_variables_inside_a_loop_body():
    """TF 2.21 (while_v2_test.testCustomGradient): value 16, gradient 32."""
    with dg.Graph().as_default():
        x = dg.constant(2.0)
        n = dg.constant(1.0)
        m = dg.Variable(1.0)

        def body(v):
            @dg.custom_gradient
            def square(v):
                def grad_fn(dy, variables=None):
                    return dy * 2 * v * n * m, [v * v]
                return v * v * m, grad_fn
            return square(v)

        out = dg.while_loop(lambda v: v < 8.0, body, [x])
        (grad,) = dg.gradients(out, [x])
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            assert sess.run(out) == [16.0] and sess.run(grad) == 32.0


def test_control_dependencies_on_ops_outside_a_loop_or_branch():
    """TF 2.21 (while_v2_test.testExternalControlDependencies): v becomes 2."""
    with dg.Graph().as_default():
        v = dg.Variable(1.0)
        w = dg.Variable(10.0)
        with dg.Session() as sess:
            sess.run([v.initializer, w.initializer])
            bump = v.assign_add(1.0)

            def body(i):
                with dg.control_dependencies([bump]):
                    return i + 1

            loop = dg.while_loop(lambda i: i < 1, body, [0])
            loop[0].op.run()
            assert sess.run(v) == 2.0
            bump_w = w.assign_add(1.0)

            def branch():
                with dg.control_dependencies([bump_w]):
                    return dg.constant(1.0)

            out = dg.cond(dg.constant(True), branch, lambda: dg.constant(0.0))
            assert sess.run(out) == 1.0 and sess.run(w) == 11.0


def test_one_element_loop_predicate_is_squeezed():
    """TF 2.21 (while_v2_test.testMultipleLoopNonscalarCond): [[45.]], gradient 9."""
    with dg.Graph().as_default():
        x = dg.constant([[5.0]])
        y = dg.constant(3.0)
        out = dg.while_loop(lambda v, _: v < 45.0, lambda v, w: (v * w, w), [x, y])
        (grad,) = dg.gradients(out, [x])
        with dg.Session() as sess:
            value, g = sess.run([out, grad])
        assert value[0] == [[45.0]] and value[1] == 3.0 and g == [[9.0]]


def test_loop_variable_changing_dtype_is_tfs_type_error():
    @dg.function
    def build():
        x = dg.constant(1.0)
        return dg.while_loop(lambda x: x < 10.0, lambda x: dg.cast(x, dg.float16) + 1.0, [x])

    with pytest.raises(TypeError, match=r"Loop var Const:0 enters the loop with type <dtype: "
                                        r"'float32'> but has type <dtype: 'float16'>"):
        build()


def test_cond_branches_may_return_tensor_arrays():
    """TF 2.21 (cond_v2_test.testCondAndTensorArrayInDefun): squares of the positives."""
    def squares_of_positives():
        x = dg.range(-5, 5)
        out = dg.TensorArray(dtype=dg.int32, size=10)

        def body(i, out):
            out = dg.cond(x[i] > 0, lambda: out.write(i, x[i] ** 2), lambda: out.write(i, x[i]))
            return i + 1, out

        return dg.while_loop(lambda i, _: i < 10, body, [dg.constant(0), out])[1].stack()

    expected = [-5, -4, -3, -2, -1, 0, 1, 4, 9, 16]
    np.testing.assert_array_equal(dg.function(squares_of_positives)().numpy(), expected)
    np.testing.assert_array_equal(squares_of_positives().numpy(), expected)
    with dg.Graph().as_default():
        with dg.Session() as sess:
            np.testing.assert_array_equal(sess.run(squares_of_positives()), expected)
