"""dg.keras.losses: the Keras 3 losses beyond the basic ones (focal, cosine,
log-cosh, hinge family, Dice/Tversky, Circle, generalized cross-entropy), their
configs, get/serialize/deserialize and rank alignment; values recorded from
TensorFlow 2.21 (Keras 3) with `tf.keras.losses`."""
import numpy as np
import pytest

import duograd as dg

L = dg.keras.losses
Y_TRUE = np.array([[0., 1., 0.], [1., 0., 0.]], np.float32)
PROBS = np.array([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]], np.float32)
LOGITS = np.array([[1.5, -0.3, 0.2], [-1.0, 2.0, 0.5]], np.float32)
WEIGHT = np.array([1.0, 0.5], np.float32)
LABELS = np.array([1., 0.], np.float32)

CASES = [  # (loss, y_true, y_pred, TF's value, TF's value with sample_weight=[1, 0.5])
    (L.BinaryFocalCrossentropy(), Y_TRUE, PROBS, 0.04273223131895065, 0.024872789159417152),
    (L.BinaryFocalCrossentropy(apply_class_balancing=True, gamma=1.5, label_smoothing=0.1),
     Y_TRUE, PROBS, 0.03242940083146095, 0.020500201731920242),
    (L.BinaryFocalCrossentropy(from_logits=True), Y_TRUE, LOGITS, 0.7316409349441528,
     0.504194438457489),
    (L.CategoricalFocalCrossentropy(), Y_TRUE, PROBS, 0.02567344345152378, 0.014843018725514412),
    (L.CategoricalFocalCrossentropy(from_logits=True, label_smoothing=0.2), Y_TRUE, LOGITS,
     0.5271127223968506, 0.36002615094184875),
    (L.CosineSimilarity(), Y_TRUE, LOGITS, 0.31544843316078186, 0.2063395082950592),
    (L.LogCosh(), Y_TRUE, LOGITS, 0.7206542491912842, 0.4898109436035156),
    (L.SquaredHinge(), Y_TRUE, LOGITS, 4.105000019073486, 2.8341665267944336),
    (L.CategoricalHinge(), Y_TRUE, LOGITS, 3.4000000953674316, 2.4000000953674316),
    (L.Dice(), Y_TRUE, PROBS, 0.3999999761581421, 0.29999998211860657),
    (L.Dice(axis=-1), Y_TRUE, PROBS, 0.4000000059604645, 0.2750000059604645),
    (L.Tversky(), Y_TRUE, PROBS, 0.3999999761581421, 0.29999998211860657),
    (L.Tversky(alpha=0.3, beta=0.7, axis=-1), Y_TRUE, PROBS, 0.40000006556510925,
     0.27500003576278687),
    (L.CategoricalGeneralizedCrossEntropy(), LABELS, PROBS, 0.4562332034111023,
     0.3097865879535675),
]


@pytest.mark.parametrize("loss, y_true, y_pred, expected, weighted", CASES,
                         ids=[f"{c[0].name}-{i}" for i, c in enumerate(CASES)])
def test_new_loss_classes_match_keras(loss, y_true, y_pred, expected, weighted):
    np.testing.assert_allclose(loss(y_true, y_pred).numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(loss(y_true, y_pred, sample_weight=WEIGHT).numpy(), weighted,
                               rtol=1e-5)


FUNCTION_VALUES = {  # per-sample values of the functions on (Y_TRUE, PROBS), from TF 2.21
    "binary_focal_crossentropy": [0.014026697725057602, 0.0714377611875534],
    "categorical_focal_crossentropy": [0.008025187067687511, 0.043321698904037476],
    "cosine_similarity": [-0.9525793790817261, -0.8111071586608887],
    "logcosh": [0.02306685782968998, 0.0614410825073719],
    "squared_hinge": [0.9133334159851074, 1.1266666650772095],
    "categorical_hinge": [0.5, 0.800000011920929],
    "dice": 0.3999999761581421,
    "tversky": 0.3999999761581421,
}


@pytest.mark.parametrize("name", sorted(FUNCTION_VALUES))
def test_loss_functions_match_keras(name):
    value = getattr(L, name)(Y_TRUE, PROBS).numpy()
    np.testing.assert_allclose(value, FUNCTION_VALUES[name], rtol=1e-5)


def test_generalized_cross_entropy_function_and_circle():
    value = L.categorical_generalized_cross_entropy(LABELS, PROBS, q=0.7).numpy()
    np.testing.assert_allclose(value, [0.31563442945480347, 0.5491825342178345], rtol=1e-5)
    embeddings = np.array([[0.6, 0.8], [0.8, 0.6], [1.0, 0.0], [0.0, 1.0]], np.float32)
    labels = np.array([0, 0, 1, 1], np.int32)
    np.testing.assert_allclose(L.circle(labels, embeddings).numpy(),
                               [25.72800064086914, 25.72800064086914, 105.60000610351562,
                                105.60000610351562], rtol=1e-5)
    np.testing.assert_allclose(L.Circle()(labels, embeddings).numpy(), 65.66400146484375,
                               rtol=1e-5)
    np.testing.assert_allclose(
        L.Circle(gamma=10., margin=0.25, remove_diagonal=False)(labels, embeddings).numpy(),
        10.560999870300293, rtol=1e-5)


def test_circle_mean_counts_only_positive_losses():
    # Keras sets the mask `loss > 0`; the masked mean divides by the kept count
    from duograd.training.keras.loss_reduction import reduce_weighted_values
    losses = dg.constant([2.0, 0.0, 4.0])
    mask = L.Circle().loss_mask(losses)
    assert mask.numpy().tolist() == [True, False, True]
    assert reduce_weighted_values(losses, None, "sum_over_batch_size", mask=mask).numpy() == 3.0
    assert reduce_weighted_values(losses, [1., 1., 0.5], "sum", mask=mask).numpy() == 4.0


def test_rank_one_labels_against_column_predictions_expand_as_keras():
    # TF 2.21: y_true (3,) and y_pred (3, 1) give one loss per sample, not a scalar
    y_true, y_pred = np.array([1., 2., 3.]), np.array([[1.5], [2.], [2.]])
    np.testing.assert_allclose(L.MeanSquaredError(reduction=None)(y_true, y_pred).numpy(),
                               [0.25, 0.0, 1.0])
    np.testing.assert_allclose(L.mse(y_true, y_pred).numpy(), [0.25, 0.0, 1.0])
    value = L.MeanSquaredError(reduction="mean_with_sample_weight")(Y_TRUE, PROBS,
                                                                    sample_weight=WEIGHT)
    np.testing.assert_allclose(value.numpy(), 0.07333333045244217, rtol=1e-6)


def test_gradient_of_focal_loss_matches_finite_differences():
    loss = L.CategoricalFocalCrossentropy(from_logits=True)
    x = dg.constant(LOGITS.astype(np.float64))
    with dg.GradientTape() as tape:
        tape.watch(x)
        value = loss(Y_TRUE, x)
    analytic = tape.gradient(value, x).numpy()
    numeric = np.zeros_like(LOGITS, dtype=np.float64)
    for i in np.ndindex(*LOGITS.shape):
        for sign in (1, -1):
            shifted = LOGITS.astype(np.float64).copy()
            shifted[i] += sign * 1e-6
            numeric[i] += sign * loss(Y_TRUE, dg.constant(shifted)).numpy() / 2e-6
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-8)


CONFIGS = {  # default get_config() of each class in TF 2.21
    "BinaryFocalCrossentropy": {"name": "binary_focal_crossentropy",
                                "reduction": "sum_over_batch_size", "from_logits": False,
                                "label_smoothing": 0.0, "axis": -1,
                                "apply_class_balancing": False, "alpha": 0.25, "gamma": 2.0},
    "CategoricalFocalCrossentropy": {"name": "categorical_focal_crossentropy",
                                     "reduction": "sum_over_batch_size", "from_logits": False,
                                     "label_smoothing": 0.0, "axis": -1, "alpha": 0.25,
                                     "gamma": 2.0},
    "CategoricalGeneralizedCrossEntropy": {"name": "categorical_generalized_cross_entropy",
                                           "reduction": "sum_over_batch_size", "q": 0.5},
    "CategoricalHinge": {"name": "categorical_hinge", "reduction": "sum_over_batch_size"},
    "Circle": {"name": "circle", "reduction": "sum_over_batch_size", "gamma": 80.0,
               "margin": 0.4, "remove_diagonal": True},
    "CosineSimilarity": {"name": "cosine_similarity", "reduction": "sum_over_batch_size"},
    "Dice": {"name": "dice", "reduction": "sum_over_batch_size", "axis": None},
    "Huber": {"name": "huber_loss", "reduction": "sum_over_batch_size"},
    "LogCosh": {"name": "log_cosh", "reduction": "sum_over_batch_size"},
    "SparseCategoricalCrossentropy": {"name": "sparse_categorical_crossentropy",
                                      "reduction": "sum_over_batch_size", "from_logits": False,
                                      "ignore_class": None},
    "SquaredHinge": {"name": "squared_hinge", "reduction": "sum_over_batch_size"},
    "Tversky": {"name": "tversky", "reduction": "sum_over_batch_size", "alpha": 0.5,
                "beta": 0.5, "axis": None},
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_configs_match_keras(name):
    assert getattr(L, name)().get_config() == CONFIGS[name]


def test_serialize_deserialize_get():
    assert L.serialize(L.BinaryFocalCrossentropy(gamma=3.0)) == {
        "module": "keras.losses", "class_name": "BinaryFocalCrossentropy",
        "config": {**CONFIGS["BinaryFocalCrossentropy"], "gamma": 3.0},
        "registered_name": None}
    assert L.serialize(L.mse) == {"module": "builtins", "class_name": "function",
                                  "config": "mean_squared_error", "registered_name": "function"}
    assert L.serialize(L.logcosh)["config"] == "log_cosh"
    huber = L.deserialize({"module": "keras.losses", "class_name": "Huber",
                           "config": {"delta": 2.0, "name": "h", "reduction": "sum"},
                           "registered_name": None})
    assert type(huber) is L.Huber and huber.name == "h" and huber.reduction == "sum"
    assert L.deserialize(L.serialize(L.logcosh)) is L.logcosh
    assert L.get("log_cosh") is L.logcosh and L.get("squared_hinge") is L.squared_hinge
    assert type(L.get("SquaredHinge")) is L.SquaredHinge
    assert L.get({"class_name": "Tversky", "config": {"alpha": 0.2}}).get_config() == {
        **CONFIGS["Tversky"], "alpha": 0.2}
    with pytest.raises(ValueError, match="Could not interpret loss identifier: nope"):
        L.get("nope")


def test_reduction_keys_and_errors():
    assert L.Reduction.all() == ("auto", "none", "sum", "sum_over_batch_size")
    assert (L.Reduction.SUM, L.Reduction.AUTO) == ("sum", "auto")
    with pytest.raises(ValueError, match="Invalid Reduction Key: x"):
        L.Reduction.validate("x")
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        L.Dice(reduction="bad")
    with pytest.raises(ValueError, match="`axis` must be of type `int`"):
        L.categorical_focal_crossentropy(Y_TRUE, PROBS, axis=True)


TF_NAMES = [  # dir(tf.keras.losses) in TF 2.21
    "CTC", "ctc", "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy", "CategoricalHinge",
    "Circle", "CosineSimilarity", "Dice", "Hinge", "Huber", "KLD", "KLDivergence", "LogCosh",
    "Loss", "MAE", "MAPE", "MSE", "MSLE", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson", "Reduction",
    "SparseCategoricalCrossentropy", "SquaredHinge", "Tversky", "binary_crossentropy",
    "binary_focal_crossentropy", "categorical_crossentropy", "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy", "categorical_hinge", "circle", "cosine_similarity",
    "deserialize", "dice", "get", "hinge", "huber", "kld", "kullback_leibler_divergence",
    "logcosh", "mae", "mape", "mse", "msle", "poisson", "serialize",
    "sparse_categorical_crossentropy", "squared_hinge", "tversky"]


def test_namespace_lists_tf_names():
    missing = [name for name in TF_NAMES if not hasattr(L, name)]
    assert missing == []


CTC_LOGITS = np.round(np.random.RandomState(0).randn(3, 6, 4), 4).astype(np.float32)
CTC_LABELS = np.array([[1, 2, 0], [3, 3, 1], [2, 0, 0]], np.int32)  # 0: padding and blank


def test_ctc_matches_keras_values_and_gradient():
    logits = dg.constant(CTC_LOGITS)
    np.testing.assert_allclose(L.ctc(CTC_LABELS, logits).numpy(),
                               [4.297293663024902, 4.117617607116699, 7.348013877868652],
                               rtol=1e-6)
    np.testing.assert_allclose(L.CTC()(CTC_LABELS, logits).numpy(), 5.254308223724365,
                               rtol=1e-6)
    np.testing.assert_allclose(L.CTC()(CTC_LABELS, logits, sample_weight=[1., 0.5, 2.]).numpy(),
                               7.01737642288208, rtol=1e-6)
    with dg.GradientTape() as tape:
        tape.watch(logits)
        total = dg.reduce_sum(L.ctc(CTC_LABELS, logits))
    np.testing.assert_allclose(tape.gradient(total, logits).numpy()[0, 0],
                               [-0.5930240750312805, -0.029050365090370178,
                                0.13722674548625946, 0.48484763503074646], rtol=1e-5, atol=1e-7)
    assert L.CTC().get_config() == {"name": "ctc", "reduction": "sum_over_batch_size"}


def test_ctc_in_a_function_with_tensor_labels_and_finite_gradients():
    @dg.function
    def loss_and_grad(labels, logits):
        with dg.GradientTape() as tape:
            tape.watch(logits)
            loss = dg.reduce_sum(L.ctc(labels, logits))
        return loss, tape.gradient(loss, logits)

    loss, grad = loss_and_grad(dg.constant(CTC_LABELS), dg.constant(CTC_LOGITS.astype(np.float64)))
    np.testing.assert_allclose(loss.numpy(), 4.297293663024902 + 4.117617607116699 +
                               7.348013877868652, rtol=1e-6)
    assert loss.dtype == dg.float64 and np.isfinite(grad.numpy()).all()


def test_ctc_shape_errors_as_keras():
    with pytest.raises(ValueError, match="Targets `y_true` are expected"):
        L.ctc(CTC_LABELS[0], CTC_LOGITS)
    with pytest.raises(ValueError, match="Logits `y_pred` are expected"):
        L.ctc(CTC_LABELS, CTC_LOGITS[0])


def test_loss_dtype_casts_both_sides_as_keras():
    # TF 2.21: MeanSquaredError(dtype="float64") on float32 tensors gives float64 0.25
    value = L.MeanSquaredError(dtype="float64")(dg.constant([[1., 2.]]), dg.constant([[1.5, 2.5]]))
    assert value.dtype == dg.float64 and value.numpy() == 0.25
