"""Writes tests/formats/data/npz/: a checkpoint in duograd's former npz+JSON format.

Made with duograd at commit 067f1f6 (before checkpoints moved to TF's format):

    PYTHONPATH=<parent of the checkout> python make_npz_fixture.py

A Checkpoint of a model (two variables) and a name-based Saver checkpoint;
tests/formats/test_npz_compat.py checks that they still restore.
"""
import os

import numpy as np

import duograd as dg

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npz")


class Model(dg.Module):
    def __init__(self):
        super().__init__()
        self.w = dg.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 3, name="w")
        self.step = dg.Variable(np.int64(41), name="step")


if __name__ == "__main__":
    dg.train.Checkpoint(model=Model()).save(os.path.join(HERE, "ckpt"))
    saver = dg.compat.v1.train.Saver([dg.Variable([1.5, -2.0], name="v")])
    saver.save(None, os.path.join(HERE, "saver"), global_step=3, write_state=False)
