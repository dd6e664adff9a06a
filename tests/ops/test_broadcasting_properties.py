"""Property tests: broadcasting shape rules and their gradients, in both modes."""
import numpy as np
from hypothesis import given, settings, strategies as st

import duograd as dg

dims = st.integers(min_value=1, max_value=3)


@st.composite
def broadcastable_pair(draw):
    """Two shapes NumPy can broadcast: each dim of the shorter one is 1 or matching."""
    out = draw(st.lists(dims, min_size=0, max_size=3))
    left = [d if draw(st.booleans()) else 1 for d in out]
    right = [d if draw(st.booleans()) else 1 for d in out]
    left = left[draw(st.integers(0, len(left))):]
    right = right[draw(st.integers(0, len(right))):]
    return tuple(left), tuple(right)


OPS = [dg.add, dg.subtract, dg.multiply, dg.maximum]


@settings(max_examples=40, deadline=None)
@given(broadcastable_pair(), st.sampled_from(OPS), st.booleans())
def test_static_shape_and_gradient_shapes_follow_numpy(shapes, op, unknown):
    a_shape, b_shape = shapes
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    expected = np.broadcast_shapes(a_shape, b_shape)
    g = dg.Graph()
    with g.as_default():
        pa = dg.placeholder(dg.float64, [None] * len(a_shape) if unknown else a_shape)
        pb = dg.placeholder(dg.float64, [None] * len(b_shape) if unknown else b_shape)
        y = op(pa, pb)
        assert y.shape.is_compatible_with(expected) and y.shape.rank == len(expected)
        if not unknown:
            assert y.shape == expected
        grads = dg.gradients(dg.reduce_sum(y * y), [pa, pb])
        graph_grads = dg.Session(graph=g).run(grads, {pa: a, pb: b})
    ta, tb = dg.constant(a), dg.constant(b)
    with dg.GradientTape() as tape:
        tape.watch([ta, tb])
        out = dg.reduce_sum(op(ta, tb) * op(ta, tb))
    eager_grads = tape.gradient(out, [ta, tb])
    for graph_grad, eager_grad, shape in zip(graph_grads, eager_grads, (a_shape, b_shape)):
        assert graph_grad.shape == shape and eager_grad.shape == shape
        np.testing.assert_allclose(graph_grad, eager_grad.numpy(), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(broadcastable_pair())
def test_gradient_of_sum_counts_broadcast_copies(shapes):
    """d sum(a + b) / da is the number of times each element of a was broadcast."""
    a_shape, b_shape = shapes
    a, b = np.ones(a_shape), np.ones(b_shape)
    copies = np.prod(np.broadcast_shapes(a_shape, b_shape)) / max(a.size, 1)
    ta, tb = dg.constant(a), dg.constant(b)
    with dg.GradientTape() as tape:
        tape.watch(ta)
        total = dg.reduce_sum(ta + tb)
    np.testing.assert_allclose(tape.gradient(total, ta).numpy(), np.full(a_shape, copies))
