"""Checkpoints written by TensorFlow 2.21 (data/, made by data/make_fixtures.py) restore
into duograd bit for bit, and duograd writes the same bytes TF writes."""
import filecmp
import os
import shutil

import numpy as np
import pytest

import duograd as dg
from duograd.formats import bundle, crc32c
from duograd.formats import object_graph as graph_codec
from fixture_models import EXPECTED, Outer, expected_value, fixture

TF_PREFIXES = ["module/written", "module/saved-1", "adam/ckpt", "saver/model-2",
               "saved_model/variables/variables"]


@pytest.mark.parametrize("prefix", [p for p in TF_PREFIXES if p in EXPECTED])
def test_the_reader_gives_tf_keys_dtypes_shapes_and_values(prefix):
    reader = dg.train.load_checkpoint(fixture(prefix))
    expected = EXPECTED[prefix]
    assert reader.get_variable_to_shape_map() == {k: v["shape"] for k, v in expected.items()}
    assert {k: d.name for k, d in reader.get_variable_to_dtype_map().items()} == \
        {k: v["dtype"] for k, v in expected.items()}
    for key, entry in expected.items():
        value = reader.get_tensor(key)
        if entry["dtype"] == "string":
            assert value[()] == entry["value"].encode("latin-1")
        else:
            assert value.dtype == np.dtype(entry["dtype"])
            assert np.array_equal(value, expected_value(prefix, key)), key


@pytest.mark.parametrize("prefix", TF_PREFIXES)
def test_rewriting_a_tf_bundle_gives_the_same_bytes(tmp_path, prefix):
    reader = bundle.BundleReader(fixture(prefix))
    in_file_order = sorted(reader.entries, key=lambda key: reader.entries[key].offset)
    out = bundle.write_bundle(str(tmp_path / "copy"), [
        (key, reader.get_tensor(key), reader.dtype(key)) for key in in_file_order])
    for suffix in (".index", ".data-00000-of-00001"):
        assert filecmp.cmp(out + suffix, fixture(prefix) + suffix, shallow=False), suffix


@pytest.mark.parametrize("prefix", ["module/written", "adam/ckpt",
                                    "saved_model/variables/variables"])
def test_the_object_graph_decodes_and_encodes_to_tf_bytes(prefix):
    raw = bundle.BundleReader(fixture(prefix)).get_tensor(graph_codec.OBJECT_GRAPH_KEY)[()]
    nodes = graph_codec.decode(raw)
    assert graph_codec.encode(nodes) == raw
    assert nodes[0]["children"][0]["name"] in ("model", "inner")


def test_crc32c_vectors():
    assert crc32c.value(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert crc32c.value(b"") == 0
    assert crc32c.value(bytes(32)) == 0x8A9136AA  # RFC 3720 B.4 vectors
    assert crc32c.value(b"\xff" * 32) == 0x62A8AB43
    assert crc32c.value(bytes(range(32))) == 0x46DD794E
    for value in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert crc32c.unmask(crc32c.mask(value)) == value
    data = np.random.default_rng(0).integers(0, 256, 300_001, dtype=np.uint8).tobytes()
    serial = 0xFFFFFFFF  # the lane-parallel path equals the byte-by-byte definition
    for byte in data:
        serial = crc32c.TABLE[(serial ^ byte) & 0xFF] ^ (serial >> 8)
    assert crc32c.value(data) == serial ^ 0xFFFFFFFF
    assert crc32c.extend(crc32c.value(data[:77]), data[77:]) == serial ^ 0xFFFFFFFF


@pytest.mark.parametrize("prefix", ["module/written", "module/saved-1"])
def test_a_tf_module_checkpoint_restores_bit_for_bit(prefix):
    model = Outer(fill=9)
    ckpt = dg.train.Checkpoint(model=model)
    # `read` (for `write` files) creates no save_counter; `restore` does, as in TF
    status = ckpt.read(fixture(prefix)) if "written" in prefix else ckpt.restore(fixture(prefix))
    status.assert_consumed()
    for key, variable in [("model/inner/w", model.inner.w), ("model/inner/b", model.inner.b),
                          ("model/scale", model.scale), ("model/steps", model.steps),
                          ("model/layers/0", model.layers[0]),
                          ("model/layers/1", model.layers[1])]:
        expected = expected_value(prefix, key + "/.ATTRIBUTES/VARIABLE_VALUE")
        assert variable.numpy().dtype == expected.dtype
        assert np.array_equal(variable.numpy(), expected), key


def test_duograd_writes_the_bytes_tf_writes_for_the_same_module(tmp_path):
    written = dg.train.Checkpoint(model=Outer()).write(str(tmp_path / "written"))
    for suffix in (".index", ".data-00000-of-00001"):
        assert filecmp.cmp(written + suffix, fixture("module/written") + suffix,
                           shallow=False), suffix


def test_save_numbers_and_the_state_file_read_tf_directories(tmp_path):
    directory = tmp_path / "module"
    shutil.copytree(fixture("module"), directory)
    assert dg.train.latest_checkpoint(str(directory)) == str(directory / "saved-1")
    ckpt = dg.train.Checkpoint(model=Outer(fill=0))
    ckpt.restore(dg.train.latest_checkpoint(str(directory))).assert_consumed()
    assert int(ckpt.save_counter.numpy()) == 1
    assert os.path.basename(ckpt.save(str(directory / "saved"))) == "saved-2"
    state = dg.train.get_checkpoint_state(str(directory))
    assert state.model_checkpoint_path == str(directory / "saved-2")


def test_tf_errors_shape_mismatch_and_missing_file(tmp_path):
    model = Outer()
    model.inner.w = dg.Variable(np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(2, 3\)"):
        dg.train.Checkpoint(model=model).restore(fixture("module/written"))
    with pytest.raises(dg.errors.NotFoundError, match="nothing-here"):
        dg.train.Checkpoint(model=Outer()).restore(str(tmp_path / "nothing-here"))
    with pytest.raises(dg.errors.NotFoundError):
        dg.train.load_checkpoint(str(tmp_path / "nothing-here"))


ADAM_KEYS = {"model/w": "w", "model/b": "b", "optimizer/_iterations": "iterations",
             "optimizer/_learning_rate": "learning_rate", "optimizer/_variables/2": "m",
             "optimizer/_variables/3": "v"}


def _adam_expected(name):
    key = next(k for k, v in ADAM_KEYS.items() if v == name)
    return expected_value("adam/ckpt", key + "/.ATTRIBUTES/VARIABLE_VALUE")


@pytest.mark.parametrize("built", [False, True], ids=["slots-deferred", "slots-exist"])
def test_keras_adam_slots_and_iterations_restore_bit_for_bit(built):
    from fixture_models import Inner
    model, optimizer = Inner(fill=0), dg.keras.optimizers.Adam(learning_rate=0.5)
    if built:
        optimizer.build([model.w])
    status = dg.train.Checkpoint(model=model, optimizer=optimizer).read(fixture("adam/ckpt"))
    if not built:
        optimizer.build([model.w])  # the slots are created with the restored values
    status.assert_existing_objects_matched()
    assert np.array_equal(model.w.numpy(), _adam_expected("w"))
    assert int(optimizer.iterations.numpy()) == 2
    assert optimizer.learning_rate.numpy() == np.float32(0.1)
    assert np.array_equal(optimizer.get_slot(model.w, "momentum").numpy(), _adam_expected("m"))
    assert np.array_equal(optimizer.get_slot(model.w, "velocity").numpy(), _adam_expected("v"))


def test_duograd_keras_adam_writes_tf_keys_and_object_graph(tmp_path):
    from fixture_models import Inner
    model = Inner()
    optimizer = dg.keras.optimizers.Adam(learning_rate=0.1)
    for step in range(2):  # the program of make_fixtures.adam_checkpoint
        with dg.GradientTape() as tape:
            loss = dg.reduce_sum(dg.square(model.w)) * (step + 1) + dg.reduce_sum(
                dg.cast(model.b, dg.float32) ** 3)
        optimizer.apply_gradients(zip(tape.gradient(loss, [model.w]), [model.w]))
    path = dg.train.Checkpoint(model=model, optimizer=optimizer).write(str(tmp_path / "ckpt"))
    reader = dg.train.load_checkpoint(path)
    assert reader.get_variable_to_shape_map() == dg.train.load_checkpoint(
        fixture("adam/ckpt")).get_variable_to_shape_map()
    for key in ADAM_KEYS:
        key += "/.ATTRIBUTES/VARIABLE_VALUE"
        np.testing.assert_allclose(reader.get_tensor(key), expected_value("adam/ckpt", key),
                                   rtol=1e-6, atol=1e-7)
    ours = graph_codec.decode(reader.get_tensor(graph_codec.OBJECT_GRAPH_KEY)[()])
    tfs = graph_codec.decode(dg.train.load_checkpoint(fixture("adam/ckpt")).get_tensor(
        graph_codec.OBJECT_GRAPH_KEY)[()])
    assert [[(c["name"], c["node"]) for c in n["children"]] for n in ours] == \
        [[(c["name"], c["node"]) for c in n["children"]] for n in tfs]
    assert [n.get("key") for n in ours] == [n.get("key") for n in tfs]


def test_a_tf1_saver_checkpoint_restores_into_the_same_graph():
    prefix = fixture("saver/model-2")
    assert dg.train.latest_checkpoint(fixture("saver")) == prefix  # TF's text state file
    graph = dg.Graph()
    with graph.as_default():
        x = dg.compat.v1.placeholder(dg.float32, [None, 2], name="x")
        with dg.compat.v1.variable_scope("dense"):
            w = dg.compat.v1.get_variable("kernel", initializer=dg.constant([[0.0, 0.0],
                                                                             [0.0, 0.0]]))
            b = dg.compat.v1.get_variable("bias", initializer=dg.constant([0.0, 0.0]))
        y = dg.identity(dg.tanh(dg.matmul(x, w) + b), name="y")
        loss = dg.reduce_sum(dg.square(y), name="loss")
        step = dg.compat.v1.train.get_or_create_global_step()
        dg.compat.v1.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        saver = dg.compat.v1.train.Saver()
        with dg.compat.v1.Session() as sess:
            sess.run(dg.compat.v1.global_variables_initializer())
            saver.restore(sess, prefix)
            for variable in dg.compat.v1.global_variables():
                name = variable.name[:-2]
                assert np.array_equal(sess.run(variable), expected_value("saver/model-2", name)), \
                    name


def _v1_program():
    v = dg.Variable([1.0, 2.0], name="v")
    optimizer = dg.compat.v1.train.AdamOptimizer(0.1)
    return v, optimizer


def test_a_tf1_optimizer_object_checkpoint_restores_its_slots_bit_for_bit(tmp_path):
    v, optimizer = _v1_program()
    optimizer.minimize(lambda: dg.reduce_sum(v), var_list=[v])  # slots and powers exist
    status = dg.train.Checkpoint(v=v, optimizer=optimizer).read(fixture("v1opt/ckpt"))
    status.assert_consumed()
    assert np.array_equal(v.numpy(), expected_value("v1opt/ckpt",
                                                    "v/.ATTRIBUTES/VARIABLE_VALUE"))
    for slot in ("m", "v"):
        key = f"v/.OPTIMIZER_SLOT/optimizer/{slot}/.ATTRIBUTES/VARIABLE_VALUE"
        assert np.array_equal(optimizer.get_slot(v, slot).numpy(),
                              expected_value("v1opt/ckpt", key)), slot
    # every restored value (the beta powers too) is TF's: writing gives TF's very bytes
    written = dg.train.Checkpoint(v=v, optimizer=optimizer).write(str(tmp_path / "again"))
    assert filecmp.cmp(written + ".data-00000-of-00001",
                       fixture("v1opt/ckpt") + ".data-00000-of-00001", shallow=False)


def test_duograd_writes_tf_bytes_for_the_same_tf1_optimizer_program(tmp_path):
    v, optimizer = _v1_program()
    for _ in range(2):
        optimizer.minimize(lambda: dg.reduce_sum(v * v * v), var_list=[v])
    written = dg.train.Checkpoint(v=v, optimizer=optimizer).write(str(tmp_path / "ckpt"))
    for suffix in (".index", ".data-00000-of-00001"):
        assert filecmp.cmp(written + suffix, fixture("v1opt/ckpt") + suffix,
                           shallow=False), suffix


def test_partial_and_deferred_restores_of_a_tf_checkpoint():
    from fixture_models import Inner
    model = Inner(fill=0)
    status = dg.train.Checkpoint(model=model).read(fixture("adam/ckpt"))  # no optimizer
    status.expect_partial()
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()  # the optimizer's values were not used
    assert np.array_equal(model.w.numpy(), _adam_expected("w"))

    class Lazy(dg.Module):  # builds its variables on first call, as Keras layers do
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = dg.Variable(np.zeros((2, 3), np.float32), name="w")
                self.b = dg.Variable(np.zeros(3), name="b")
            return dg.matmul(x, self.w)

    lazy = Lazy()
    dg.train.Checkpoint(model=lazy).read(fixture("adam/ckpt")).expect_partial()
    lazy(np.ones((1, 2), np.float32))  # created now: restored on creation
    assert np.array_equal(lazy.w.numpy(), _adam_expected("w"))
    assert np.array_equal(lazy.b.numpy(), _adam_expected("b"))
