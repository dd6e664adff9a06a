"""Relative, `./` and absolute checkpoint paths give back what TensorFlow 2.21 gives
(the paths below were printed by TF for the same calls in an empty directory)."""
import os

import pytest

import duograd as dg

v1 = dg.compat.v1


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _saver_session():
    graph = dg.Graph()
    with graph.as_default():
        dg.Variable(1.0)
        saver = v1.train.Saver()
        sess = v1.Session(graph=graph)
        sess.run(v1.global_variables_initializer())
    return saver, sess


def test_saver_relative_dot_and_absolute_paths(in_tmp):
    saver, sess = _saver_session()
    expected = {  # save path -> (TF's save result, TF's latest_checkpoint(dirname))
        "logs/run/model": ("logs/run/model-5", "logs/run/model-5"),
        "./logs/dot/model": ("./logs/dot/model-5", "./logs/dot/model-5"),
        str(in_tmp / "logs/abs/model"): (str(in_tmp / "logs/abs/model-5"),
                                         str(in_tmp / "logs/abs/model-5")),
    }
    for path, (saved, latest) in expected.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        assert saver.save(sess, path, global_step=5) == saved
        assert v1.train.latest_checkpoint(os.path.dirname(path)) == latest
    assert v1.train.latest_checkpoint("./logs/run") == "./logs/run/model-5"
    state = v1.train.get_checkpoint_state("./logs/dot")
    assert state.model_checkpoint_path == "./logs/dot/model-5"
    assert state.all_model_checkpoint_paths == ["./logs/dot/../run/model-5", "./logs/dot/model-5"]
    saver.restore(sess, v1.train.latest_checkpoint("logs/run"))   # the resume of a TF1 program


def test_saver_relative_paths_flag(in_tmp):
    _, sess = _saver_session()
    with sess.graph.as_default():
        saver = v1.train.Saver(save_relative_paths=True)
    assert saver.save(sess, "rel3/model", global_step=1) == "rel3/model-1"
    assert v1.train.latest_checkpoint("rel3") == "rel3/model-1"


def test_checkpoint_and_manager_relative_dot_and_absolute_paths(in_tmp):
    ckpt = dg.train.Checkpoint(v=dg.Variable(1.0))
    assert ckpt.save("ck/run/ckpt") == "ck/run/ckpt-1"
    assert dg.train.latest_checkpoint("ck/run") == "ck/run/ckpt-1"
    assert ckpt.save("./ck/dot/ckpt") == "./ck/dot/ckpt-2"
    assert dg.train.latest_checkpoint("./ck/dot") == "./ck/dot/ckpt-2"
    absolute = str(in_tmp / "ck/abs/ckpt")
    assert ckpt.save(absolute) == absolute + "-3"
    assert dg.train.latest_checkpoint(os.path.dirname(absolute)) == absolute + "-3"

    manager = dg.train.CheckpointManager(ckpt, "mg/run", max_to_keep=2)
    assert (manager.save(), manager.save()) == ("mg/run/ckpt-4", "mg/run/ckpt-5")
    assert manager.checkpoints == ["mg/run/ckpt-4", "mg/run/ckpt-5"]
    assert dg.train.latest_checkpoint("mg/run") == "mg/run/ckpt-5"
    reopened = dg.train.CheckpointManager(ckpt, "mg/run", max_to_keep=2)
    assert reopened.latest_checkpoint == "mg/run/ckpt-5"
    assert reopened.checkpoints == ["mg/run/ckpt-4", "mg/run/ckpt-5"]
    dot = dg.train.CheckpointManager(ckpt, "./mg/dot", max_to_keep=2)
    assert dot.save() == "./mg/dot/ckpt-6"
    assert dg.train.latest_checkpoint("./mg/dot") == "./mg/dot/ckpt-6"
    assert dg.train.latest_checkpoint("mg/dot") == "mg/dot/ckpt-6"
    absolute_manager = dg.train.CheckpointManager(ckpt, str(in_tmp / "mg/abs"), max_to_keep=2)
    assert absolute_manager.save() == str(in_tmp / "mg/abs/ckpt-7")
    assert dg.train.latest_checkpoint("mg/abs") == "mg/abs/ckpt-7"
