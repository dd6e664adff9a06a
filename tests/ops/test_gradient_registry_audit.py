"""docs/gradients_table.md (TensorFlow's gradient registry against ours) agrees with the
registry: every op type we register has one row, and each row says what the registry does."""
from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
from repo_paths import REPO_ROOT

TABLE = pathlib.Path(REPO_ROOT) / "docs" / "gradients_table.md"
DECLARED = ("same", "differs", "ours only")
ABSENT = ("not an op type here", "missing", "out of scope")


def _rows():
    rows = {}
    for line in TABLE.read_text().splitlines():
        if not line.startswith("| ") or line.startswith("| op type") or line.startswith("| ---"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 5, line
        assert cells[0] not in rows, f"{cells[0]} has two rows"
        rows[cells[0]] = cells
    return rows


ROWS = _rows()


def _library_registered():
    """{op type: differentiable} as duograd registers them at import, read in a fresh
    interpreter so that gradients other tests register (override names) do not count."""
    code = ("import json, duograd\n"
            "from duograd.framework.registry import gradient_functions as g\n"
            "print(json.dumps({n: f is not None for n, f in g.items()}))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


REGISTERED = _library_registered()


def test_every_registered_op_type_has_a_row():
    missing = sorted(set(REGISTERED) - set(ROWS))
    assert not missing, f"op types registered but not in docs/gradients_table.md: {missing}"


def test_the_differentiable_column_is_the_registry():
    for name, (_, tf_file, tf_grad, differentiable, ours) in ROWS.items():
        if name in REGISTERED:
            expected = "yes" if REGISTERED[name] else "no"
            assert ours.startswith(DECLARED), (name, ours)
        else:
            expected = "-"
            assert ours.startswith(ABSENT), (name, ours)
        assert differentiable == expected, (name, differentiable, expected)
        assert (tf_file == "(none)") == ours.startswith("ours only"), name


def test_same_means_the_same_differentiability_as_tensorflow():
    for name, (_, _, tf_grad, differentiable, ours) in ROWS.items():
        if ours.startswith("same"):
            tf_none = tf_grad.startswith("not differentiable")
            assert tf_none == (differentiable == "no"), (name, tf_grad, differentiable)


def test_the_summary_counts_are_the_rows():
    head = TABLE.read_text().split("| op type")[0]
    tf_rows = [r for r in ROWS.values() if r[1] != "(none)"]
    counts = {
        "same": sum(1 for r in tf_rows if r[4].startswith("same")),
        "differs": sum(1 for r in ROWS.values() if r[4].startswith("differs")),
        "not an op type here": sum(1 for r in ROWS.values()
                                   if r[4].startswith("not an op type here")),
        "missing": sum(1 for r in ROWS.values() if r[4] == "missing"),
        "out of scope": sum(1 for r in ROWS.values() if r[4].startswith("out of scope")),
        "ours only": sum(1 for r in ROWS.values() if r[4].startswith("ours only")),
    }
    for label, count in counts.items():
        assert re.search(rf"\*\*{label}\*\*:[^\n]*(\n[^\n-]*)*?\({count}( op types)?\)", head), \
            (label, count)
    assert f"{len(tf_rows)} op types" in head
