"""Writes the TensorFlow-made fixtures of tests/formats (run with TensorFlow 2.21):

    cd tests/formats/data && /work/main/.venv-conformance/bin/python make_fixtures.py

Every value is a fixed number (no randomness), so rerunning rewrites the same
bytes except for what TF itself varies between runs. What each file holds is
listed in expected.json (key -> dtype, shape, values), which the tests check
duograd's reader against.
"""
import json
import os
import shutil

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = {}


def fresh(name):
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def record(prefix):
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    entry = {}
    for key, shape in sorted(reader.get_variable_to_shape_map().items()):
        value = reader.get_tensor(key)
        if dtypes[key] == tf.string:
            value = (value.decode("latin-1") if isinstance(value, bytes) else
                     [v.decode("latin-1") for v in np.ravel(value)])
        else:
            value = np.asarray(value).ravel().tolist()
        entry[key] = {"dtype": dtypes[key].name, "shape": list(shape), "value": value}
    EXPECTED[os.path.relpath(prefix, HERE)] = entry


class Inner(tf.Module):
    def __init__(self):
        super().__init__(name="inner")
        self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 7, name="w")
        self.b = tf.Variable(np.array([1.5, -2.25, 3.0], dtype=np.float64), name="b")


class Outer(tf.Module):
    def __init__(self):
        super().__init__(name="outer")
        self.inner = Inner()
        self.scale = tf.Variable(np.float32(0.5), name="scale")
        self.steps = tf.Variable(np.int64(7), name="steps")
        self.layers = [tf.Variable(np.array([1, 2], dtype=np.int32), name="l0"),
                       tf.Variable(np.array([[True, False]]), name="l1")]

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return tf.matmul(x, self.inner.w) * self.scale + tf.cast(self.inner.b, tf.float32)


def module_checkpoints():
    path = fresh("module")
    model = Outer()
    ckpt = tf.train.Checkpoint(model=model)
    record(ckpt.write(os.path.join(path, "written")))
    record(ckpt.save(os.path.join(path, "saved")))


def adam_checkpoint():
    path = fresh("adam")
    import keras
    model = Inner()
    optimizer = keras.optimizers.Adam(learning_rate=0.1)
    for step in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model.w)) * (step + 1) + tf.reduce_sum(
                tf.cast(model.b, tf.float32) ** 3)
        optimizer.apply_gradients(zip(tape.gradient(loss, [model.w]), [model.w]))
    record(tf.train.Checkpoint(model=model, optimizer=optimizer).write(
        os.path.join(path, "ckpt")))


def v1_optimizer_checkpoint():
    """An object-based checkpoint of a TF1 optimizer: slots as .OPTIMIZER_SLOT references."""
    path = fresh("v1opt")
    v = tf.Variable([1.0, 2.0], name="v")
    optimizer = tf.compat.v1.train.AdamOptimizer(0.1)
    for _ in range(2):
        optimizer.minimize(lambda: tf.reduce_sum(v * v * v), var_list=[v])
    record(tf.train.Checkpoint(v=v, optimizer=optimizer).write(os.path.join(path, "ckpt")))


def saver_checkpoint():
    path = fresh("saver")
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(0)
        x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
        with tf.compat.v1.variable_scope("dense"):
            w = tf.compat.v1.get_variable(
                "kernel", initializer=tf.constant([[0.5, -1.0], [2.0, 0.25]]))
            b = tf.compat.v1.get_variable("bias", initializer=tf.constant([0.1, -0.2]))
        y = tf.identity(tf.tanh(tf.matmul(x, w) + b), name="y")
        loss = tf.reduce_sum(tf.square(y), name="loss")
        step = tf.compat.v1.train.get_or_create_global_step()
        train = tf.compat.v1.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        saver = tf.compat.v1.train.Saver(save_relative_paths=True)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            feed = {x: [[1.0, 2.0], [-0.5, 0.25]]}
            for _ in range(2):
                sess.run(train, feed)
            record(saver.save(sess, os.path.join(path, "model"), global_step=step))
            frozen = tf.compat.v1.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["y", "loss"])
            with open(os.path.join(path, "frozen.pb"), "wb") as stream:
                stream.write(frozen.SerializeToString())
            EXPECTED["saver/frozen.pb"] = {
                "feed": [[1.0, 2.0], [-0.5, 0.25]],
                "y": sess.run(y, feed).tolist(),
                "dloss_dx": sess.run(tf.gradients(loss, x)[0], feed).tolist()}


def frozen_cnn():
    """A frozen TF1 convolutional graph (Conv2D, BiasAdd, MaxPool, Reshape, Softmax...)."""
    path = os.path.join(HERE, "saver")
    graph = tf.Graph()
    with graph.as_default():
        images = tf.compat.v1.placeholder(tf.float32, [None, 6, 6, 2], name="images")
        kernel = tf.compat.v1.get_variable(
            "conv/kernel", initializer=tf.constant(
                np.linspace(-0.5, 0.5, 3 * 3 * 2 * 4, dtype=np.float32).reshape(3, 3, 2, 4)))
        bias = tf.compat.v1.get_variable("conv/bias", initializer=tf.constant(
            [0.1, -0.1, 0.2, 0.0]))
        conv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, kernel, 1, "SAME"), bias))
        pooled = tf.nn.max_pool2d(conv, 2, 2, "VALID")
        flat = tf.reshape(pooled, [-1, 3 * 3 * 4])
        dense = tf.compat.v1.get_variable("dense/kernel", initializer=tf.constant(
            np.linspace(1, -1, 36 * 3, dtype=np.float32).reshape(36, 3)))
        logits = tf.matmul(flat, dense)
        probs = tf.nn.softmax(logits, name="probs")
        classes = tf.argmax(probs, axis=1, name="classes")
        loss = tf.reduce_mean(-tf.math.log(probs[:, 0] + 1e-6) * tf.reduce_max(
            tf.transpose(pooled, [0, 3, 1, 2]), axis=[1, 2, 3]), name="loss")
        feed = np.linspace(-1, 1, 2 * 6 * 6 * 2, dtype=np.float32).reshape(2, 6, 6, 2)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            frozen = tf.compat.v1.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["probs", "classes", "loss"])
            with open(os.path.join(path, "frozen_cnn.pb"), "wb") as stream:
                stream.write(frozen.SerializeToString())
            probs_v, classes_v, grad = sess.run(
                [probs, classes, tf.gradients(loss, images)[0]], {images: feed})
            EXPECTED["saver/frozen_cnn.pb"] = {"probs": probs_v.tolist(),
                                               "classes": classes_v.tolist(),
                                               "dloss_dimages": grad.tolist()}


def saved_model():
    path = fresh("saved_model")
    model = Outer()
    tf.saved_model.save(model, path, signatures={"serving_default": model.__call__})
    x = tf.constant([[1.0, -2.0], [0.5, 3.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = model(x)
    dx, dw = tape.gradient(y, [x, model.inner.w])
    EXPECTED["saved_model"] = {"x": x.numpy().tolist(), "y": y.numpy().tolist(),
                               "dy_dx": dx.numpy().tolist(), "dy_dw": dw.numpy().tolist()}


class Mlp(tf.Module):
    """A nonlinear model (its Hessian is not zero) using reductions, concat and softmax."""

    def __init__(self):
        super().__init__(name="mlp")
        self.w1 = tf.Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), name="w1")
        self.b1 = tf.Variable(np.array([0.1, -0.2, 0.3], np.float32), name="b1")
        self.w2 = tf.Variable(np.linspace(0.5, -0.5, 12, dtype=np.float32).reshape(6, 2),
                              name="w2")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def __call__(self, x):
        h = tf.tanh(tf.matmul(x, self.w1) + self.b1)
        both = tf.concat([h, tf.nn.relu(-h)], axis=1)
        p = tf.nn.softmax(tf.matmul(both, self.w2))
        return tf.reduce_sum(p * tf.constant([1.0, 3.0]), axis=1) + tf.reduce_mean(h * h)


def saved_model_mlp():
    path = fresh("saved_model_mlp")
    model = Mlp()
    tf.saved_model.save(model, path, signatures=model.__call__.get_concrete_function())
    x = tf.constant([[0.5, -1.0], [1.5, 0.25]])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = model(x)
            total = tf.reduce_sum(y)
        dx = tape.gradient(total, x)
        dw1, dw2 = tape.gradient(total, [model.w1, model.w2])
    hessian = outer.jacobian(dx, x)
    EXPECTED["saved_model_mlp"] = {
        "x": x.numpy().tolist(), "y": y.numpy().tolist(), "dy_dx": dx.numpy().tolist(),
        "dy_dw1": dw1.numpy().tolist(), "dy_dw2": dw2.numpy().tolist(),
        "hessian_x": hessian.numpy().tolist()}


class Control(tf.Module):
    """Functional control flow (While, If), an embedding lookup (ResourceGather), einsum
    and split inside a saved function."""

    def __init__(self):
        super().__init__(name="control")
        self.table = tf.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3),
                                 name="table")
        self.w = tf.Variable(np.array([0.5, -0.25, 1.5], np.float32), name="w")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x"),
                                  tf.TensorSpec([None], tf.int32, name="ids")])
    def __call__(self, x, ids):
        rows = tf.nn.embedding_lookup(self.table, ids)
        h = tf.einsum("bi,bi->b", x * self.w, rows)
        a, b = tf.split(tf.stack([h, h * h], axis=1), 2, axis=1)
        i = tf.constant(0)
        acc = tf.squeeze(a, 1)

        def body(i, acc):
            return i + 1, tf.sin(acc) * self.w[0] + tf.squeeze(b, 1)

        _, acc = tf.while_loop(lambda i, acc: i < 3, body, [i, acc])
        return tf.cond(tf.reduce_sum(acc) > 0, lambda: acc * 2.0, lambda: tf.tanh(acc))


def saved_model_control():
    path = fresh("saved_model_control")
    model = Control()
    tf.saved_model.save(model, path)
    x = tf.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    ids = tf.constant([3, 1])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = model(x, ids)
        total = tf.reduce_sum(y)
    dx, dtable, dw = tape.gradient(total, [x, model.table, model.w])
    EXPECTED["saved_model_control"] = {
        "x": x.numpy().tolist(), "ids": ids.numpy().tolist(), "y": y.numpy().tolist(),
        "dy_dx": dx.numpy().tolist(), "dy_dtable": tf.convert_to_tensor(dtable).numpy().tolist(),
        "dy_dw": dw.numpy().tolist()}


def tf1_saved_model():
    """A TF1 SavedModel (simple_save): no object graph; its main graph runs in a Session."""
    path = os.path.join(HERE, "tf1_saved_model")
    shutil.rmtree(path, ignore_errors=True)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
        w = tf.compat.v1.get_variable("dense/kernel", initializer=tf.constant(
            [[0.5, -1.0], [2.0, 0.25]]))
        b = tf.compat.v1.get_variable("dense/bias", initializer=tf.constant([0.1, -0.3]))
        y = tf.nn.softmax(tf.tanh(tf.matmul(x, w) + b), name="y")
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            tf.compat.v1.saved_model.simple_save(sess, path, inputs={"x": x},
                                                 outputs={"y": y})
            feed = [[1.0, 2.0], [-0.5, 0.75]]
            EXPECTED["tf1_saved_model"] = {
                "x": feed, "y": sess.run(y, {x: feed}).tolist(),
                "dy0_dx": sess.run(tf.gradients(tf.reduce_sum(y[:, 0]), x)[0],
                                   {x: feed}).tolist()}


def keras_export():
    """A Keras 3 model exported for serving (model.export), weights set to fixed values."""
    import keras
    path = os.path.join(HERE, "keras_export")
    shutil.rmtree(path, ignore_errors=True)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                              keras.layers.Dense(3, activation="softmax")])
    model.set_weights([np.linspace(-1, 1, w.size, dtype=np.float32).reshape(w.shape)
                       for w in model.get_weights()])
    model.export(path)
    x = tf.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = model(x)
        first = tf.reduce_sum(y[:, 0])
    EXPECTED["keras_export"] = {"x": x.numpy().tolist(), "y": y.numpy().tolist(),
                                "dfirst_dx": tape.gradient(first, x).numpy().tolist()}


if __name__ == "__main__":
    module_checkpoints()
    adam_checkpoint()
    v1_optimizer_checkpoint()
    saver_checkpoint()
    frozen_cnn()
    saved_model()
    saved_model_mlp()
    keras_export()
    saved_model_control()
    tf1_saved_model()
    with open(os.path.join(HERE, "expected.json"), "w") as stream:
        json.dump(EXPECTED, stream, indent=1, sort_keys=True)
