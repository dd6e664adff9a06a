"""The program corpus runner (conformance/program_corpus.py): the import line is the
only change, and printed output is compared text-exactly, numbers to what was printed."""
import importlib.util
import os

import pytest
from repo_paths import REPO_ROOT

ROOT = REPO_ROOT
_spec = importlib.util.spec_from_file_location(
    "program_corpus", os.path.join(ROOT, "conformance", "program_corpus.py"))
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)


def test_at_least_fifteen_programs_each_starting_with_a_tensorflow_import():
    names = corpus.program_names()
    assert len(names) >= 15
    for name in names:
        with open(os.path.join(corpus.PROGRAMS, name + ".py"), encoding="utf-8") as stream:
            source = stream.read()
        translated = corpus.translate(source)
        assert translated.split("\n", 1)[1] == source.split("\n", 1)[1]   # only line 1 changes
        assert translated.split("\n", 1)[0] in ("import duograd as tf",
                                                "import duograd.compat.v1 as tf")


def test_translate_refuses_other_first_lines():
    with pytest.raises(ValueError, match="must start with"):
        corpus.translate("import numpy as np\nimport tensorflow as tf\n")


def test_line_comparison():
    same = corpus.line_difference
    assert same("loss 0.12345", "loss 0.12346") is None            # last printed digit
    assert same("loss 0.1234", "loss 0.1240") is not None
    assert same("tf.Tensor([0.3893209 ], shape=(1,))", "tf.Tensor([0.38932094], shape=(1,))") is None
    assert same("a 1.0e-05", "a 1.1e-05") is None and same("a 1.0e-05", "a 1.3e-05") is not None
    assert same("step 10", "step 11") is not None
    assert same("Epoch: 0050 cost=", "Epoch: 0050 loss=") is not None
    assert same("nan", "nan") is None and same("nan", "1.0") is not None
    assert corpus.output_difference("a\nb\n", "a\n") is not None


def test_a_corpus_program_runs_under_duograd():
    with open(os.path.join(corpus.PROGRAMS, "tf1_linear_regression.py"), encoding="utf-8") as f:
        source = corpus.translate(f.read())
    status, out, err = corpus.run_program(source, "dg")
    assert status == 0, err
    assert out.splitlines()[-1].startswith("Absolute mean square loss difference:")
