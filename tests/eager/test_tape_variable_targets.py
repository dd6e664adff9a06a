"""A variable as a tape target (its handle, as in TF) and linspace's dtype rule."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def test_gradient_of_a_variable_with_respect_to_itself_is_ones():
    v = dg.Variable([1.0, 2.0])
    with dg.GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(v, v), [1.0, 1.0])   # TF 2.21: ones
    with dg.GradientTape(persistent=True) as tape:
        y = v * 3.0
    np.testing.assert_array_equal(tape.gradient(v, v), [1.0, 1.0])
    np.testing.assert_array_equal(tape.gradient([v, y], v), [4.0, 4.0])
    np.testing.assert_array_equal(tape.gradient(y, v), [3.0, 3.0])


@pytest.mark.parametrize("dtype, expected", [(dg.int8, dg.float32), (dg.int16, dg.float32),
                                             (dg.uint8, dg.float32), (dg.int32, dg.float64),
                                             (dg.int64, dg.float64)])
def test_linspace_of_integer_endpoints_is_float_as_tf(dtype, expected):
    out = dg.linspace(dg.constant(1, dtype), dg.constant(5, dtype), 3)   # TF 2.21 dtypes
    assert out.dtype == expected
    np.testing.assert_array_equal(out, [1.0, 3.0, 5.0])
    assert dg.linspace(1, 5, 3).dtype == dg.float64


def test_linspace_of_zero_points_is_empty_in_both_modes():
    assert dg.linspace(1.0, 5.0, 0).shape == (0,)
    g = dg.Graph()
    with g.as_default():
        out = dg.linspace(1.0, 5.0, dg.placeholder(dg.int32, []))
        with dg.Session() as sess:
            assert sess.run(out, {g.get_tensor_by_name("Placeholder:0"): 0}).shape == (0,)


def test_persistent_tape_records_gradients_taken_inside_its_context():
    with dg.GradientTape(persistent=True) as tape:
        x = dg.constant(3.0)
        tape.watch(x)
        y = x ** 3
        dy_dx = tape.gradient(y, x)          # 3 x**2, recorded on the tape as in TF
        d2y_dx2 = tape.gradient(dy_dx, x)    # 6 x
    d3y_dx3 = tape.gradient(d2y_dx2, x)      # 6
    assert [float(dy_dx), float(d2y_dx2), float(d3y_dx3)] == [27.0, 18.0, 6.0]


def test_get_static_value_and_placeholder_with_default_feeds():
    assert dg.get_static_value(dg.constant([1, 2])).tolist() == [1, 2]
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([1.0, 2.0])
        p = dg.placeholder_with_default(x, [None])
        assert p.shape.as_list() == [None] and dg.get_static_value(p * 2) is None
        with dg.Session() as sess:
            assert sess.run(p * 2).tolist() == [2.0, 4.0]
            assert sess.run(p * 2, {p: [5.0, 6.0, 7.0]}).tolist() == [10.0, 12.0, 14.0]
