"""reshape with a shape list that holds graph tensors ([tf.shape(x)[0], -1], the usual
flatten before a dense layer): TF packs the list into one int32 vector."""
from __future__ import annotations

import numpy as np

import duograd as dg
from modes import run_graph


def test_flatten_by_a_dynamic_batch_dimension_in_a_function_and_a_session():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

    @dg.function
    def flatten(t):
        return dg.reshape(t, [dg.shape(t)[0], -1])
    np.testing.assert_array_equal(flatten(dg.constant(x)), x.reshape(2, 12))
    got = run_graph(lambda t: dg.reshape(t, [dg.shape(t)[0], -1]), x, unknown_dims=True)
    np.testing.assert_array_equal(got, x.reshape(2, 12))


def test_the_gradient_flows_through_a_packed_shape():
    x = np.arange(6, dtype=np.float64).reshape(2, 3)

    @dg.function
    def grad(t):
        with dg.GradientTape() as tape:
            tape.watch(t)
            y = dg.reshape(t, [dg.shape(t)[1], -1]) * 2.0
        return tape.gradient(y, t)
    np.testing.assert_array_equal(grad(dg.constant(x)), np.full((2, 3), 2.0))
