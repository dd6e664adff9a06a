"""dg.saved_model.save writes TF's SavedModel layout (TF 2.21 loads it in
conformance/formats_check.py); here: it loads back into duograd with the same values,
signatures and gradients, and what cannot be saved is refused by name."""
import os

import numpy as np
import pytest

import duograd as dg

X = np.array([[0.5, -1.0], [1.5, 0.25]], np.float32)


class Mlp(dg.Module):
    def __init__(self):
        super().__init__(name="mlp")
        self.w1 = dg.Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), name="w1")
        self.w2 = dg.Variable(np.linspace(0.5, -0.5, 12, dtype=np.float32).reshape(6, 2),
                              name="w2")
        self.layers = [dg.Variable(np.float32(2.0), name="scale")]

    @dg.function(input_signature=[dg.TensorSpec([None, 2], dg.float32, name="x")])
    def __call__(self, x):
        h = dg.tanh(dg.matmul(x, self.w1))
        both = dg.concat([h, dg.nn.relu(-h)], axis=1)
        p = dg.nn.softmax(dg.matmul(both, self.w2))
        return dg.reduce_sum(p * dg.constant([1.0, 3.0]), axis=1) * self.layers[0]


def test_a_saved_model_loads_back_with_values_signatures_and_gradients(tmp_path):
    model = Mlp()
    dg.saved_model.save(model, str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(tmp_path / "variables")) == ["variables.data-00000-of-00001",
                                                          "variables.index"]
    keys = [k for k, _ in dg.train.list_variables(str(tmp_path / "variables" / "variables"))]
    assert keys == ["_CHECKPOINTABLE_OBJECT_GRAPH", "layers/0/.ATTRIBUTES/VARIABLE_VALUE",
                    "w1/.ATTRIBUTES/VARIABLE_VALUE", "w2/.ATTRIBUTES/VARIABLE_VALUE"]
    loaded = dg.saved_model.load(str(tmp_path))
    np.testing.assert_array_equal(loaded(X).numpy(), model(X).numpy())
    signature = loaded.signatures["serving_default"]
    np.testing.assert_array_equal(signature(x=X)["output_0"].numpy(), model(X).numpy())
    x = dg.constant(X)
    grads = []
    for target in (model, loaded):
        with dg.GradientTape() as tape:
            tape.watch(x)
            total = dg.reduce_sum(target(x))
        grads.append(tape.gradient(total, [x, target.w1, target.layers[0]]))
    for ours, theirs in zip(*grads, strict=True):
        np.testing.assert_allclose(theirs.numpy(), ours.numpy(), rtol=1e-6)


def test_explicit_signatures_dict_and_dict_outputs(tmp_path):
    model = Mlp()

    @dg.function(input_signature=[dg.TensorSpec([None, 2], dg.float32),
                                  dg.TensorSpec([], dg.float32)])
    def scaled(points, factor):
        return {"value": model(points) * factor, "first": points[:, 0]}

    dg.saved_model.save(model, str(tmp_path), signatures={"scaled": scaled,
                                                          "plain": model.__call__})
    loaded = dg.saved_model.load(str(tmp_path))
    assert sorted(loaded.signatures) == ["plain", "scaled"]
    out = loaded.signatures["scaled"](points=X, factor=np.float32(3.0))
    assert sorted(out) == ["first", "value"]
    np.testing.assert_allclose(out["value"].numpy(), model(X).numpy() * 3, rtol=1e-6)
    np.testing.assert_array_equal(out["first"].numpy(), X[:, 0])


def test_what_cannot_be_saved_is_refused_by_name(tmp_path):
    outside = dg.Variable(1.0, name="outside")

    class Leaky(dg.Module):
        @dg.function(input_signature=[dg.TensorSpec([2], dg.float32)])
        def __call__(self, x):
            return x * outside

    with pytest.raises(ValueError, match="captures outside"):
        dg.saved_model.save(Leaky(), str(tmp_path / "leaky"))

    class PyCall(dg.Module):
        @dg.function(input_signature=[dg.TensorSpec([2], dg.float32)])
        def __call__(self, x):
            return dg.py_function(lambda a: a * 2, [x], dg.float32)

    with pytest.raises(ValueError, match="PyFunc.*calls a Python function"):
        dg.saved_model.save(PyCall(), str(tmp_path / "py"))
