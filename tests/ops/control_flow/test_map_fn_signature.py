"""map_fn checks what fn returns against fn_output_signature (or elems), as TF 2.21:
structure (ValueError), sequence types (TypeError), dtype (InvalidArgumentError from
the TensorArray write), and a TensorSpec's shape (ValueError)."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = [1.0, 2.0, 3.0]


def test_dtype_mismatch_is_invalid_argument():
    x = dg.constant(X)
    message = "TensorArray dtype is int32 but Op is trying to write dtype float32"
    with pytest.raises(dg.errors.InvalidArgumentError, match=message):
        dg.map_fn(lambda e: e * 2, x, fn_output_signature=dg.int32)
    with pytest.raises(dg.errors.InvalidArgumentError, match=message):
        dg.map_fn(lambda e: 1.5, x, fn_output_signature=dg.int32)   # a Python float: float32
    with pytest.raises(dg.errors.InvalidArgumentError, match="dtype is float32 but Op is "
                                                             "trying to write dtype int32"):
        dg.map_fn(lambda e: dg.cast(e, dg.int32), x)                 # no signature: elems' dtype

    @dg.function
    def in_function(x):
        return dg.map_fn(lambda e: e * 2, x, fn_output_signature=dg.int32)

    with pytest.raises(dg.errors.InvalidArgumentError):   # TF 2.21: when the function runs
        in_function(x)


def test_python_int_output_takes_the_signature_dtype():
    out = dg.map_fn(lambda e: 1, dg.constant(X), fn_output_signature=dg.float32)
    assert out.dtype == dg.float32 and out.numpy().tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("fn,signature", [
    (lambda e: (e, e), dg.float32),
    (lambda e: e, (dg.float32, dg.float32)),
    (lambda e: {"a": e}, {"b": dg.float32}),
])
def test_structure_mismatch_is_value_error(fn, signature):
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        dg.map_fn(fn, dg.constant(X), fn_output_signature=signature)
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match="don't have the same nested structure"):
            dg.map_fn(fn, dg.constant(X), fn_output_signature=signature)


def test_sequence_type_mismatch_is_type_error():
    x = dg.constant(X)
    with pytest.raises(TypeError, match="same nested structure"):
        dg.map_fn(lambda e: [e[0], e[1]], (x, x))
    with pytest.raises(TypeError, match="same nested structure"):
        dg.map_fn(lambda e: (e, e), x, fn_output_signature=[dg.float32, dg.float32])
    same = dg.map_fn(lambda e: (e[0], e[1] * 2), (x, x))
    assert isinstance(same, tuple)
    np.testing.assert_allclose(same[1].numpy(), [2.0, 4.0, 6.0])


def test_tensor_spec_shape_is_checked():
    x = dg.constant(X)
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(2,\)\), "
                                         r"expected \(\(3,\)\)"):
        dg.map_fn(lambda e: dg.stack([e, e]), x, fn_output_signature=dg.TensorSpec([3], dg.float32))
    for spec in (dg.TensorSpec([2], dg.float32), dg.TensorSpec([None], dg.float32)):
        out = dg.map_fn(lambda e: dg.stack([e, e]), x, fn_output_signature=spec)
        np.testing.assert_allclose(out.numpy(), [[1, 1], [2, 2], [3, 3]])


def test_tensor_array_write_converts_preferring_its_dtype():
    ta = dg.TensorArray(dg.float32, size=1).write(0, 2)
    assert ta.stack().numpy().tolist() == [2.0]
    with pytest.raises(dg.errors.InvalidArgumentError):   # TF 2.21
        dg.TensorArray(dg.int32, size=1).write(0, 1.5)
