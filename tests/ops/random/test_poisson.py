"""dg.random.poisson (TF's RandomPoissonV2): shapes, dtypes, seeds, errors and gradients
as TF 2.21 (recorded there); the samples are NumPy's, checked by their moments."""
import numpy as np
import pytest

import duograd as dg


def test_samples_have_shape_then_rate_shape_and_the_asked_dtype():
    lam = dg.constant([0.5, 1.5])
    sample = dg.random.poisson([3], lam)
    assert sample.shape.as_list() == [3, 2] and sample.dtype == dg.float32
    assert dg.random.poisson([2], 3.0, dtype=dg.int64).dtype == dg.int64
    assert dg.random.poisson([2], dg.constant(1, dg.int32)).dtype == dg.float32
    values = sample.numpy()
    assert np.all(values >= 0) and np.all(values == np.round(values))


def test_moments_and_seeds():
    x = dg.random.poisson([20000], 4.0, seed=3).numpy().astype(np.float64)
    assert abs(x.mean() - 4.0) < 0.1 and abs(x.var() - 4.0) < 0.25
    dg.random.set_seed(5)
    first = dg.random.poisson([6], 2.0, seed=1).numpy()
    dg.random.set_seed(5)
    assert np.array_equal(first, dg.random.poisson([6], 2.0, seed=1).numpy())


def test_graph_op_type_static_shape_and_tf1_argument_order():
    with dg.Graph().as_default():
        sample = dg.random.poisson([3, 2], [1.0, 2.0, 3.0])
        assert sample.op.type == "RandomPoissonV2"
        assert sample.shape.as_list() == [3, 2, 3]
        with dg.compat.v1.Session() as sess:
            assert sess.run(sample).shape == (3, 2, 3)
    assert dg.compat.v1.random_poisson([1.0, 2.0], [3]).shape.as_list() == [3, 2]
    assert dg.compat.v1.random.poisson([1.0, 2.0], [3]).shape.as_list() == [3, 2]


def test_the_rate_gets_no_gradient():
    lam = dg.constant([0.5, 1.5])
    with dg.GradientTape() as tape:
        tape.watch(lam)
        total = dg.reduce_sum(dg.random.poisson([3], lam))
    assert tape.gradient(total, lam) is None   # TF 2.21 eager: None
    with dg.Graph().as_default():
        rate = dg.constant([1.0, 2.0])
        assert dg.gradients(dg.random.poisson([2], rate), [rate]) == [None]


def test_bad_arguments_raise_tensorflows_classes():
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match="Value for attr 'dtype' of string is not in the list of allowed "
                             "values: half, float, double, int32, int64"):
        dg.random.poisson([2], 1.0, dtype=dg.string)
    with pytest.raises(dg.errors.InvalidArgumentError, match="negative"):
        dg.random.poisson([-1], 1.0)
