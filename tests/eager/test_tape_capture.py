"""A tape opened inside a while body (a function graph) sees reads of outer variables
and tensors: every capture is recorded on the tapes as an identity, as in TF."""
from __future__ import annotations

import numpy as np

import duograd as dg


def test_tape_inside_while_body_differentiates_an_outer_variable():
    grads = []
    with dg.Graph().as_default():
        v = dg.Variable(1.5)

        def body(i):
            _ = v + 1.0          # the variable is captured before the tape opens
            with dg.GradientTape() as tape:
                result = v * v
            grads.append(tape.gradient(result, v))
            return i + 1.0

        loop = dg.while_loop(lambda i: i < 1.0, body, [0.0])
        assert grads[0] is not None
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            sess.run(loop)


def test_tape_inside_while_body_differentiates_an_outer_tensor():
    grads = []
    with dg.Graph().as_default():
        x = dg.constant(3.0)

        def body(i):
            with dg.GradientTape() as tape:
                tape.watch(x)
                result = x * x * i
            grads.append(tape.gradient(result, x))
            return i + 1.0

        dg.while_loop(lambda i: i < 1.0, body, [0.0])
        assert grads[0] is not None and grads[0].dtype == dg.float32


def test_eager_tape_through_function_capture_is_unchanged():
    w = dg.Variable(np.array([2.0, 3.0]))

    @dg.function
    def f(x):
        return dg.reduce_sum(w * x)

    x = dg.constant([1.0, 1.0], dtype=dg.float64)
    with dg.GradientTape() as tape:
        y = f(x)
    np.testing.assert_array_equal(tape.gradient(y, w), [1.0, 1.0])
