"""Checkpoints of duograd's former npz+JSON format (data/npz, made by
data/make_npz_fixture.py) are still read, for a release; new ones are TF's format."""
import os
import shutil

import numpy as np
import pytest

import duograd as dg
from fixture_models import fixture


class Model(dg.Module):
    def __init__(self):
        super().__init__()
        self.w = dg.Variable(np.zeros((2, 3), np.float32), name="w")
        self.step = dg.Variable(np.int64(0), name="step")


def test_an_npz_checkpoint_restores_and_lists_its_keys(tmp_path):
    directory = tmp_path / "npz"
    shutil.copytree(fixture("npz"), directory)
    latest = dg.train.latest_checkpoint(str(directory))  # the JSON state file is read too
    assert latest == str(directory / "ckpt-1")
    model = Model()
    ckpt = dg.train.Checkpoint(model=model)
    ckpt.restore(latest).assert_consumed()
    assert np.array_equal(model.w.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) / 3)
    assert int(model.step.numpy()) == 41 and int(ckpt.save_counter.numpy()) == 1
    assert [k for k, _ in dg.train.list_variables(latest)] == [
        "model/step/.ATTRIBUTES/VARIABLE_VALUE", "model/w/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    # saving again writes TF's format beside it, numbered on from the restored counter
    path = ckpt.save(str(directory / "ckpt"))
    assert os.path.basename(path) == "ckpt-2"
    assert os.path.exists(path + ".data-00000-of-00001")
    assert open(directory / "checkpoint").read().startswith('model_checkpoint_path: "ckpt-2"')


def test_an_npz_saver_checkpoint_restores():
    variable = dg.Variable([0.0, 0.0], name="v")
    saver = dg.compat.v1.train.Saver([variable])
    saver.restore(None, fixture("npz", "saver-3"))
    assert np.array_equal(variable.numpy(), [1.5, -2.0])


def test_a_damaged_npz_checkpoint_is_data_loss(tmp_path):
    shutil.copytree(fixture("npz"), tmp_path / "npz")
    with open(tmp_path / "npz" / "ckpt-1.data.npz", "r+b") as stream:
        stream.truncate(100)
    with pytest.raises(dg.errors.DataLossError, match="ckpt-1"):
        dg.train.Checkpoint(model=Model()).restore(str(tmp_path / "npz" / "ckpt-1"))
