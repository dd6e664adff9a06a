"""dg.train.Checkpoint, CheckpointManager and latest_checkpoint: values restored
exactly, TF's numbering, status assertions and exception types (recorded from TF
2.21), deferred restoration, bit-for-bit resumed training, atomic writes."""
import json
import os

import numpy as np
import pytest

import duograd as dg
from duograd.formats import bundle
from duograd.training import checkpoint_format
from checkpoint_helpers import LazyLinear, Momentum, train_steps


def test_save_numbers_files_and_restores_exact_values(tmp_path):
    values = {"f32": np.float32([1.5, -2.25, np.pi]), "f64": np.float64([[np.e, 1e-300]]),
              "i64": np.int64(2**40 + 3), "flag": np.bool_([True, False]),
              "z": np.complex128([1 + 2j])}
    variables = {k: dg.Variable(v) for k, v in values.items()}
    ckpt = dg.train.Checkpoint(**variables)
    first = ckpt.save(str(tmp_path / "ck"))
    second = ckpt.save(str(tmp_path / "ck"))
    assert (os.path.basename(first), os.path.basename(second)) == ("ck-1", "ck-2")
    assert dg.train.latest_checkpoint(str(tmp_path)) == second
    for v in variables.values():
        v.assign(np.zeros_like(v.numpy()))
    ckpt.restore(first).assert_consumed()
    for key, value in values.items():
        restored = variables[key].numpy()
        assert restored.dtype == value.dtype and np.array_equal(restored, value), key
    assert int(ckpt.save_counter.numpy()) == 1  # the counter is restored too
    assert os.path.basename(ckpt.save(str(tmp_path / "ck"))) == "ck-2"


def test_keys_follow_tf_and_write_leaves_the_state_file_alone(tmp_path):
    ckpt = dg.train.Checkpoint(v=dg.Variable([1.0, 2.0]), layers=[dg.Variable(3)])
    saved = ckpt.save(str(tmp_path / "ck"))
    written = ckpt.write(str(tmp_path / "w"))
    assert os.path.basename(written) == "w"
    assert dg.train.latest_checkpoint(str(tmp_path)) == saved
    # Keys as TF 2.21 names them (tf.train.list_variables on the same program).
    assert dg.train.list_variables(saved) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []),
        ("layers/0/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("v/.ATTRIBUTES/VARIABLE_VALUE", [2])]
    np.testing.assert_array_equal(dg.train.load_variable(str(tmp_path),
                                                         "v/.ATTRIBUTES/VARIABLE_VALUE"), [1, 2])


def test_mismatched_shape_or_dtype_is_a_clear_error_and_changes_nothing(tmp_path):
    path = dg.train.Checkpoint(v=dg.Variable([1.0, 2.0]), u=dg.Variable(5.0)).save(
        str(tmp_path / "ck"))
    target = dg.Variable([7.0, 8.0, 9.0], name="target")
    untouched = dg.Variable(0.0)
    # TF 2.21: ValueError "Received incompatible tensor with shape (2,) when attempting
    # to restore variable with shape (3,) and name Variable:0."
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3,\).*target:0"):
        dg.train.Checkpoint(v=target, u=untouched).restore(path)
    np.testing.assert_array_equal(target.numpy(), [7, 8, 9])
    assert untouched.numpy() == 0.0
    # TF 2.21: InvalidArgumentError "expected dtype int32 does not equal original dtype float"
    wrong = dg.Variable([1, 2], name="ints")
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match="ints:0.*expected dtype int32 does not equal original dtype float32"):
        dg.train.Checkpoint(v=wrong).restore(path)
    with pytest.raises(dg.errors.NotFoundError):  # TF 2.21: NotFoundError
        dg.train.Checkpoint(v=target).restore(str(tmp_path / "missing"))


def test_status_assertions_as_tf(tmp_path):
    path = dg.train.Checkpoint(v=dg.Variable([1.0, 2.0])).save(str(tmp_path / "ck"))
    dg.train.Checkpoint(v=dg.Variable([0.0, 0.0])).restore(path).assert_consumed()
    extra = dg.train.Checkpoint(v=dg.Variable([0.0, 0.0]), other=dg.Variable(1.0)).restore(path)
    for check in (extra.assert_consumed, extra.assert_existing_objects_matched):
        with pytest.raises(AssertionError, match="1 Python objects that were not bound"):
            check()
    partial = dg.train.Checkpoint().restore(path)
    partial.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint.*\(root\)\.v"):
        partial.assert_consumed()
    with pytest.raises(AssertionError, match="Nothing except the root"):
        partial.assert_nontrivial_match()
    assert partial.expect_partial() is partial
    nothing = dg.train.Checkpoint(v=dg.Variable(1.0)).restore(None)
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        nothing.assert_consumed()


def test_shared_variable_is_saved_once_and_restored_everywhere(tmp_path):
    shared = dg.Variable([3.0])
    ckpt = dg.train.Checkpoint(a=shared, b={"same": shared})
    path = ckpt.save(str(tmp_path / "ck"))
    assert [k for k, _ in dg.train.list_variables(path) if "save_counter" not in k] == \
        ["_CHECKPOINTABLE_OBJECT_GRAPH", "a/.ATTRIBUTES/VARIABLE_VALUE"]
    shared.assign([0.0])
    ckpt.restore(path).assert_consumed()
    assert shared.numpy()[0] == 3.0


def test_variables_built_after_restore_get_their_values(tmp_path):
    model = LazyLinear()
    optimizer = Momentum()
    train_steps(model, optimizer, 2)
    path = dg.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ck"))
    fresh = LazyLinear()
    status = dg.train.Checkpoint(model=fresh, optimizer=Momentum()).restore(path)
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()  # w and b do not exist yet
    fresh(np.zeros((1, 3), np.float32))  # builds w and b: restored on creation
    np.testing.assert_array_equal(fresh.w.numpy(), model.w.numpy())
    np.testing.assert_array_equal(fresh.b.numpy(), model.b.numpy())


@pytest.mark.parametrize("build_first", [False, True], ids=["slots-deferred", "slots-exist"])
def test_resumed_training_follows_the_uninterrupted_trajectory_bit_for_bit(tmp_path,
                                                                            build_first):
    model, optimizer = LazyLinear(), Momentum()
    train_steps(model, optimizer, 3)
    path = dg.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ck"))
    uninterrupted = train_steps(model, optimizer, 4)

    resumed_model, resumed_optimizer = LazyLinear(), Momentum()
    if build_first:  # variables and slots exist (with other values) before the restore
        train_steps(resumed_model, resumed_optimizer, 1)
    status = dg.train.Checkpoint(model=resumed_model, optimizer=resumed_optimizer).restore(path)
    resumed = train_steps(resumed_model, resumed_optimizer, 4)
    status.assert_consumed()
    assert np.array_equal(np.array(resumed), np.array(uninterrupted))
    assert np.array_equal(resumed_model.w.numpy(), model.w.numpy())
    assert int(resumed_optimizer.iterations.numpy()) == 7
    assert all(np.array_equal(a[2].numpy(), b[2].numpy()) for a, b in
               zip(resumed_optimizer.slot_variables(), optimizer.slot_variables()))
    slot_keys = [k for k, _ in dg.train.list_variables(path) if "OPTIMIZER_SLOT" in k]
    assert slot_keys == ["model/b/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/VARIABLE_VALUE",
                         "model/w/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/VARIABLE_VALUE"]


def _fail_in(monkeypatch, module_attr, after_calls=0):
    """Makes `module_attr` (a writer method called by formats.bundle) raise mid-write."""
    owner, name = module_attr
    original = getattr(owner, name)
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) > after_calls:
            stream = args[0]._stream  # the file being written, left partial
            stream.write(b"partial")
            raise OSError("disk full (simulated)")
        return original(*args, **kwargs)
    monkeypatch.setattr(owner, name, failing)


@pytest.mark.parametrize("fail", ["data", "index"])
def test_a_crash_mid_save_leaves_the_previous_checkpoint_latest(tmp_path, monkeypatch, fail):
    variable = dg.Variable([1.0, 2.0])
    ckpt = dg.train.Checkpoint(v=variable)
    manager = dg.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    good = manager.save()
    variable.assign([5.0, 6.0])
    target = (bundle.BundleWriter, "add") if fail == "data" else (bundle.TableWriter, "finish")
    _fail_in(monkeypatch, target)
    with pytest.raises(OSError, match="simulated"):
        manager.save()
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["checkpoint", "ckpt-1.index", "ckpt-1.data-00000-of-00001"] +
        (["ckpt-2.data-00000-of-00001"] if fail == "index" else []))  # no temporary file is left
    assert dg.train.latest_checkpoint(str(tmp_path)) == good
    assert dg.train.CheckpointManager(ckpt, str(tmp_path), 2).latest_checkpoint == good
    dg.train.Checkpoint(v=variable).restore(dg.train.latest_checkpoint(str(tmp_path)))
    np.testing.assert_array_equal(variable.numpy(), [1.0, 2.0])


def test_an_index_paired_with_another_saves_data_is_detected(tmp_path):
    variable = dg.Variable([1.0])
    ckpt = dg.train.Checkpoint(v=variable)
    a = ckpt.write(str(tmp_path / "a"))
    variable.assign([2.0])
    b = ckpt.write(str(tmp_path / "b"))
    os.replace(b + checkpoint_format.DATA_SUFFIX, a + checkpoint_format.DATA_SUFFIX)
    with pytest.raises(dg.errors.DataLossError, match="checksum mismatch for key v/"):
        ckpt.restore(a)
    assert variable.numpy()[0] == 2.0


def test_manager_keeps_max_to_keep_and_recovers_its_state(tmp_path):
    variable = dg.Variable(0.0)
    ckpt = dg.train.Checkpoint(v=variable)
    manager = dg.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = []
    for step in range(4):
        variable.assign(float(step))
        paths.append(manager.save())
    assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"]
    assert manager.checkpoints == paths[2:] and manager.latest_checkpoint == paths[3]
    assert not os.path.exists(paths[0] + ".index") and os.path.exists(paths[2] + ".index")
    numbered = manager.save(checkpoint_number=100)
    assert os.path.basename(numbered) == "ckpt-100"
    state = open(tmp_path / "checkpoint").read().splitlines()  # TF's text format
    assert state[:3] == ['model_checkpoint_path: "ckpt-100"', 'all_model_checkpoint_paths: "ckpt-4"',
                         'all_model_checkpoint_paths: "ckpt-100"']
    again = dg.train.CheckpointManager(dg.train.Checkpoint(v=variable), str(tmp_path), 2)
    assert again.checkpoints == [paths[3], numbered]
    variable.assign(-1.0)
    assert again.restore_or_initialize() == numbered and variable.numpy() == 3.0
    with pytest.raises(ValueError, match="positive integer or `None`"):
        dg.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)


def test_restore_or_initialize_calls_init_fn_without_a_checkpoint(tmp_path):
    calls = []
    manager = dg.train.CheckpointManager(dg.train.Checkpoint(v=dg.Variable(1.0)),
                                         str(tmp_path / "new"), 3, init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]
    assert dg.train.latest_checkpoint(str(tmp_path / "new")) is None


def test_checkpoint_interval_skips_saves_until_enough_steps(tmp_path):
    step = dg.Variable(np.int64(0))
    manager = dg.train.CheckpointManager(dg.train.Checkpoint(step=step), str(tmp_path), 5,
                                         step_counter=step, checkpoint_interval=3)
    saved = []
    for _ in range(7):
        saved.append(manager.save() is not None)
        step.assign_add(1)
    assert saved == [True, False, False, True, False, False, True]


def test_graph_mode_checkpoint_reads_and_writes_session_values(tmp_path):
    g = dg.Graph()
    with g.as_default():
        w = dg.Variable(np.float64([[1.0, 2.0]]), name="w")
        update = w.assign_add(np.float64([[0.5, 0.5]]))
        ckpt = dg.train.Checkpoint(w=w)
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            sess.run(update)
            path = ckpt.save(str(tmp_path / "ck"))
            sess.run(update)
            ckpt.restore(path).assert_consumed()  # written into the default session
            np.testing.assert_array_equal(sess.run(w), [[1.5, 2.5]])
    g2 = dg.Graph()
    with g2.as_default():
        w2 = dg.Variable(np.float64([[0.0, 0.0]]), name="w")
        status = dg.train.Checkpoint(w=w2).restore(path)  # no session yet: deferred to run
        sess = dg.Session(graph=g2)
        status.initialize_or_restore(sess)
        np.testing.assert_array_equal(sess.run(w2), [[1.5, 2.5]])
    eager = dg.Variable(np.float64([[0.0, 0.0]]))
    dg.train.Checkpoint(w=eager).restore(path).assert_consumed()  # graph -> eager
    np.testing.assert_array_equal(eager.numpy(), [[1.5, 2.5]])
