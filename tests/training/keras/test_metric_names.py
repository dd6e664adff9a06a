"""Keras metric names and state variables as TF 2.21 (Keras 3) gives them: an
unnamed AUC is "auc", then "auc_1" (Mean keeps its default name "mean"); the
variables are named "total" with path "mean/total" and Keras' repr."""
import duograd as dg

M = dg.keras.metrics


def test_unnamed_metrics_are_made_unique_as_keras():
    dg.keras.backend.clear_session()
    names = [M.AUC().name, M.AUC().name, M.Mean().name, M.Mean().name,
             M.Mean(name="loss").name, M.Mean(name="loss").name, M.AUC(name="auc").name,
             M.AUC(num_thresholds=3).name]
    assert names == ["auc", "auc_1", "mean", "mean", "loss", "loss", "auc", "auc_2"]
    dg.keras.backend.clear_session()
    assert M.AUC().name == "auc"


def test_metric_variable_names_paths_and_repr_as_keras():
    dg.keras.backend.clear_session()
    auc = M.AUC()
    assert [(v.name, v.path, tuple(v.shape.as_list())) for v in auc.variables] == [
        ("true_positives", "auc/true_positives", (200,)),
        ("false_positives", "auc/false_positives", (200,)),
        ("true_negatives", "auc/true_negatives", (200,)),
        ("false_negatives", "auc/false_negatives", (200,))]
    for metric, prefix, names in [
            (M.Sum(), "sum", ["total"]), (M.Accuracy(), "accuracy", ["total", "count"]),
            (M.BinaryAccuracy(), "binary_accuracy", ["total", "count"]),
            (M.CategoricalAccuracy(), "categorical_accuracy", ["total", "count"]),
            (M.SparseCategoricalAccuracy(), "sparse_categorical_accuracy", ["total", "count"]),
            (M.MeanSquaredError(), "mean_squared_error", ["total", "count"])]:
        assert [v.name for v in metric.variables] == names
        assert [v.path for v in metric.variables] == [f"{prefix}/{n}" for n in names]
        assert all(not v.trainable for v in metric.variables)
    mean = M.Mean()
    total = mean.variables[0]
    assert repr(total) == "<Variable path=mean/total, shape=(), dtype=float32, value=0.0>"
    mean.update_state([1.0, 2.0])
    assert repr(total) == "<Variable path=mean/total, shape=(), dtype=float32, value=3.0>"
    assert float(mean.result()) == 1.5


def test_keras_backend_constants():
    assert dg.keras.backend.epsilon() == 1e-07 and dg.keras.backend.floatx() == "float32"
