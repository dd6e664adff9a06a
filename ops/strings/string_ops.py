"""dg.strings: the string ops TF programs use around training (join, format, length,
split, to_number, as_string, regex_full_match, upper/lower, reduce_join).

A string tensor holds bytes (an object array; str is encoded as UTF-8). Each op is
declared once and runs in both modes; none is differentiable (string_grad.py).
"""
from __future__ import annotations

import re
from typing import Any, Optional, Sequence

import numpy as np

from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, broadcast_shapes
from ..array import array_ops
from ..constant_op import constant, convert_to_tensor
from ..ragged.ragged_tensor import RaggedTensor
from ..dispatch import apply_op
from ..tensor_format import format_array
from .reduce_join_ops import REDUCE_JOIN, reduce_join

STRING = "O"


def _bytes_array(shape: Sequence[int], items: Sequence[bytes]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = list(items)
    return out.reshape(tuple(shape))


def _strings(value: Any, what: str) -> Tensor:
    tensor = convert_to_tensor(value, dtype_hint=dtypes.string)
    if tensor.dtype is not dtypes.string:
        raise InvalidArgumentError(None, None, f"cannot compute {what} as input #0(zero-based) "
                                   f"was expected to be a string tensor but is a "
                                   f"{tensor.dtype.name} tensor")
    return tensor


# -- join ----------------------------------------------------------------------------
def _join_kernel(*parts: np.ndarray, separator: str) -> np.ndarray:
    shapes = {p.shape for p in parts if p.ndim}
    if len(shapes) > 1:
        a, b = sorted(shapes)[:2]
        raise ValueError(f"Input shapes do not match: {list(a)} vs. {list(b)}")
    shape = shapes.pop() if shapes else ()
    sep = separator.encode("utf-8")
    flat = [np.broadcast_to(p, shape).ravel() for p in parts]
    count = int(np.prod(shape)) if shape else 1
    return _bytes_array(shape, [sep.join(f[i] for f in flat) for i in range(count)])


def _join_infer(inputs, attrs):
    shape = TensorShape(())
    for t in inputs:
        if t.shape.rank != 0:
            shape = t.shape if shape.rank == 0 else broadcast_shapes(shape, t.shape)
    return [(dtypes.string, shape)]


STRING_JOIN = declare_op("StringJoin", _join_kernel, _join_infer, grad_inputs=())


def join(inputs: Sequence[Any], separator: str = "", name: Optional[str] = None):
    """Elementwise concatenation of string tensors (scalars broadcast)."""
    tensors = [_strings(t, "StringJoin") for t in inputs]
    return apply_op(STRING_JOIN, tensors, {"separator": separator}, name)


# -- format ----------------------------------------------------------------------------
def _format_kernel(*values: np.ndarray, template: str, placeholder: str, summarize: int):
    pieces = template.split(placeholder)
    text = pieces[0]
    for value, piece in zip(values, pieces[1:], strict=True):
        text += format_array(value, summarize) + piece
    return np.asarray(text.encode("utf-8"), dtype=object)


def _scalar_string(inputs, attrs):
    return [(dtypes.string, TensorShape(()))]


STRING_FORMAT = declare_op("StringFormat", _format_kernel, _scalar_string, grad_inputs=())


def format(template: str, inputs: Any, placeholder: str = "{}",  # noqa: A001 (TF's name)
           summarize: int = 3, name: Optional[str] = None):
    """`template` with each placeholder replaced by the text of one input tensor (as
    dg.print writes it: strings quoted, long axes summarized)."""
    values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    expected = template.count(placeholder)
    if expected != len(values):
        raise ValueError(f"The template expects {expected} tensors, but the inputs only has "
                         f"{len(values)}. Please ensure the number of placeholders in template "
                         "matches inputs length.")
    tensors = [convert_to_tensor(v) for v in values]
    return apply_op(STRING_FORMAT, tensors, {"template": template, "placeholder": placeholder,
                                             "summarize": int(summarize)}, name)


# -- length ------------------------------------------------------------------------------
def _length_kernel(x: np.ndarray, *, unit: str) -> np.ndarray:
    if unit == "UTF8_CHAR":
        sizes = [len(b.decode("utf-8", "replace")) for b in x.ravel()]
    else:
        sizes = [len(b) for b in x.ravel()]
    return np.asarray(sizes, dtype=np.int32).reshape(x.shape)


def _same_shape(out_dtype):
    def infer(inputs, attrs):
        return [(out_dtype, inputs[0].shape)]
    return infer


STRING_LENGTH = declare_op("StringLength", _length_kernel, _same_shape(dtypes.int32),
                           input_kinds=STRING, grad_inputs=())


def length(input: Any, unit: str = "BYTE", name: Optional[str] = None):  # noqa: A002
    """The length of each string, in bytes or (unit="UTF8_CHAR") in characters."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be one of BYTE, UTF8_CHAR, got {unit!r}")
    return apply_op(STRING_LENGTH, (_strings(input, "StringLength"),), {"unit": unit}, name)


# -- split (a scalar: a vector of pieces; TF gives a RaggedTensor for more) ---------
def _split_kernel(x: np.ndarray, *, sep: Optional[str], maxsplit: int) -> np.ndarray:
    text = bytes(x.item())
    if sep is None:
        parts = text.split(None, maxsplit if maxsplit >= 0 else -1)
    else:
        parts = text.split(sep.encode("utf-8"), maxsplit if maxsplit >= 0 else -1)
    return _bytes_array((len(parts),), parts)


def _split_infer(inputs, attrs):
    return [(dtypes.string, TensorShape((None,)))]


STRING_SPLIT = declare_op("StringSplitScalar", _split_kernel, _split_infer, input_kinds=STRING,
                          grad_inputs=())


def _split_rows_kernel(x: np.ndarray, *, sep: Optional[str], maxsplit: int) -> list:
    """Every string of a vector split: (the pieces, one after the other; row_splits)."""
    pieces: list = []
    splits = [0]
    for item in x:
        pieces.extend(_split_kernel(np.asarray(item, dtype=object), sep=sep,
                                    maxsplit=maxsplit))
        splits.append(len(pieces))
    return [_bytes_array((len(pieces),), pieces), np.asarray(splits, np.int64)]


def _split_rows_infer(inputs, attrs):
    rows = inputs[0].shape[0] if inputs[0].shape.rank == 1 else None
    return [(dtypes.string, TensorShape((None,))),
            (dtypes.int64, TensorShape((None if rows is None else rows + 1,)))]


STRING_SPLIT_V2 = declare_op("StringSplitV2", _split_rows_kernel, _split_rows_infer,
                             input_kinds=STRING, num_outputs=2, grad_inputs=())


def split(input: Any, sep: Optional[str] = None, maxsplit: int = -1,  # noqa: A002
          name: Optional[str] = None):
    """The pieces of each string split at `sep` (None: runs of whitespace): a 1-D tensor
    for a scalar, a RaggedTensor (one ragged dimension more) for a tensor of rank >= 1,
    as TF's."""
    tensor = _strings(input, "StringSplit")
    if sep == "":
        raise ValueError("sep must not be an empty string")
    attrs = {"sep": sep, "maxsplit": int(maxsplit)}
    rank = tensor.shape.rank
    if rank == 0:
        return apply_op(STRING_SPLIT, (tensor,), attrs, name)
    if rank is None:
        raise ValueError("dg.strings.split needs an input of known rank")
    dims = tensor.shape.as_list()
    flat = array_ops.reshape(tensor, [-1]) if rank > 1 else tensor
    values, row_splits = apply_op(STRING_SPLIT_V2, (flat,), attrs, name)
    result: Any = RaggedTensor(values, row_splits)
    for level in range(rank - 1, 0, -1):  # the uniform outer dimensions, innermost first
        rows = int(np.prod(dims[:level]))
        result = RaggedTensor(result, constant(np.arange(rows + 1, dtype=np.int64) *
                                               dims[level]), uniform_row_length=dims[level])
    return result


# -- to_number ---------------------------------------------------------------------------
def _parse(text: bytes, np_type: np.dtype) -> Any:
    raw = text.decode("utf-8", "replace").strip()
    try:
        if np_type.kind == "f":
            return float(raw)
        value = int(raw, 10)
    except ValueError:
        raise ValueError(f"StringToNumberOp could not correctly convert string: {raw}") from None
    info = np.iinfo(np_type)
    if not info.min <= value <= info.max:
        raise ValueError(f"StringToNumberOp could not correctly convert string: {raw}")
    return value


def _to_number_kernel(x: np.ndarray, *, out_type: Any) -> np.ndarray:
    np_type = np.dtype(out_type.as_numpy_dtype)
    values = [_parse(b, np_type) for b in x.ravel()]
    return np.asarray(values, dtype=np_type).reshape(x.shape)


def _to_number_infer(inputs, attrs):
    return [(attrs["out_type"], inputs[0].shape)]


STRING_TO_NUMBER = declare_op("StringToNumber", _to_number_kernel, _to_number_infer,
                              input_kinds=STRING, grad_inputs=())


def to_number(string_tensor: Any, out_type: Any = dtypes.float32, name: Optional[str] = None):
    """Each string parsed as a number of `out_type` (float32/64, int32/64);
    InvalidArgumentError for a string that is no such number."""
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError(f"out_type must be float32, float64, int32 or int64, got "
                        f"{out_type.name}")
    return apply_op(STRING_TO_NUMBER, (_strings(string_tensor, "StringToNumber"),),
                    {"out_type": out_type}, name)


# -- as_string ---------------------------------------------------------------------------
def _as_text(value: Any, kind: str, precision: int, scientific: bool, shortest: bool,
             width: int, fill: str) -> str:
    if kind == "b":
        text = "true" if value else "false"
    elif kind in "iu":
        text = str(int(value))
    elif kind == "f":
        if shortest:
            text = "%g" % value
        else:
            digits = 6 if precision < 0 else precision
            text = "%.*e" % (digits, value) if scientific else "%.*f" % (digits, value)
    elif kind == "c":
        text = f"({_as_text(value.real, 'f', precision, scientific, shortest, -1, '')}," \
               f"{_as_text(value.imag, 'f', precision, scientific, shortest, -1, '')})"
    else:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    if width > len(text):
        if fill == "0" and text[:1] == "-":
            text = "-" + text[1:].rjust(width - 1, "0")
        else:
            text = text.rjust(width, fill or " ")
    return text


def _as_string_kernel(x: np.ndarray, *, precision: int, scientific: bool, shortest: bool,
                      width: int, fill: str) -> np.ndarray:
    if x.dtype.kind in "OS":
        return x
    kind = x.dtype.kind
    items = [_as_text(v, kind, precision, scientific, shortest, width, fill).encode("utf-8")
             for v in x.ravel()]
    return _bytes_array(x.shape, items)


AS_STRING = declare_op("AsString", _as_string_kernel, _same_shape(dtypes.string),
                       input_kinds="fciubO", grad_inputs=())


def as_string(input: Any, precision: int = -1, scientific: bool = False,  # noqa: A002
              shortest: bool = False, width: int = -1, fill: str = "",
              name: Optional[str] = None):
    """Each element as text: floats with `precision` digits (6), or `scientific`, or
    the `shortest` form; integers; booleans as true/false; padded to `width` with `fill`."""
    if len(fill) > 1:
        raise ValueError(f"fill must be at most one character, got {fill!r}")
    return apply_op(AS_STRING, (convert_to_tensor(input),),
                    {"precision": int(precision), "scientific": bool(scientific),
                     "shortest": bool(shortest), "width": int(width), "fill": fill}, name)


# -- regex_full_match, upper, lower, reduce_join -----------------------------------------
def _regex_kernel(x: np.ndarray, *, pattern: str) -> np.ndarray:
    try:
        compiled = re.compile(pattern.encode("utf-8"))
    except re.error as error:
        raise ValueError(f"Invalid pattern: {pattern}, error: {error}") from None
    return np.asarray([compiled.fullmatch(b) is not None for b in x.ravel()],
                      dtype=bool).reshape(x.shape)


STATIC_REGEX_FULL_MATCH = declare_op("StaticRegexFullMatch", _regex_kernel,
                                     _same_shape(dtypes.bool_), input_kinds=STRING,
                                     grad_inputs=())


def regex_full_match(input: Any, pattern: Any, name: Optional[str] = None):  # noqa: A002
    """Whether each string matches `pattern` entirely (Python's `re` syntax; TF uses
    RE2, which agrees on the common subset)."""
    if isinstance(pattern, Tensor):
        pattern = pattern.numpy() if hasattr(pattern, "numpy") else None
        if pattern is None:
            raise ValueError("regex_full_match needs a pattern known when the op is built")
        pattern = pattern.decode("utf-8")
    return apply_op(STATIC_REGEX_FULL_MATCH, (_strings(input, "StaticRegexFullMatch"),),
                    {"pattern": str(pattern)}, name)


def _case_kernel(x: np.ndarray, *, upper: bool) -> np.ndarray:
    items = [b.upper() if upper else b.lower() for b in x.ravel()]
    return _bytes_array(x.shape, items)


STRING_CASE = declare_op("StringCase", _case_kernel, _same_shape(dtypes.string),
                         input_kinds=STRING, grad_inputs=())


def upper(input: Any, encoding: str = "", name: Optional[str] = None):  # noqa: A002
    """ASCII letters upper-cased."""
    return apply_op(STRING_CASE, (_strings(input, "StringUpper"),), {"upper": True}, name)


def lower(input: Any, encoding: str = "", name: Optional[str] = None):  # noqa: A002
    """ASCII letters lower-cased."""
    return apply_op(STRING_CASE, (_strings(input, "StringLower"),), {"upper": False}, name)



STRING_OPS = (STRING_SPLIT_V2, STRING_JOIN, STRING_FORMAT, STRING_LENGTH, STRING_SPLIT, STRING_TO_NUMBER,
              AS_STRING, STATIC_REGEX_FULL_MATCH, STRING_CASE, REDUCE_JOIN)

__all__ = ["join", "format", "length", "split", "to_number", "as_string", "regex_full_match",
           "upper", "lower", "reduce_join"]
