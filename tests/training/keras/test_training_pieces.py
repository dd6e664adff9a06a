"""dg.keras.initializers / losses / metrics (also dg.initializers, dg.losses,
dg.metrics, as tf.* in TF 2.x). Every expected value was printed by TF 2.21 with
Keras 3.15 for the same inputs (issue 21 item 3)."""
import numpy as np
import pytest

import duograd as dg

Y_TRUE = [[0., 1.], [1., 0.]]
Y_PRED = [[0.2, 0.8], [0.6, 0.4]]
WEIGHT = [1., 0.5]
L = dg.keras.losses
LOSSES = [  # (loss, TF's value, TF's value with sample_weight=[1, 0.5])
    (L.MeanSquaredError(), 0.099999994, 0.06),
    (L.MeanAbsoluteError(), 0.29999998, 0.19999999),
    (L.BinaryCrossentropy(), 0.36698455, 0.23927817),
    (L.BinaryCrossentropy(from_logits=True), 0.6299357, 0.46112278),
    (L.CategoricalCrossentropy(), 0.36698455, 0.23927817),
    (L.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1), 0.5378134, 0.38577873),
    (L.Huber(0.5), 0.049999997, 0.03),
    (L.KLDivergence(), 0.36698306, 0.23927706),
    (L.Hinge(), 0.8, 0.57500005),
    (L.Poisson(), 0.6834922, 0.49463904),
    (L.MeanSquaredError(reduction="sum"), 0.19999999, 0.12),
]


@pytest.mark.parametrize("loss, expected, weighted", LOSSES, ids=lambda x: getattr(x, "name", ""))
def test_loss_classes_match_keras(loss, expected, weighted):
    np.testing.assert_allclose(loss(dg.constant(Y_TRUE), dg.constant(Y_PRED)).numpy(), expected,
                               rtol=2e-6)
    np.testing.assert_allclose(loss(Y_TRUE, Y_PRED, sample_weight=WEIGHT).numpy(), weighted,
                               rtol=2e-6)


def test_loss_reduction_none_functions_and_names():
    none = L.MeanSquaredError(reduction=None)
    np.testing.assert_allclose(none(Y_TRUE, Y_PRED).numpy(), [0.04, 0.16], rtol=1e-6)
    np.testing.assert_allclose(none(Y_TRUE, Y_PRED, sample_weight=WEIGHT).numpy(), [0.04, 0.08],
                               rtol=1e-6)
    np.testing.assert_allclose(L.SparseCategoricalCrossentropy()(dg.constant([1, 0]), Y_PRED),
                               0.3669846, rtol=2e-6)
    np.testing.assert_allclose(
        L.SparseCategoricalCrossentropy(from_logits=True)([[1], [0]], Y_PRED), 0.51781344,
        rtol=2e-6)
    # a trailing axis of 1 is squeezed, as Keras does
    np.testing.assert_allclose(L.MeanSquaredError()(dg.constant([1., 2.]), [[1.5], [2.]]), 0.125)
    assert L.mse is L.MSE and L.get("mse") is L.mse and not hasattr(L, "mean_squared_error")
    assert L.Huber().name == "huber_loss" and L.MeanSquaredError().name == "mean_squared_error"
    assert dg.losses is dg.keras.losses
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        L.MeanSquaredError(reduction="bad")


def test_loss_gradient_matches_finite_differences():
    x = dg.Variable([[0.3, 0.7], [0.55, 0.45]], dtype=dg.float64)
    loss = L.CategoricalCrossentropy()
    with dg.GradientTape() as tape:
        value = loss(Y_TRUE, x)
    grad = tape.gradient(value, x).numpy()
    base = np.array(x.numpy())
    numeric = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        for sign in (1, -1):
            shifted = base.copy()
            shifted[i] += sign * 1e-6
            numeric[i] += sign * loss(Y_TRUE, dg.constant(shifted)).numpy() / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)


M = dg.keras.metrics
YT3 = [[0., 1.], [1., 0.], [0., 1.]]
YP3 = [[0.2, 0.8], [0.6, 0.4], [0.7, 0.3]]


def test_mean_and_sum():
    for metric, expected in ((M.Mean(), 2.8), (M.Sum(), 14.0)):
        metric.update_state([1., 2., 3.])
        metric.update_state([4.], sample_weight=[2.])
        np.testing.assert_allclose(metric.result().numpy(), expected, rtol=1e-6)
        metric.reset_state()
        assert metric.result().numpy() == 0.0


@pytest.mark.parametrize("metric, expected", [
    (M.CategoricalAccuracy(), 0.71428573), (M.BinaryAccuracy(), 0.71428573),
    (M.MeanSquaredError(), 0.20285712), (M.AUC(), 0.75510204),
    (M.AUC(num_thresholds=3), 0.71428573), (M.Accuracy(), 0.0)], ids=lambda m: getattr(m, "name", ""))
def test_metrics_match_keras(metric, expected):
    metric.update_state(YT3, YP3)
    metric.update_state(YT3[:1], YP3[:1], sample_weight=[0.5])
    np.testing.assert_allclose(metric.result().numpy(), expected, rtol=2e-6)
    metric.reset_state()
    assert metric.result().numpy() == 0.0


def test_metrics_inside_function_and_names():
    acc = M.SparseCategoricalAccuracy()
    acc.update_state([1, 0, 0], YP3)
    assert acc.result().numpy() == 1.0 and acc.name == "sparse_categorical_accuracy"
    mean = M.Mean(name="loss")

    @dg.function
    def step(x):
        mean.update_state(x)
        return mean.result()
    assert step(dg.constant([1., 2.])).numpy() == 1.5
    assert step(dg.constant([3.])).numpy() == 2.0
    assert repr(mean) == "<Mean name=loss>" and dg.metrics is M


I = dg.keras.initializers


def test_initializer_configs_and_serialize_as_keras():
    assert I.serialize(I.GlorotUniform()) == {
        "module": "keras.initializers", "class_name": "GlorotUniform",
        "config": {"seed": None, "input_axes": None, "output_axes": None}, "registered_name": None}
    assert I.serialize(I.Constant(2.0))["config"] == {"value": 2.0}
    assert I.RandomNormal().get_config() == {"seed": None, "mean": 0.0, "stddev": 0.05}
    assert I.RandomUniform().get_config() == {"seed": None, "minval": -0.05, "maxval": 0.05}
    assert I.VarianceScaling().get_config() == {
        "seed": None, "scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal",
        "input_axes": None, "output_axes": None}
    assert I.Orthogonal().get_config() == {"seed": None, "gain": 1.0}
    assert type(I.get("glorot_uniform")) is I.GlorotUniform and I.get(None) is None
    assert type(I.get("he_normal")) is I.HeNormal
    assert type(I.get({"class_name": "Zeros", "config": {}})) is I.Zeros
    for bad in ("nope", 3):
        with pytest.raises(ValueError, match="Could not interpret initializer identifier"):
            I.get(bad)
    assert dg.initializers is I and dg.initializers.RandomNormal is I.RandomNormal


def test_initializer_values():
    np.testing.assert_array_equal(I.Constant(2.)([2]).numpy(), [2., 2.])
    assert I.Zeros()([2], dtype="int32").dtype == dg.int32
    np.testing.assert_array_equal(I.Identity()([2, 3]).numpy(), np.eye(2, 3))
    x = I.VarianceScaling(scale=2., mode="fan_avg", distribution="uniform", seed=1)([100, 300])
    limit = np.sqrt(3 * 2 / 200)
    assert -limit <= x.numpy().min() and x.numpy().max() <= limit
    assert x.numpy().max() > 0.99 * limit
    he = I.HeNormal(seed=1)([400, 300]).numpy()
    np.testing.assert_allclose(he.std(), np.sqrt(2 / 400), rtol=0.03)   # TF: 0.07094864
    assert np.abs(he).max() <= 2 * np.sqrt(2 / 400) / 0.87962566103423978 + 1e-6
    q = I.Orthogonal(seed=1)([3, 5]).numpy()
    np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-6)
