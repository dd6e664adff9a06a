"""The README's Python examples run, and the demo trains in both modes."""
import doctest
import os
import re
import runpy
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python_blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def _python_blocks_at_lines(path):
    """Each block padded with blank lines, so that compiled with the file's path its
    line numbers are the file's (AutoGraph reads function source through them)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return ["\n" * text.count("\n", 0, m.start(1)) + m.group(1)
            for m in re.finditer(r"```python\n(.*?)```", text, flags=re.S)]


DOCS = ["README.md"] + [os.path.join("docs", name) for name in
                        sorted(os.listdir(os.path.join(ROOT, "docs")))
                        if name.endswith(".md")] if os.path.isdir(os.path.join(ROOT, "docs")) \
    else ["README.md"]


@pytest.mark.parametrize("doc", DOCS)
def test_python_examples_in_docs_run(doc):
    path = os.path.join(ROOT, doc)
    blocks = _python_blocks_at_lines(path)
    namespace = {}
    for i, block in enumerate(blocks):
        if block.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(block, namespace, f"{doc}[{i}]", doc, 0)
            runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
            runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # later blocks build on earlier ones
            assert runner.failures == 0, f"doctest block {i} of {doc} failed"
        else:
            exec(compile(block, path, "exec"), namespace)  # noqa: S102 - our own docs


def test_readme_has_python_examples():
    assert len(_python_blocks(os.path.join(ROOT, "README.md"))) >= 5


def test_demo_trains_in_both_modes(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "argv", ["breast_cancer.py", "--logdir", str(tmp_path)])
    runpy.run_path(os.path.join(ROOT, "examples", "breast_cancer.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "eager" in out and "graph" in out and "test accuracy" in out
    accuracy = [float(a) for a in re.findall(r"test accuracy ([0-9.]+)", out)]
    assert len(accuracy) == 2 and min(accuracy) > 0.9
    assert out.count("resumed losses == uninterrupted, bit for bit") == 2
