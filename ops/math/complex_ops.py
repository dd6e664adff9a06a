"""Complex numbers: Real, Imag, Conj, Complex. Gradients: grad_registry/complex_grad.py.

The gradient convention is TensorFlow's: for a real loss L of a complex z the
gradient is dL/dx + i dL/dy (the conjugate Wirtinger derivative times 2), so
d|z|^2/dz at 1+2j is 2+4j.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...framework import dtypes
from ...framework.op_def import declare_op
from ...framework.tensor_shape import broadcast_shapes
from ..arg_errors import check_op_name
from ..array.array_ops import zeros_like
from ..constant_op import convert_to_tensor
from ..op_helpers import apply_unary
from ..dispatch import apply_op
from ..shape_rules import check_same_dtype, same_as_input

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _to_real_infer(inputs, attrs):
    x = inputs[0]
    return [(x.dtype.real_dtype, x.shape)]


def _complex_infer(inputs, attrs):
    dtype = check_same_dtype(inputs)
    if dtype not in _COMPLEX_OF:
        raise TypeError(f"complex() takes float32 or float64 parts, got {dtype.name}")
    return [(_COMPLEX_OF[dtype], broadcast_shapes(inputs[0].shape, inputs[1].shape))]


def _complex_kernel(real, imag):
    out_type = np.complex64 if real.dtype == np.float32 else np.complex128
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), out_type)
    out.real = real
    out.imag = imag
    return out


REAL = declare_op("Real", lambda x: x.real.copy(), _to_real_infer,
                  input_kinds="c", grad_inputs=())
IMAG = declare_op("Imag", lambda x: x.imag.copy(), _to_real_infer,
                  input_kinds="c", grad_inputs=())
CONJ = declare_op("Conj", np.conj, same_as_input, input_kinds="c", grad_inputs=())
COMPLEX = declare_op("Complex", _complex_kernel, _complex_infer, input_kinds="f", grad_inputs=())


def _numeric(value: Any, what: str) -> Any:
    """`value` as a numeric tensor; a string or bool is a TypeError, as in TF."""
    if isinstance(value, str):
        raise TypeError(f"{what}: expected a numeric tensor, got {value!r}")
    x = convert_to_tensor(value)
    if x.dtype.is_bool:
        raise TypeError(f"{what}: expected a numeric tensor, got a bool tensor")
    return x


def real(input: Any, name: Optional[str] = None):  # noqa: A002 (TF's name)
    """The real part of a complex tensor; a real tensor is returned as it is (as in TF)."""
    x = _numeric(input, "real")
    if not x.dtype.is_complex:
        check_op_name(name)
        return x
    return apply_unary(REAL, x, name)


def imag(input: Any, name: Optional[str] = None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor (as in TF)."""
    x = _numeric(input, "imag")
    if not x.dtype.is_complex:
        return zeros_like(x, name=name)
    return apply_unary(IMAG, x, name)


def conj(x: Any, name: Optional[str] = None):
    """The complex conjugate; real and integer tensors are returned unchanged (as in TF)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        if not (x.dtype.is_numeric or x.dtype.is_bool):
            raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype.name}")
        return x
    return apply_unary(CONJ, x, name)


def conj_if_complex(x: Any) -> Any:
    """conj(x) for complex tensors, x itself otherwise (gradient helper)."""
    return apply_unary(CONJ, x) if x.dtype.kind == "c" else x


def complex(real: Any, imag: Any, name: Optional[str] = None):  # noqa: A001 (TF's name)
    """real + 1j * imag: float32 parts give complex64, float64 parts complex128."""
    # TF converts the parts independently and requires one dtype (a TypeError).
    real, imag = convert_to_tensor(real), convert_to_tensor(imag)
    if real.dtype != imag.dtype or real.dtype not in _COMPLEX_OF:
        raise TypeError(f"complex: the real and imaginary parts must have the same dtype, got "
                        f"{real.dtype.name} and {imag.dtype.name}")
    return apply_op(COMPLEX, (real, imag), name=name)


__all__ = ["real", "imag", "conj", "complex"]
