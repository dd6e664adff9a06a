"""Pow with exponent 2 (the gradient of GELU's cube) as x * x: TF 2.21's values, recorded
with TF, eagerly and in a graph, bit-equal to np.power's, and its gradient numerically;
the float32 cube keeps its float64 products."""
from __future__ import annotations

import numpy as np

import duograd as dg
from modes import run_graph

X = np.array([-3.5, -0.1, 0.0, 0.7, 1.9, 12.25, 1e20, np.inf, -np.inf, np.nan], np.float32)
TF_SQ32 = [12.25, 0.010000000707805157, 0.0, 0.4899999797344208, 3.609999895095825, 150.0625,
           np.inf, np.inf, np.inf, np.nan]
TF_SQ64 = [12.25, 0.010000000298023226, 0.0, 0.4899999833106996, 3.6099999094009405, 150.0625,
           1.0000000400817551e+40, np.inf, np.inf, np.nan]
TF_GRAD = [-7.0, -0.20000000298023224, 0.0, 1.399999976158142, 3.799999952316284, 24.5]


def test_square_matches_tf_in_both_modes():
    for x, want in ((X, TF_SQ32), (X.astype(np.float64), TF_SQ64)):
        for got in (dg.pow(x, 2.0), run_graph(lambda a: dg.pow(a, 2.0), x)):
            got = np.asarray(got)
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got, np.array(want, x.dtype))


def test_square_is_bit_equal_to_numpys_power():
    rng = np.random.default_rng(7)
    for x in (rng.standard_normal(100_000).astype(np.float32) * 50,
              rng.integers(-2**24, 2**24, 100_000).astype(np.float32),
              rng.standard_normal(100_000) * 1e100):
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(dg.pow(x, 2.0), np.power(x, x.dtype.type(2)))


def test_square_gradient_matches_tf_and_checks_numerically():
    x = dg.constant(X[:6])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.pow(x, 2.0)
    np.testing.assert_array_equal(tape.gradient(y, x), np.array(TF_GRAD, np.float32))
    (theoretical,), (numerical,) = dg.test.compute_gradient(
        lambda a: dg.pow(a, 2.0), [X[:6].astype(np.float64)])
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-6)


def test_float32_cube_of_a_matrix_is_the_float64_products_rounded_once():
    x = np.random.default_rng(8).standard_normal((64, 96)).astype(np.float32) * 30
    wide = x.astype(np.float64)
    np.testing.assert_array_equal(dg.pow(x, 3.0), (wide * wide * wide).astype(np.float32))
    np.testing.assert_array_equal(run_graph(lambda a: dg.pow(a, 3.0), x),
                                  (wide * wide * wide).astype(np.float32))
