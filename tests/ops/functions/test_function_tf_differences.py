"""dg.function where it differed from TF 2.21 (issue 21 item 4): each behaviour and
exception class below was observed in TF 2.21 for the same program."""
import numpy as np
import pytest

import duograd as dg


def test_recursive_function_traces_each_python_level():
    @dg.function
    def fact(n):
        if n <= 1:
            return dg.constant(1)
        return n * fact(n - 1)
    assert fact(4).numpy() == 24                      # TF: 24


def test_module_without_super_init_gets_concrete_function():
    class Scale(dg.Module):
        def __init__(self):  # no super().__init__(), as some programs do
            self.w = dg.Variable(2.0)

        @dg.function
        def __call__(self, x):
            return self.w * x
    model = Scale()
    concrete = model.__call__.get_concrete_function(dg.TensorSpec([], dg.float32))
    assert concrete(dg.constant(3.0)).numpy() == 6.0 and model(dg.constant(3.0)).numpy() == 6.0


def test_concrete_function_called_with_its_tensor_arguments_only():
    class Linear(dg.Module):
        def __init__(self):
            super().__init__()
            self.w = dg.Variable(3.0)

    @dg.function
    def apply(model, x):
        return model.w * x
    model, x = Linear(), dg.constant(2.0)
    concrete = apply.get_concrete_function(model, x)
    assert concrete(x).numpy() == 6.0                 # TF: the flat (tensor-only) call
    assert concrete(model, x).numpy() == 6.0
    with pytest.raises(TypeError):
        concrete(Linear(), x)                         # another non-tensor value


def test_leaked_tensor_capture_is_type_error():
    leak = []

    @dg.function
    def leaker(x):
        y = x * 2
        leak.append(y)
        return y
    leaker(dg.constant(1.0))

    @dg.function
    def user(x):
        return x + leak[0]
    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        user(dg.constant(1.0))


def test_second_optimizer_creating_slots_on_a_retrace_is_value_error():
    v = dg.Variable([1.0, 2.0])

    @dg.function
    def step(opt):
        with dg.GradientTape() as tape:
            loss = dg.reduce_sum(v * v)
        opt.apply_gradients([(tape.gradient(loss, v), v)])
        return loss
    assert step(dg.keras.optimizers.Adam()).numpy() == 5.0
    with pytest.raises(ValueError):                   # TF: ValueError (singleton variables)
        step(dg.keras.optimizers.Adam())


def test_py_function_as_decorator():
    @dg.py_function(Tout=dg.float32)
    def double(a):
        return a * 2
    assert double(dg.constant(2.0)).numpy() == 4.0

    @dg.function
    def traced(x):
        return double(x) + 1.0
    assert traced(dg.constant(2.0)).numpy() == 5.0


def test_pretty_printed_signatures_as_tf():
    @dg.function
    def g(a, b=1):
        return a + b
    g(dg.constant(1.0))
    g(dg.constant([1.0, 2.0]))
    expected_first = ("Input Parameters:\n"
                      "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
                      "  b (POSITIONAL_OR_KEYWORD): Literal[1]\n"
                      "Output Type:\n"
                      "  TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
                      "Captures:\n"
                      "  None")
    text = g.pretty_printed_concrete_signatures()
    assert text.split("\n\n")[0] == expected_first and len(text.split("\n\n")) == 2
    assert "TensorSpec(shape=(2,), dtype=tf.float32, name=None)" in text.split("\n\n")[1]
    concrete = g.get_concrete_function(dg.constant(1.0))
    assert concrete.pretty_printed_signature() == expected_first
    assert repr(concrete) == "ConcreteFunction " + expected_first


def test_structured_input_signature_names_specs_after_parameters():
    @dg.function(input_signature=[dg.TensorSpec([None], dg.float32)])
    def h(x):
        return x
    assert h.get_concrete_function().structured_input_signature == \
        ((dg.TensorSpec([None], dg.float32, name="x"),), {})


def test_types_and_graph_def():
    assert isinstance(dg.constant(1.0), dg.types.experimental.TensorLike)
    assert isinstance(np.ones(2), dg.types.experimental.TensorLike)

    @dg.function
    def g(a):
        return a + 1.0
    concrete = g.get_concrete_function(dg.constant(1.0))
    assert isinstance(concrete, dg.types.experimental.ConcreteFunction)
    assert isinstance(g, dg.types.experimental.GenericFunction)
    pytest.importorskip("tensorboard", reason="GraphDef protos come with the tensorboard extra")
    graph_def = concrete.graph.as_graph_def()
    assert type(graph_def).__name__ == "GraphDef"
    assert {"AddV2", "Placeholder"} <= {node.op for node in graph_def.node}


def test_graph_collections_with_scope():
    graph = dg.Graph()
    with graph.as_default():
        dg.compat.v1.Variable(1.0)
        with dg.compat.v1.variable_scope("block"):
            inner = dg.compat.v1.get_variable("w", [1])
    keys = dg.compat.v1.GraphKeys
    assert len(graph.get_collection(keys.GLOBAL_VARIABLES)) == 2
    assert graph.get_collection(keys.GLOBAL_VARIABLES, scope="block") == [inner]
    graph.get_collection_ref("mine").append(3)
    assert graph.get_collection("mine") == [3]


def test_module_without_super_init_as_a_function_argument():
    class Bare(dg.Module):
        def __init__(self):  # skips super().__init__()
            self.w = dg.Variable(2.0)
    model = Bare()

    @dg.function
    def apply(m, x):
        return m.w * x
    assert apply.get_concrete_function(model, dg.constant(1.0))(dg.constant(3.0)).numpy() == 6.0
    assert apply(model, dg.constant(2.0)).numpy() == 4.0
    assert model.trainable_variables[0] is model.w
    assert repr(model).startswith("<") and "Bare object at 0x" in repr(model)   # TF: object's
