"""GraphDefs both ways: a frozen graph TF 2.21 wrote (data/saver/frozen.pb) imports, runs
in a Session and differentiates; duograd's own graphs export, freeze and re-import."""
import os
import subprocess
import sys

import numpy as np
import pytest

import duograd as dg
from fixture_models import EXPECTED, fixture

FROZEN = EXPECTED["saver/frozen.pb"]


def _frozen_bytes():
    with open(fixture("saver", "frozen.pb"), "rb") as stream:
        return stream.read()


def test_a_tf_frozen_graph_runs_and_differentiates_as_in_tf():
    graph = dg.Graph()
    with graph.as_default():
        x, y, loss = dg.compat.v1.import_graph_def(_frozen_bytes(),
                                                   return_elements=["x:0", "y:0", "loss:0"])
        assert (x.name, y.name, loss.name) == ("import/x:0", "import/y:0", "import/loss:0")
        dx = dg.gradients(loss, x)[0]
        with dg.compat.v1.Session() as sess:
            got_y, got_dx = sess.run([y, dx], {x: FROZEN["feed"]})
    np.testing.assert_allclose(got_y, FROZEN["y"], rtol=1e-6)
    np.testing.assert_allclose(got_dx, FROZEN["dloss_dx"], rtol=1e-6, atol=1e-7)


def test_input_map_return_elements_and_name():
    graph = dg.Graph()
    with graph.as_default():
        feed = dg.constant(np.array(FROZEN["feed"], np.float32))
        y_op, y = dg.compat.v1.import_graph_def(
            _frozen_bytes(), input_map={"x": feed}, return_elements=["y", "y:0"], name="net")
        assert y_op.name == "net/y" and y.op is y_op
        dy = dg.gradients(dg.reduce_sum(y), feed)[0]  # differentiable through the mapping
        with dg.compat.v1.Session() as sess:
            np.testing.assert_allclose(sess.run(y), FROZEN["y"], rtol=1e-6)
            assert sess.run(dy).shape == (2, 2)
        with pytest.raises(ValueError, match=r"not found in graph_def: \[nothing:0\]"):
            dg.compat.v1.import_graph_def(_frozen_bytes(), input_map={"nothing:0": feed})
        with pytest.raises(ValueError, match="return_element 'absent:0' not found"):
            dg.compat.v1.import_graph_def(_frozen_bytes(), return_elements=["absent:0"])
        dg.compat.v1.import_graph_def(_frozen_bytes(), name="")
        assert graph.get_operation_by_name("y").type == "Identity"


def _graph_def_with(node_op, **attrs):
    from tensorboard.compat.proto import graph_pb2
    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString(_frozen_bytes())
    node = graph_def.node.add(name="odd", op=node_op)
    node.input.append("y")
    return graph_def


@pytest.mark.parametrize("op_type, message", [
    ("PyFunc", "calls a Python function"), ("EagerPyFunc", "calls a Python function"),
    ("VarHandleOp", "freeze the graph first"), ("NoSuchOp", "cannot import")])
def test_refused_and_unknown_ops_are_named_and_nothing_is_built(op_type, message):
    graph = dg.Graph()
    with graph.as_default():
        with pytest.raises(dg.errors.InvalidArgumentError, match=f"node odd.*{op_type}.*"
                                                                 f"{message}"):
            dg.compat.v1.import_graph_def(_graph_def_with(op_type))
    assert graph.get_operations() == []


def test_malformed_bytes_and_oversized_constants_raise_tf_errors():
    from tensorboard.compat.proto import graph_pb2
    with dg.Graph().as_default():
        with pytest.raises(dg.errors.DataLossError, match="not a valid GraphDef"):
            dg.compat.v1.import_graph_def(b"\x0a\xff\xff\xff\xff\x0f")
        graph_def = graph_pb2.GraphDef()
        node = graph_def.node.add(name="huge", op="Const")
        node.attr["dtype"].type = 1
        node.attr["value"].tensor.dtype = 1
        for size in (1 << 20, 1 << 20):
            node.attr["value"].tensor.tensor_shape.dim.add(size=size)
        node.attr["value"].tensor.float_val.append(1.0)
        with pytest.raises(dg.errors.InvalidArgumentError, match="node huge.*refusing"):
            dg.compat.v1.import_graph_def(graph_def)


def _model():
    x = dg.compat.v1.placeholder(dg.float32, [None, 3], name="x")
    with dg.compat.v1.variable_scope("dense"):
        w = dg.compat.v1.get_variable("kernel", initializer=dg.constant(
            np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)))
    h = dg.nn.relu(dg.matmul(x, w)) + dg.cast(dg.argmax(x, 1)[:, None], dg.float32)
    both = dg.concat([h, dg.transpose(dg.nn.softmax(h), [0, 1])], axis=1)
    stacked = dg.stack([dg.reduce_mean(both, axis=1), dg.reduce_max(both, axis=1)], axis=1)
    picked = dg.gather(dg.expand_dims(stacked, 0), [0], axis=0)
    return x, dg.identity(dg.squeeze(picked, [0]) * 2.0, name="out")


def test_export_freeze_and_reimport_give_the_same_values_and_gradients(tmp_path):
    feed = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], np.float32)
    graph = dg.Graph()
    with graph.as_default():
        x, out = _model()
        grad = dg.gradients(dg.reduce_sum(out), x)[0]
        with dg.compat.v1.Session() as sess:
            sess.run(dg.compat.v1.global_variables_initializer())
            want, want_grad = sess.run([out, grad], {x: feed})
            frozen = dg.compat.v1.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["out"])
    assert "VarHandleOp" not in {n.op for n in frozen.node}
    text = dg.io.write_graph(frozen, str(tmp_path), "frozen.pbtxt")
    binary = dg.compat.v1.train.write_graph(frozen, str(tmp_path), "frozen.pb", as_text=False)
    from google.protobuf import text_format
    from tensorboard.compat.proto import graph_pb2
    with open(text) as stream:
        assert text_format.Parse(stream.read(), graph_pb2.GraphDef()) == frozen
    with open(binary, "rb") as stream:
        data = stream.read()
    again = dg.Graph()
    with again.as_default():
        x2, out2 = dg.compat.v1.import_graph_def(data, return_elements=["x:0", "out:0"])
        grad2 = dg.gradients(dg.reduce_sum(out2), x2)[0]
        with dg.compat.v1.Session() as sess:
            got, got_grad = sess.run([out2, grad2], {x2: feed})
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_grad, want_grad)


def test_import_duograd_stays_free_of_protobuf():
    code = ("import sys, duograd as dg; g = dg.Graph(); "
            "assert not any(m.startswith(('google.protobuf', 'tensorboard')) "
            "for m in sys.modules), sorted(m for m in sys.modules if 'proto' in m)")
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_a_tf_frozen_convolutional_graph_runs_and_differentiates_as_in_tf():
    expected = EXPECTED["saver/frozen_cnn.pb"]
    feed = np.linspace(-1, 1, 2 * 6 * 6 * 2, dtype=np.float32).reshape(2, 6, 6, 2)
    with open(fixture("saver", "frozen_cnn.pb"), "rb") as stream:
        data = stream.read()
    graph = dg.Graph()
    with graph.as_default():
        images, probs, classes, loss = dg.compat.v1.import_graph_def(
            data, return_elements=["images:0", "probs:0", "classes:0", "loss:0"], name="cnn")
        grad = dg.gradients(loss, images)[0]
        with dg.compat.v1.Session() as sess:
            got_probs, got_classes, got_grad = sess.run([probs, classes, grad], {images: feed})
    np.testing.assert_allclose(got_probs, expected["probs"], rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(got_classes, expected["classes"])
    np.testing.assert_allclose(got_grad, expected["dloss_dimages"], rtol=1e-4, atol=1e-6)


def test_eagerly_the_import_goes_to_the_global_default_graph():
    y, = dg.compat.v1.import_graph_def(_frozen_bytes(), return_elements=["y:0"], name="eager")
    assert y.graph is dg.compat.v1.get_default_graph()
    with dg.compat.v1.Session(graph=y.graph) as sess:
        got = sess.run(y, {y.graph.get_tensor_by_name("eager/x:0"): FROZEN["feed"]})
    np.testing.assert_allclose(got, FROZEN["y"], rtol=1e-6)


def test_a_graph_calling_a_dg_function_exports_its_library_and_reimports():
    @dg.function
    def inner(a):
        return dg.tanh(a) * 3.0

    graph = dg.Graph()
    with graph.as_default():
        x = dg.compat.v1.placeholder(dg.float32, [2], name="x")
        dg.identity(inner(x) + 1.0, name="y")
        graph_def = graph.as_graph_def()
    assert [f.signature.name for f in graph_def.library.function] == ["__inference_inner_0_0"]
    again = dg.Graph()
    with again.as_default():
        x2, y2 = dg.compat.v1.import_graph_def(graph_def, return_elements=["x:0", "y:0"])
        dx = dg.gradients(y2, x2)[0]
        with dg.compat.v1.Session() as sess:
            got_y, got_dx = sess.run([y2, dx], {x2: [0.5, -1.0]})
    points = np.array([0.5, -1.0], np.float32)
    np.testing.assert_allclose(got_y, np.tanh(points) * 3 + 1, rtol=1e-6)
    np.testing.assert_allclose(got_dx, 3 * (1 - np.tanh(points) ** 2), rtol=1e-6)
