"""Malformed files raise TensorFlow's error classes naming the file, never a Python-internal
error, a crash or an unbounded allocation: TF-written fixtures are mutated (bit flips,
byte overwrites, truncations, insertions, deletions) with a fixed seed, and reading each
mutant either succeeds or raises DataLossError / InvalidArgumentError / NotFoundError /
UnimplementedError."""
import os
import shutil

import numpy as np
import pytest

import duograd as dg
from fixture_models import fixture

ALLOWED = (dg.errors.DataLossError, dg.errors.InvalidArgumentError, dg.errors.NotFoundError,
           dg.errors.UnimplementedError)


def mutants(data, count, seed):
    """`count` deterministic corruptions of `data`."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        buffer = bytearray(data)
        kind = rng.integers(5)
        position = int(rng.integers(len(buffer)))
        if kind == 0:
            buffer[position] ^= 1 << int(rng.integers(8))
        elif kind == 1:
            buffer[position] = int(rng.integers(256))
        elif kind == 2:
            del buffer[position:]
        elif kind == 3:
            buffer[position:position] = bytes(rng.integers(0, 256, int(rng.integers(1, 9)),
                                                           dtype=np.uint8))
        else:
            del buffer[position:position + int(rng.integers(1, 9))]
        yield bytes(buffer)


def _read_checkpoint(prefix):
    reader = dg.train.load_checkpoint(prefix)
    for key in reader.get_variable_to_shape_map():
        reader.get_tensor(key)
    return reader.object_graph


def _restore_module(prefix):
    from fixture_models import Outer
    dg.train.Checkpoint(model=Outer(fill=0)).read(prefix)


@pytest.mark.parametrize("suffix", [".index", ".data-00000-of-00001"])
@pytest.mark.parametrize("source, read", [("adam/ckpt", _read_checkpoint),
                                          ("module/written", _restore_module)])
def test_mutated_checkpoints_raise_tf_errors(tmp_path, suffix, source, read):
    for name in (".index", ".data-00000-of-00001"):
        shutil.copy(fixture(source) + name, tmp_path / ("ckpt" + name))
    prefix = str(tmp_path / "ckpt")
    original = open(fixture(source) + suffix, "rb").read()
    outcomes = {"ok": 0, "error": 0}
    for number, mutant in enumerate(mutants(original, 150, seed=len(source + suffix))):
        with open(prefix + suffix, "wb") as stream:
            stream.write(mutant)
        try:
            read(prefix)
            outcomes["ok"] += 1
        except ALLOWED as error:
            assert "ckpt" in str(error), (number, error)  # the message names the file
            outcomes["error"] += 1
        except ValueError as error:  # TF's class for a restore of another shape
            assert "incompatible tensor" in str(error), (number, error)
            outcomes["error"] += 1
    assert outcomes["error"] > 0


def _load_and_call(directory):
    loaded = dg.saved_model.load(directory)
    loaded(np.zeros((1, 2), np.float32))
    loaded.signatures["serving_default"](x=np.zeros((1, 2), np.float32))


@pytest.mark.parametrize("target", ["saved_model.pb", "variables/variables.index"])
def test_mutated_saved_models_raise_tf_errors(tmp_path, target):
    directory = tmp_path / "model"
    shutil.copytree(fixture("saved_model_mlp"), directory)
    original = open(os.path.join(fixture("saved_model_mlp"), target), "rb").read()
    errors = 0
    for number, mutant in enumerate(mutants(original, 120, seed=len(target))):
        with open(directory / target, "wb") as stream:
            stream.write(mutant)
        try:
            _load_and_call(str(directory))
        except ALLOWED as error:
            errors += 1
            assert str(directory) in str(error) or "SavedModel" in str(error) or \
                "node" in str(error), (number, error)
        except (TypeError, ValueError) as error:  # a signature the mutant changed
            errors += 1
            assert "argument" in str(error) or "concrete function" in str(error) or \
                "shape" in str(error), (number, error)
    assert errors > 0


def test_mutated_graph_defs_raise_tf_errors():
    original = open(fixture("saver", "frozen.pb"), "rb").read()
    errors = 0
    for number, mutant in enumerate(mutants(original, 150, seed=3)):
        graph = dg.Graph()
        with graph.as_default():
            try:
                dg.compat.v1.import_graph_def(mutant)
            except ALLOWED:
                errors += 1
            except ValueError as error:  # TF's class for inputs naming absent nodes
                errors += 1
                assert "import_graph_def" in str(error), (number, error)
    assert errors > 0
