"""SciPy is an optional extra: `import duograd` does not import it, and an op whose kernel
needs it raises an ImportError naming the op and `duograd[scipy]` when it is absent."""
from __future__ import annotations

import subprocess
import sys

import pytest

import duograd as dg


def test_import_duograd_does_not_import_scipy():
    code = "import sys, duograd; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.strip()
    assert out == "False"


@pytest.mark.parametrize("call", [
    lambda: dg.math.erfinv(dg.constant([0.5])),
    lambda: dg.math.special.bessel_k0(dg.constant([0.5])),
    lambda: dg.math.igamma(dg.constant([0.5]), dg.constant([0.5])),
])
def test_a_scipy_kernel_without_scipy_names_the_extra(monkeypatch, call):
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # `import scipy.special` fails
    with pytest.raises(ImportError, match=r"duograd\[scipy\]"):
        call()
