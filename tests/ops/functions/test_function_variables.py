"""Variables created inside dg.function (TF 2.21's rules): lifted out on the first
trace, a second trace that would create one is a ValueError, lazily built
layers train, and dg.init_scope leaves the function graph."""
import numpy as np
import pytest

import duograd as dg


def test_a_counter_created_on_the_first_call_counts_1_2_3():
    class State:
        counter = None

    state = State()

    @dg.function
    def count():
        if state.counter is None:
            state.counter = dg.Variable(0)
        state.counter.assign_add(1)
        return state.counter.read_value()

    assert [int(count().numpy()) for _ in range(3)] == [1, 2, 3]   # TF 2.21: 1, 2, 3
    assert count.experimental_get_tracing_count() == 2             # TF 2.21: 2
    assert state.counter.numpy() == 3                              # lives on, eagerly


def test_a_new_variable_on_every_call_raises_tf_value_error():
    @dg.function
    def every_call():
        v = dg.Variable(1.0)
        return v.read_value()

    # TF 2.21: ValueError "tf.function only supports singleton tf.Variables created on
    # the first call ..."; the failed trace is not counted.
    with pytest.raises(ValueError, match="singleton dg.Variables created on the first call"):
        every_call()
    assert every_call.experimental_get_tracing_count() == 1


def test_a_variable_created_by_the_trace_of_a_later_call_raises():
    made = []

    @dg.function
    def f(x, make):
        if make:
            made.append(dg.Variable(1.0))
        return x

    assert f(dg.constant(1.0), False).numpy() == 1.0
    # TF 2.21: ValueError "Creating variables on a non-first call to a function
    # decorated with tf.function."
    with pytest.raises(ValueError, match="non-first call"):
        f(dg.constant(1.0), True)


class Dense:
    """A layer that builds its variables on first use (inside the first trace)."""

    def __init__(self, units: int) -> None:
        self.units = units
        self.w = None

    def __call__(self, x):
        if self.w is None:
            rng = np.random.default_rng(0)
            self.w = dg.Variable(rng.standard_normal((x.shape[-1], self.units)))
            self.b = dg.Variable(np.zeros(self.units))
        return dg.matmul(x, self.w) + self.b


def test_a_layer_built_lazily_inside_the_first_trace_gets_gradients_and_trains():
    layer = Dense(2)
    x = dg.constant(np.array([[1.0, 2.0, 3.0]]))

    @dg.function
    def step(x):
        with dg.GradientTape() as tape:
            loss = dg.reduce_sum(layer(x) ** 2)
        dw, db = tape.gradient(loss, [layer.w, layer.b])
        layer.w.assign_sub(0.01 * dw)
        layer.b.assign_sub(0.01 * db)
        return loss

    losses = [float(step(x).numpy()) for _ in range(5)]
    w0 = np.random.default_rng(0).standard_normal((3, 2))
    y0 = np.array([[1.0, 2.0, 3.0]]) @ w0
    assert losses[0] == pytest.approx(np.sum(y0 ** 2))
    assert all(b < a for a, b in zip(losses, losses[1:]))
    # the eager variables hold the trained values: d loss / d w = 2 x^T y
    grad_w = 2 * np.array([[1.0, 2.0, 3.0]]).T @ y0
    assert step.experimental_get_tracing_count() == 2
    with dg.GradientTape() as tape:
        loss = dg.reduce_sum(layer(x) ** 2)
    assert tape.gradient(loss, layer.w) is not None
    assert not np.allclose(layer.w.numpy(), w0 - 0.01 * grad_w * 0)  # it moved


def test_initial_value_from_the_function_graph_is_lifted_when_it_reads_no_argument():
    holder = []
    outer = dg.constant(2.0)

    @dg.function
    def f(x):
        if not holder:
            holder.append(dg.Variable(outer * 3.0))     # a function-graph tensor
            holder.append(dg.Variable(lambda: dg.ones([2]) * 4.0))  # a callable
        return holder[0] * x + dg.reduce_sum(holder[1])

    assert f(dg.constant(1.0)).numpy() == 14.0
    assert holder[0].numpy() == 6.0
    np.testing.assert_allclose(holder[1].numpy(), [4.0, 4.0])


def test_variables_created_in_a_function_traced_in_a_v1_graph_live_in_that_graph():
    graph = dg.Graph()
    with graph.as_default():
        holder = []

        @dg.function
        def f(x):
            if not holder:
                holder.append(dg.Variable(5.0))
            holder[0].assign_add(x)
            return holder[0].read_value()

        out = f(dg.constant(1.0))
        assert holder[0] in graph.get_collection("variables")
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            assert sess.run(out) == 6.0
            assert sess.run(out) == 7.0


def test_init_scope_leaves_function_graphs():
    seen = []

    @dg.function
    def f(x):
        with dg.init_scope():
            seen.append(dg.executing_eagerly())
            eager = dg.constant(2.0)                 # an eager tensor, made once
        seen.append(dg.executing_eagerly())
        return x * eager

    assert f(dg.constant(3.0)).numpy() == 6.0
    assert seen == [True, False]
    graph = dg.Graph()
    with graph.as_default(), dg.control_dependencies([dg.no_op()]):
        @dg.function
        def g(x):
            with dg.init_scope():
                seen.append(dg.get_default_graph() is graph)
                op = dg.no_op()
                seen.append(op.control_inputs == [])     # no control dependencies
            return x

        g(dg.constant(1.0))
    assert seen[2:] == [True, True]


def test_an_initial_value_computed_from_the_arguments_is_set_by_the_first_call():
    """TF 2.21: tf.Variable(x * 2) in the first trace holds 6.0 after f(3.0), and
    keeps it on later calls (6.0 after f(5.0))."""
    holder = []

    @dg.function
    def f(x):
        if not holder:
            holder.append(dg.Variable(x * 2.0))
        return holder[0].read_value() + 0.0 * x

    assert f(dg.constant(3.0)).numpy() == 6.0
    assert f(dg.constant(5.0)).numpy() == 6.0
    assert holder[0].numpy() == 6.0

    later = []

    @dg.function
    def g(x):
        if not later:
            later.append(dg.Variable(dg.concat([x, x], 0)))
        return later[0] * 1.0

    with pytest.raises(ValueError, match="initialized only by a call with eager tensors"):
        g.get_concrete_function(dg.TensorSpec([2], dg.float32))
