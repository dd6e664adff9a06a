"""dg.Module and eager name scopes: names and walk orders recorded from TF 2.21."""
import numpy as np
import pytest

import duograd as dg


class Dense(dg.Module):
    def __init__(self, n, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = dg.Variable(dg.ones((2, n)), name="w")
            self.b = dg.Variable(dg.zeros((n,)), name="b", trainable=False)


class MLP(dg.Module):
    def __init__(self):
        super().__init__()
        with self.name_scope:
            self.layers = [Dense(3), Dense(2, name="out")]
            self.extra = {"z": Dense(1, "z"), "a": dg.Variable(1.0, name="a")}


# Recorded from TF 2.21 with tf.Module in place of dg.Module (same program).
TF_VARIABLES = ["mlp/a:0", "mlp/z/b:0", "mlp/z/w:0", "mlp/dense/b:0", "mlp/dense/w:0",
                "mlp/out/b:0", "mlp/out/w:0"]
TF_TRAINABLE = ["mlp/a:0", "mlp/z/w:0", "mlp/dense/w:0", "mlp/out/w:0"]
TF_SUBMODULES = ["z", "dense", "out"]


def test_variables_and_submodules_in_tf_order():
    mlp = MLP()
    assert [v.name for v in mlp.variables] == TF_VARIABLES
    assert [v.name for v in mlp.trainable_variables] == TF_TRAINABLE
    assert [m.name for m in mlp.submodules] == TF_SUBMODULES
    assert isinstance(mlp.variables, tuple) and isinstance(mlp.submodules, tuple)


def test_names_default_to_snake_case_and_are_validated():
    class MLPBlock2D(dg.Module):
        pass
    assert MLPBlock2D().name == "mlp_block2_d"  # TF 2.21
    assert dg.Module().name == "module"
    for bad in ["1a", "a b", "a/b", ""]:
        with pytest.raises(ValueError, match="not a valid module name"):
            dg.Module(name=bad)


def test_graph_mode_name_scopes_are_made_unique():
    with dg.Graph().as_default():
        first, second = MLP(), MLP()
        assert (first.name_scope.name, second.name_scope.name) == ("mlp/", "mlp_1/")
        assert [v.name for v in second.variables] == [n.replace("mlp/", "mlp_1/")
                                                      for n in TF_VARIABLES]


def test_eager_name_scope_prefixes_variable_names_as_tf2():
    with dg.name_scope("outer"):
        with dg.name_scope("inner") as scope:
            assert scope == "outer/inner/"
            assert dg.Variable(1.0, name="w").name == "outer/inner/w:0"
        assert dg.Variable(1.0, name="w").name == "outer/w:0"  # eager: not made unique
        with dg.name_scope("absolute/"):
            assert dg.Variable(1.0, name="v").name == "absolute/v:0"
    assert dg.Variable(1.0, name="w").name == "w:0"


def test_with_name_scope_decorator_and_shared_variables():
    class Linear(dg.Module):
        @dg.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = dg.Variable(dg.ones((x.shape[-1], 2)), name="w")
            return dg.matmul(x, self.w)

    layer = Linear(name="linear")
    y = layer(dg.ones((1, 3)))
    assert layer.w.name == "linear/w:0"
    np.testing.assert_allclose(y.numpy(), [[3.0, 3.0]])
    assert layer.trainable_variables == (layer.w,)


def test_module_trains_with_an_optimizer_and_exposes_trackable_children():
    mlp = MLP()
    opt = dg.keras.optimizers.SGD(0.5)
    mlp.optimizer = opt
    with dg.GradientTape() as tape:
        loss = sum(dg.reduce_sum(v) for v in mlp.trainable_variables)
    grads = tape.gradient(loss, mlp.trainable_variables)
    opt.apply_gradients(zip(grads, mlp.trainable_variables))
    np.testing.assert_allclose(mlp.extra["a"].numpy(), 0.5)
    children = mlp.trackable_children()
    assert sorted(children) == ["extra", "layers", "optimizer"]
    assert children["optimizer"] is opt and children["layers"][1].name == "out"
    assert [v.name for v in mlp.variables] == TF_VARIABLES  # the optimizer is not a module
