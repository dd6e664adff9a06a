"""SavedModels written by TF 2.21 (data/saved_model*, made by data/make_fixtures.py) load
into duograd objects whose functions run eagerly, in dg.function and in graph mode,
and give TF's values, gradients (inputs and variables) and Hessians."""
import numpy as np
import pytest

import duograd as dg
from fixture_models import EXPECTED, fixture

SIMPLE = EXPECTED["saved_model"]
MLP = EXPECTED["saved_model_mlp"]


def test_objects_variables_and_signatures_load():
    loaded = dg.saved_model.load(fixture("saved_model"))
    assert dg.saved_model.contains_saved_model(fixture("saved_model"))
    assert isinstance(loaded.inner.w, dg.Variable)
    np.testing.assert_array_equal(loaded.inner.w.numpy(),
                                  np.arange(6, dtype=np.float32).reshape(2, 3) / 7)
    assert loaded.inner.b.dtype == dg.float64 and loaded.steps.numpy() == 7
    assert [v.dtype for v in loaded.layers] == [dg.int32, dg.bool]
    assert sorted(loaded.signatures) == ["serving_default"]
    out = loaded.signatures["serving_default"](x=dg.constant(SIMPLE["x"]))
    assert list(out) == ["output_0"]  # TF's output dict
    np.testing.assert_array_equal(out["output_0"].numpy(), np.float32(SIMPLE["y"]))


def test_a_loaded_function_runs_eagerly_in_dg_function_and_in_graph_mode():
    loaded = dg.saved_model.load(fixture("saved_model_mlp"))
    x = np.array(MLP["x"], np.float32)
    np.testing.assert_allclose(loaded(x).numpy(), MLP["y"], rtol=1e-6)
    traced = dg.function(lambda a: loaded(a) * 2.0)
    np.testing.assert_allclose(traced(dg.constant(x)).numpy(), np.float32(MLP["y"]) * 2,
                               rtol=1e-6)
    graph = dg.Graph()
    with graph.as_default():
        placeholder = dg.compat.v1.placeholder(dg.float32, [None, 2])
        y = loaded(placeholder)
        with dg.compat.v1.Session() as sess:
            np.testing.assert_allclose(sess.run(y, {placeholder: x}), MLP["y"], rtol=1e-6)


def test_gradients_through_a_loaded_function_equal_tf():
    loaded = dg.saved_model.load(fixture("saved_model_mlp"))
    x = dg.constant(MLP["x"])
    with dg.GradientTape() as tape:
        tape.watch(x)
        total = dg.reduce_sum(loaded(x))
    dx, dw1, dw2 = tape.gradient(total, [x, loaded.w1, loaded.w2])
    np.testing.assert_allclose(dx.numpy(), MLP["dy_dx"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dw1.numpy(), MLP["dy_dw1"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dw2.numpy(), MLP["dy_dw2"], rtol=1e-5, atol=1e-6)


def test_hessians_of_a_loaded_function_equal_tf():
    loaded = dg.saved_model.load(fixture("saved_model_mlp"))
    graph = dg.Graph()
    with graph.as_default():
        x = dg.compat.v1.placeholder(dg.float32, [2, 2])
        hessian = dg.hessians(dg.reduce_sum(loaded(x)), x)[0]
        with dg.compat.v1.Session() as sess:
            got = sess.run(hessian, {x: MLP["x"]})
    np.testing.assert_allclose(got, MLP["hessian_x"], rtol=1e-5, atol=1e-6)


def test_wrong_arguments_and_missing_directories_raise_tf_errors(tmp_path):
    loaded = dg.saved_model.load(fixture("saved_model_mlp"))
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded(np.zeros((2, 3), np.float32))
    with pytest.raises(dg.errors.NotFoundError, match="SavedModel file does not exist"):
        dg.saved_model.load(str(tmp_path))


def test_a_loaded_model_checkpoints_with_dg_train_checkpoint(tmp_path):
    loaded = dg.saved_model.load(fixture("saved_model_mlp"))
    path = dg.train.Checkpoint(model=loaded).write(str(tmp_path / "ckpt"))
    keys = [k for k, _ in dg.train.list_variables(path)]
    assert keys == ["_CHECKPOINTABLE_OBJECT_GRAPH", "model/b1/.ATTRIBUTES/VARIABLE_VALUE",
                    "model/w1/.ATTRIBUTES/VARIABLE_VALUE", "model/w2/.ATTRIBUTES/VARIABLE_VALUE"]


def test_a_keras_model_exported_for_serving_loads_runs_and_differentiates():
    expected = EXPECTED["keras_export"]
    loaded = dg.saved_model.load(fixture("keras_export"))
    assert sorted(loaded.signatures) == ["serve", "serving_default"]
    x = dg.constant(expected["x"])
    np.testing.assert_allclose(loaded.serve(x).numpy(), expected["y"], rtol=1e-6)
    out = loaded.signatures["serving_default"](x)
    np.testing.assert_allclose(list(out.values())[0].numpy(), expected["y"], rtol=1e-6)
    with dg.GradientTape() as tape:
        tape.watch(x)
        first = dg.reduce_sum(loaded.serve(x)[:, 0])
    np.testing.assert_allclose(tape.gradient(first, x).numpy(), expected["dfirst_dx"],
                               rtol=1e-5, atol=1e-7)


def test_functional_control_flow_and_embedding_lookups_load_and_differentiate():
    """While, If, ResourceGather, Einsum and Split in a TF-saved function."""
    expected = EXPECTED["saved_model_control"]
    loaded = dg.saved_model.load(fixture("saved_model_control"))
    x, ids = dg.constant(expected["x"]), dg.constant(expected["ids"])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = loaded(x, ids)
        total = dg.reduce_sum(y)
    dx, dtable, dw = tape.gradient(total, [x, loaded.table, loaded.w])
    np.testing.assert_allclose(y.numpy(), expected["y"], rtol=1e-6)
    np.testing.assert_allclose(dx.numpy(), expected["dy_dx"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dg.convert_to_tensor(dtable).numpy(), expected["dy_dtable"],
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dw.numpy(), expected["dy_dw"], rtol=1e-5, atol=1e-7)
    traced = dg.function(lambda a, b: loaded(a, b))  # the loops trace into a dg.function
    np.testing.assert_allclose(traced(x, ids).numpy(), expected["y"], rtol=1e-6)


def test_a_tf1_saved_model_loads_into_a_session_and_differentiates():
    expected = EXPECTED["tf1_saved_model"]
    with pytest.raises(dg.errors.UnimplementedError, match="TF1 SavedModel"):
        dg.saved_model.load(fixture("tf1_saved_model"))
    graph = dg.Graph()
    with graph.as_default(), dg.compat.v1.Session() as sess:
        meta_graph = dg.compat.v1.saved_model.loader.load(
            sess, [dg.compat.v1.saved_model.tag_constants.SERVING], fixture("tf1_saved_model"))
        signature = meta_graph.signature_def["serving_default"]
        x = graph.get_tensor_by_name(signature.inputs["x"].name)
        y = graph.get_tensor_by_name(signature.outputs["y"].name)
        np.testing.assert_allclose(sess.run(y, {x: expected["x"]}), expected["y"], rtol=1e-6)
        dx = dg.gradients(dg.reduce_sum(y[:, 0]), x)[0]
        np.testing.assert_allclose(sess.run(dx, {x: expected["x"]}), expected["dy0_dx"],
                                   rtol=1e-5, atol=1e-7)
