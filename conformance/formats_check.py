"""TensorFlow 2.21 reads what duograd writes: checkpoints (Module, Keras Adam slots, TF1
Saver), a SavedModel (called, its signature, its gradients) and a frozen GraphDef.

    python conformance/formats_check.py            # both phases; exit 1 on a difference

Phase `write DIR` runs duograd (no TensorFlow) and writes checkpoints plus the
values it expects into DIR/expected.npz; phase `check DIR` runs TensorFlow,
restores each file into TF objects of the same structure and compares bit for
bit. The phases run as subprocesses: DUOGRAD_PYTHON and TF_PYTHON name their
interpreters (default: this one, as in .venv-conformance where both are
installed). The reverse direction (TF writes, duograd reads) is checked by
tests/formats against the committed TF-written fixtures.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np

W = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
X = np.array([[0.5, -1.0], [1.5, 0.25]], np.float32)
B = np.array([1.5, -2.25, 3.0])


def write(directory: str) -> None:
    import duograd as dg

    expected = {}

    class Inner(dg.Module):
        def __init__(self):
            super().__init__(name="inner")
            self.w = dg.Variable(W, name="w")
            self.b = dg.Variable(B, name="b")

    class Outer(dg.Module):
        def __init__(self):
            super().__init__(name="outer")
            self.inner = Inner()
            self.scale = dg.Variable(np.float32(0.5), name="scale")
            self.layers = [dg.Variable(np.array([1, 2], np.int32), name="l0")]

    outer = Outer()
    manager = dg.train.CheckpointManager(dg.train.Checkpoint(model=outer),
                                         os.path.join(directory, "module"), max_to_keep=2)
    manager.save()
    outer.scale.assign(np.float32(0.75))
    manager.save()
    expected["module/scale"] = np.float32(0.75)

    model = Inner()
    optimizer = dg.keras.optimizers.Adam(learning_rate=0.1)
    for step in range(2):
        with dg.GradientTape() as tape:
            loss = dg.reduce_sum(dg.square(model.w)) * (step + 1)
        optimizer.apply_gradients(zip(tape.gradient(loss, [model.w]), [model.w], strict=True))
    dg.train.Checkpoint(model=model, optimizer=optimizer).write(
        os.path.join(directory, "adam", "ckpt"))
    expected["adam/w"] = model.w.numpy()
    expected["adam/m"] = optimizer.get_slot(model.w, "momentum").numpy()
    expected["adam/v"] = optimizer.get_slot(model.w, "velocity").numpy()

    graph = dg.Graph()
    with graph.as_default():
        with dg.compat.v1.variable_scope("dense"):
            kernel = dg.compat.v1.get_variable("kernel", initializer=dg.constant(W))
        loss = dg.reduce_sum(dg.square(kernel))
        train = dg.compat.v1.train.AdamOptimizer(0.05).minimize(loss)
        with dg.compat.v1.Session() as sess:
            sess.run(dg.compat.v1.global_variables_initializer())
            sess.run(train)
            saver = dg.compat.v1.train.Saver()
            saver.save(sess, os.path.join(directory, "saver", "model"), global_step=5)
            for variable in dg.compat.v1.global_variables():
                expected["saver/" + variable.name[:-2]] = sess.run(variable)

    class Mlp(dg.Module):
        def __init__(self):
            super().__init__(name="mlp")
            self.w1 = dg.Variable(W[:, :3] - 0.3, name="w1")
            self.w2 = dg.Variable(np.linspace(0.5, -0.5, 12, dtype=np.float32).reshape(6, 2),
                                  name="w2")

        @dg.function(input_signature=[dg.TensorSpec([None, 2], dg.float32, name="x")])
        def __call__(self, x):
            h = dg.tanh(dg.matmul(x, self.w1))
            both = dg.concat([h, dg.nn.relu(-h)], axis=1)
            p = dg.nn.softmax(dg.matmul(both, self.w2))
            return dg.reduce_sum(p * dg.constant([1.0, 3.0]), axis=1) + dg.reduce_mean(h * h)

    mlp = Mlp()
    dg.saved_model.save(mlp, os.path.join(directory, "saved_model"))
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        total = dg.reduce_sum(mlp(x))
    dx, dw1 = tape.gradient(total, [x, mlp.w1])
    expected.update({"saved_model/y": mlp(x).numpy(), "saved_model/dx": dx.numpy(),
                     "saved_model/dw1": dw1.numpy()})

    graph = dg.Graph()
    with graph.as_default():
        placeholder = dg.compat.v1.placeholder(dg.float32, [None, 2], name="x")
        with dg.compat.v1.variable_scope("dense"):
            kernel = dg.compat.v1.get_variable("kernel", initializer=dg.constant(W))
        out = dg.identity(dg.reduce_max(dg.nn.relu(dg.matmul(placeholder, kernel)), axis=1),
                          name="out")
        with dg.compat.v1.Session() as sess:
            sess.run(dg.compat.v1.global_variables_initializer())
            expected["graph_def/out"] = sess.run(out, {placeholder: X})
            frozen = dg.compat.v1.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["out"])
    dg.io.write_graph(frozen, directory, "frozen.pb", as_text=False)

    @dg.function
    def inner(a):
        return dg.tanh(a) * 3.0

    graph = dg.Graph()
    with graph.as_default():  # a graph calling a dg.function: its library goes along
        placeholder = dg.compat.v1.placeholder(dg.float32, [None, 2], name="x")
        out = dg.identity(inner(placeholder) + 1.0, name="out")
        with dg.compat.v1.Session() as sess:
            expected["graph_def/library"] = sess.run(out, {placeholder: X})
    dg.io.write_graph(graph, directory, "library.pbtxt")
    np.savez(os.path.join(directory, "expected.npz"), **expected)


def check(directory: str) -> int:
    import tensorflow as tf
    expected = dict(np.load(os.path.join(directory, "expected.npz")))
    failures = []

    def same(name, got, want):
        got = np.asarray(got)
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            failures.append(f"{name}: TF read {got!r}, duograd wrote {want!r}")

    class Inner(tf.Module):
        def __init__(self):
            super().__init__(name="inner")
            self.w = tf.Variable(np.zeros((2, 3), np.float32), name="w")
            self.b = tf.Variable(np.zeros(3), name="b")

    class Outer(tf.Module):
        def __init__(self):
            super().__init__(name="outer")
            self.inner = Inner()
            self.scale = tf.Variable(np.float32(0), name="scale")
            self.layers = [tf.Variable(np.zeros(2, np.int32), name="l0")]

    outer = Outer()
    latest = tf.train.latest_checkpoint(os.path.join(directory, "module"))
    if latest is None or not latest.endswith("ckpt-2"):
        failures.append(f"module: tf.train.latest_checkpoint gave {latest}")
    else:
        checkpoint = tf.train.Checkpoint(model=outer)
        checkpoint.restore(latest).assert_consumed()
        same("module/w", outer.inner.w.numpy(), W)
        same("module/b", outer.inner.b.numpy(), B)
        same("module/scale", outer.scale.numpy(), expected["module/scale"])
        same("module/layers", outer.layers[0].numpy(), np.array([1, 2], np.int32))
        same("module/save_counter", checkpoint.save_counter.numpy(), np.int64(2))

    import keras
    model = Inner()
    optimizer = keras.optimizers.Adam(learning_rate=0.5)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).read(
        os.path.join(directory, "adam", "ckpt"))
    optimizer.build([model.w])
    status.assert_existing_objects_matched()
    same("adam/w", model.w.numpy(), expected["adam/w"])
    same("adam/iterations", optimizer.iterations.numpy(), np.int64(2))
    same("adam/learning_rate", optimizer.learning_rate.numpy(), np.float32(0.1))
    same("adam/m", optimizer._momentums[0].numpy(), expected["adam/m"])
    same("adam/v", optimizer._velocities[0].numpy(), expected["adam/v"])

    graph = tf.Graph()
    with graph.as_default():
        with tf.compat.v1.variable_scope("dense"):
            kernel = tf.compat.v1.get_variable("kernel", initializer=tf.zeros((2, 3)))
        tf.compat.v1.train.AdamOptimizer(0.05).minimize(tf.reduce_sum(tf.square(kernel)))
        with tf.compat.v1.Session() as sess:
            prefix = os.path.join(directory, "saver", "model-5")
            tf.compat.v1.train.Saver().restore(sess, prefix)
            for variable in tf.compat.v1.global_variables():
                same("saver/" + variable.name[:-2], sess.run(variable),
                     expected["saver/" + variable.name[:-2]])
    def close(name, got, want):
        got = np.asarray(got)
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
            failures.append(f"{name}: TF computed {got!r}, duograd {want!r}")

    loaded = tf.saved_model.load(os.path.join(directory, "saved_model"))
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        total = tf.reduce_sum(loaded(x))
    dx, dw1 = tape.gradient(total, [x, loaded.w1])
    close("saved_model/y", loaded(x), expected["saved_model/y"])
    close("saved_model/signature", loaded.signatures["serving_default"](x=x)["output_0"],
          expected["saved_model/y"])
    close("saved_model/dx", dx, expected["saved_model/dx"])
    close("saved_model/dw1", dw1, expected["saved_model/dw1"])

    with tf.Graph().as_default():  # TF1's loader (as TF Serving): restore op + SignatureDef
        with tf.compat.v1.Session() as sess:
            meta_graph = tf.compat.v1.saved_model.load(
                sess, ["serve"], os.path.join(directory, "saved_model"))
            signature = meta_graph.signature_def["serving_default"]
            close("saved_model/tf1_loader", sess.run(
                signature.outputs["output_0"].name, {signature.inputs["x"].name: X}),
                expected["saved_model/y"])

    graph_def = tf.compat.v1.GraphDef()
    with open(os.path.join(directory, "frozen.pb"), "rb") as stream:
        graph_def.ParseFromString(stream.read())
    with tf.Graph().as_default():
        x_in, out = tf.compat.v1.import_graph_def(graph_def, return_elements=["x:0", "out:0"])
        with tf.compat.v1.Session() as sess:
            close("graph_def/out", sess.run(out, {x_in: X}), expected["graph_def/out"])
    from google.protobuf import text_format
    with open(os.path.join(directory, "library.pbtxt")) as stream:
        graph_def = text_format.Parse(stream.read(), tf.compat.v1.GraphDef())
    with tf.Graph().as_default():
        x_in, out = tf.compat.v1.import_graph_def(graph_def, return_elements=["x:0", "out:0"])
        with tf.compat.v1.Session() as sess:
            close("graph_def/library", sess.run(out, {x_in: X}), expected["graph_def/library"])
    for failure in failures:
        print("DIFFERS", failure)
    print(f"formats conformance: {len(failures)} differences")
    return 1 if failures else 0


def main() -> int:
    with tempfile.TemporaryDirectory() as directory:
        env = dict(os.environ)
        duograd_python = env.get("DUOGRAD_PYTHON", sys.executable)
        subprocess.run([duograd_python, __file__, "write", directory], check=True)
        tf_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
        tf_env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        return subprocess.run([env.get("TF_PYTHON", sys.executable), __file__, "check",
                               directory], env=tf_env).returncode


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    else:
        sys.exit(main())
