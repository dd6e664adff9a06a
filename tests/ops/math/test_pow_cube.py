"""A float32 cube (GELU's tanh form) takes the fast kernel path: values, gradient and
GELU against TF 2.21's recorded values, eagerly and in a graph; float64 unchanged."""
from __future__ import annotations

import numpy as np

import duograd as dg
from modes import run_graph

X = np.array([-3.5, -0.1, 0.0, 0.7, 1.9, 12.25, np.inf, np.nan], np.float32)
TF_CUBE = [-42.875, -0.0010000000474974513, 0.0, 0.34299999475479126, 6.858999729156494,
           1838.265625, np.inf, np.nan]
TF_CUBE_GRAD = [36.75, 0.030000001192092896, 0.0, 1.46999990940094, 10.829999923706055,
                450.1875, np.inf, np.nan]
TF_GELU = [-0.0006162524223327637, -0.046017248183488846, 0.0, 0.5305701494216919,
           1.8454512357711792, 12.25, np.inf, np.nan]


def test_float32_cube_value_and_gradient_match_tf():
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.pow(x, 3.0)
    assert y.dtype == dg.float32
    np.testing.assert_allclose(y, TF_CUBE, rtol=1e-7)
    np.testing.assert_allclose(tape.gradient(y, x), TF_CUBE_GRAD, rtol=1e-7)
    np.testing.assert_allclose(run_graph(lambda a: dg.pow(a, 3.0), X), TF_CUBE, rtol=1e-7)


def test_tanh_gelu_matches_tf():
    np.testing.assert_allclose(dg.nn.gelu(X, approximate=True), TF_GELU, rtol=2e-7, atol=2e-7)
    np.testing.assert_allclose(run_graph(lambda a: dg.nn.gelu(a, approximate=True), X), TF_GELU,
                               rtol=2e-7, atol=2e-7)


def test_cube_is_exact_where_float32_can_hold_it():
    x = np.arange(-200, 201, dtype=np.float32)   # |x|^3 <= 8e6 < 2^24: exact
    np.testing.assert_array_equal(dg.pow(x, 3.0), x.astype(np.int64) ** 3)


def test_float64_power_is_numpys():
    x = np.linspace(-3, 3, 13)
    np.testing.assert_array_equal(dg.pow(x, 3.0), np.power(x, 3.0))
