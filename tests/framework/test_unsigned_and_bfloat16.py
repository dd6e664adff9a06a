"""dg.uint16/uint32/uint64 and dg.bfloat16 (from the optional ml_dtypes package),
with values recorded from TF 2.21."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import duograd as dg

import ml_dtypes  # noqa: E402 - in the test extra (duograd[bfloat16])


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)


def test_import_duograd_does_not_import_ml_dtypes():
    done = _run("import duograd, sys; print('ml_dtypes' in sys.modules)")
    assert done.stdout.strip() == "False", done.stderr


def test_bfloat16_without_ml_dtypes_names_the_extra():
    done = _run("import sys; sys.modules['ml_dtypes'] = None\n"
                "import duograd as dg\n"
                "try:\n    dg.bfloat16\nexcept ImportError as e:\n    print(e)")
    assert "duograd[bfloat16]" in done.stdout and "ml_dtypes" in done.stdout, done.stderr


def test_unsigned_dtypes():
    assert [d.name for d in (dg.uint16, dg.uint32, dg.uint64)] == ["uint16", "uint32", "uint64"]
    assert dg.as_dtype("uint32") is dg.uint32 and dg.as_dtype(np.uint64) is dg.uint64
    assert dg.as_dtype(17) is dg.uint16 and dg.as_dtype(22) is dg.uint32 \
        and dg.as_dtype(23) is dg.uint64
    assert dg.uint64.is_unsigned and dg.uint32.is_integer and not dg.uint16.is_floating
    assert (dg.uint16.min, dg.uint16.max) == (0, 65535)
    assert dg.uint64.max == 2**64 - 1
    # recorded from TF 2.21
    add = dg.constant([1, 2], dg.uint32) + dg.constant([3, 4], dg.uint32)
    assert add.dtype == dg.uint32 and add.numpy().tolist() == [4, 6]
    assert (dg.constant([1], dg.uint16) - dg.constant([3], dg.uint16)).numpy().tolist() == [65534]
    assert dg.reduce_sum(dg.constant([1, 2], dg.uint32)).numpy() == 3
    assert dg.cast(dg.constant([-1, 2]), dg.uint32).numpy().tolist() == [4294967295, 2]
    assert (dg.constant([7], dg.uint32) // dg.constant([2], dg.uint32)).numpy().tolist() == [3]
    assert dg.constant(2**64 - 1, dg.uint64).numpy() == 2**64 - 1
    assert dg.constant(-1, dg.uint16).numpy() == 65535
    u = dg.constant([1.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(u)
        y = dg.cast(dg.cast(u, dg.uint32), dg.float32)
    assert tape.gradient(y, u) is None   # integers carry no gradient (TF 2.21: None)


def test_bfloat16_dtype():
    b = dg.bfloat16
    assert b.name == "bfloat16" and b.is_floating and b.size == 2 and b.is_differentiable
    assert dg.as_dtype("bfloat16") is b and dg.as_dtype(14) is b
    assert dg.as_dtype(np.dtype(ml_dtypes.bfloat16)) is b
    assert float(b.max) == pytest.approx(3.38953e38, rel=1e-5)
    assert dg.compat.v1.bfloat16 is b


X = [1.0, 2.5, 3.140625]


def _bf(values):
    return np.asarray(values, dtype=ml_dtypes.bfloat16)


# (name, function of x, TF 2.21's bfloat16 result)
CASES = [
    ("add", lambda x: x + x, [2.0, 5.0, 6.28125]),
    ("mul", lambda x: x * 3.3, [3.29688, 8.25, 10.375]),
    ("matmul", lambda x: dg.matmul(dg.reshape(x, [1, 3]), dg.reshape(x, [3, 1])), [[17.125]]),
    ("reduce_sum", dg.reduce_sum, 6.625),
    ("reduce_mean", dg.reduce_mean, 2.21875),
    ("exp", dg.exp, [2.71875, 12.1875, 23.125]),
    ("sqrt", dg.sqrt, [1.0, 1.57812, 1.77344]),
    ("softmax", dg.nn.softmax, [0.0712891, 0.320312, 0.609375]),
    ("relu", lambda x: dg.nn.relu(x - 2), [0.0, 0.5, 1.14062]),
    ("sigmoid", dg.sigmoid, [0.730469, 0.925781, 0.957031]),
    ("tanh", dg.tanh, [0.761719, 0.988281, 0.996094]),
]


@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_bfloat16_kernels_round_float32_results(name, fn, expected):
    x = dg.constant(X, dtype=dg.bfloat16)
    out = fn(x)
    assert out.dtype == dg.bfloat16 and out.numpy().dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.numpy(), _bf(expected))
    with dg.Graph().as_default():
        y = fn(dg.constant(X, dtype=dg.bfloat16))
        assert y.dtype == dg.bfloat16
        with dg.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y), _bf(expected))


def test_bfloat16_conversions_gradients_and_errors():
    x = dg.constant(X, dtype=dg.bfloat16)
    np.testing.assert_array_equal(dg.cast(dg.constant([1.1, 2.2]), dg.bfloat16).numpy(),
                                  _bf([1.10156, 2.20312]))
    back = dg.cast(x, dg.float32)
    assert back.dtype == dg.float32 and back.numpy().tolist() == [1.0, 2.5, 3.140625]
    assert dg.zeros([2], dg.bfloat16).dtype == dg.bfloat16
    assert dg.argmax(x).numpy() == 2
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(x * x)
    grad = tape.gradient(y, x)
    assert grad.dtype == dg.bfloat16
    np.testing.assert_array_equal(grad.numpy(), _bf([2.0, 5.0, 6.28125]))
    v = dg.Variable([1.0, 2.0], dtype=dg.bfloat16)
    np.testing.assert_array_equal((v * 2).numpy(), _bf([2.0, 4.0]))
    with pytest.raises(dg.errors.InvalidArgumentError, match="bfloat16"):
        x + dg.constant(1.0)   # TF 2.21: no implicit promotion
