"""Elementwise math ops: declarations (kernel + shape rule) and public wrappers.

Each op is one `declare_op` line group; its gradient is in grad_registry/math_grad.py.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...eager import context
from ...eager.eager_tensor import EagerTensor
from ...framework import dtypes
from ...framework.errors import UnimplementedError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor, register_operator
from ...framework.tensor_shape import broadcast_shapes
from .complex_ops import conj, conj_if_complex, imag, real  # noqa: F401 (math_ops.conj, as in TF)
from ..constant_op import convert_to_tensor
from ..op_helpers import apply_binary, apply_unary, binary_function, binary_operands, unary_function
from ..shape_rules import broadcast_binary, broadcast_compare, elementwise_unary

FLOAT = "fc"          # float and complex inputs
NUMERIC = "fciu"
_float_rule = elementwise_unary()


def _quiet(func):
    """A kernel that returns NaN/inf like TF instead of emitting NumPy warnings."""
    def kernel(*args):
        with np.errstate(all="ignore"):
            return func(*args)
    kernel.__name__ = getattr(func, "__name__", "kernel")
    kernel.plan_kernel = func  # plans run under errstate already
    return kernel


def _unary(op_type: str, kernel, kinds: str = FLOAT, grad_inputs=(0,), grad_outputs=()):
    return declare_op(op_type, kernel, _float_rule, input_kinds=kinds,
                      grad_inputs=grad_inputs, grad_outputs=grad_outputs)


def _binary(op_type: str, kernel, kinds: str = NUMERIC, grad_inputs=None, grad_outputs=()):
    return declare_op(op_type, kernel, broadcast_binary, input_kinds=kinds,
                      grad_inputs=grad_inputs, grad_outputs=grad_outputs)


# -- binary arithmetic ------------------------------------------------------
def _add(x, y):
    """np.add; two scalar strings concatenate into an object array, not the bytes
    object NumPy gives (which later conversions would read as NumPy's bytes dtype,
    dropping trailing NUL bytes)."""
    out = np.add(x, y)
    if type(out) is bytes:
        scalar = np.empty((), dtype=object)
        scalar[()] = out
        return scalar
    return out


ADD = _binary("AddV2", _add, NUMERIC + "O", grad_inputs=())   # strings concatenate, as TF
SUB = _binary("Sub", np.subtract, grad_inputs=())
MUL = _binary("Mul", np.multiply, grad_inputs={0: (1,), 1: (0,)})
REAL_DIV = _binary("RealDiv", _quiet(np.true_divide), FLOAT, grad_inputs={0: (1,), 1: (0, 1)})


def _floor_div(x, y):
    with np.errstate(all="ignore"):
        return np.floor_divide(x, y)


FLOOR_DIV = _binary("FloorDiv", _floor_div)
FLOOR_MOD = _binary("FloorMod", _quiet(np.mod))
def _pow_kernel(x, y):
    """x ** y. A float32 cube (GELU's tanh form cubes every activation) is two float64
    products rounded once: NumPy's float32 power runs ~100x slower than that, and is
    no closer to the correctly rounded cube. The square of a float32/float64 array
    (the cube's gradient) is x * x, bit-equal to np.power's (checked on 9M values),
    ~6x faster."""
    with np.errstate(all="ignore"):
        if (x.dtype == np.float32 or x.dtype == np.float64) and np.ndim(y) == 0:
            if y == 2:
                return np.multiply(x, x)
            if y == 3 and x.dtype == np.float32 and type(x) is np.ndarray and x.ndim:
                # x*x is exact in float64 (48 bits), times x rounded there, then to
                # float32; one float64 temporary, squared in place (on 128x1024 ~25%
                # faster than a mixed-dtype product, which casts x through a buffer)
                cube = x.astype(np.float64)
                np.multiply(cube, cube, out=cube)
                np.multiply(cube, x, out=cube)
                return cube.astype(np.float32)
            if y == 3 and x.dtype == np.float32:   # a 0-d cube
                wide = np.float64(x)
                return np.float32(wide * wide * wide)
        return np.power(x, y)


POW = _binary("Pow", _pow_kernel, grad_inputs=None, grad_outputs=(0,))
MAXIMUM = _binary("Maximum", np.maximum, "fiu")
MINIMUM = _binary("Minimum", np.minimum, "fiu")


add = binary_function(ADD, "add", __name__, "x + y elementwise, with broadcasting.")


subtract = binary_function(SUB, "subtract", __name__)


multiply = binary_function(MUL, "multiply", __name__)


_real_div = binary_function(REAL_DIV)


def _int_truediv_operands(x, y):
    x, y = binary_operands("RealDiv", x, y)
    if x.dtype.is_integer:
        target = "float64" if x.dtype.size >= 4 else "float32"
        x, y = cast(x, target), cast(y, target)
    return x, y


def truediv(x: Any, y: Any, name: Optional[str] = None):
    """x / y; integer inputs are converted to float (int32 -> float64), as in TF."""
    if type(x) is EagerTensor and type(y) is EagerTensor and x.array.dtype.kind in "fc" and \
            x.array.dtype == y.array.dtype:
        return _real_div(x, y, name)
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype != y.dtype:
        raise TypeError(f"x and y must have the same dtype, got {x.dtype.name} != "
                        f"{y.dtype.name}")  # TF checks this in Python, in both modes
    x, y = _int_truediv_operands(x, y)
    return _real_div(x, y, name)


def divide(x: Any, y: Any, name: Optional[str] = None):
    return truediv(x, y, name)


floordiv = binary_function(FLOOR_DIV, "floordiv", __name__)


mod = binary_function(FLOOR_MOD, "mod", __name__)


pow = binary_function(POW, "pow", __name__)  # noqa: A001 (TF's name)


maximum = binary_function(MAXIMUM, "maximum", __name__)


minimum = binary_function(MINIMUM, "minimum", __name__)


# -- unary ------------------------------------------------------------------
NEG = _unary("Neg", np.negative, NUMERIC, grad_inputs=())
SIN = _unary("Sin", np.sin)
COS = _unary("Cos", np.cos)
TANH = _unary("Tanh", np.tanh, grad_inputs=(), grad_outputs=(0,))
EXP = _unary("Exp", np.exp, grad_inputs=(), grad_outputs=(0,))
LOG = _unary("Log", _quiet(np.log))
LOG1P = _unary("Log1p", _quiet(np.log1p))
SQRT = _unary("Sqrt", _quiet(np.sqrt), grad_inputs=(), grad_outputs=(0,))
RSQRT = _unary("Rsqrt", _quiet(lambda x: 1 / np.sqrt(x)), grad_inputs=(), grad_outputs=(0,))
SQUARE = _unary("Square", np.square, NUMERIC)
ABS = declare_op("Abs", np.abs, lambda inputs, attrs: [(inputs[0].dtype.real_dtype, inputs[0].shape)],
                 input_kinds=NUMERIC, grad_inputs=(0,), grad_outputs=(0,))
SIGN = _unary("Sign", np.sign, "fiu", grad_inputs=())


def _sigmoid(x):
    if x.dtype == np.float32 and type(x) is np.ndarray and x.ndim:
        return _sigmoid_float32(x)
    if x.dtype.kind != "c":
        return _stable_sigmoid(x)  # exp(-|x|) <= 1: nothing overflows
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _sigmoid_float32(x):
    """float32: e / (1 + e), e = exp(x), in float64, rounded once. Closer to TF's float32
    kernel than the float32 formulas (measured on 300k points: 49% of the results
    bit-equal to TF 2.21's in |x| < 9 against 40% for the stable form, at most 6 ulp
    apart against 7) in four ufunc calls and a rounding against seven (~2x faster on
    an LSTM's 16x32 gates). x is capped at 700 as it is widened (one call), so that
    exp stays finite: the result there is 1 either way; far below, exp underflows
    quietly to 0, as the float32 result does."""
    e = np.minimum(x, 700.0, dtype=np.float64)
    np.exp(e, out=e)
    sigmoid = e + 1.0
    np.divide(e, sigmoid, out=sigmoid)
    return sigmoid.astype(np.float32)


def _stable_sigmoid(x):
    """1 / (1 + e) where x >= 0, else e / (1 + e), e = exp(-|x|): one division, in place
    on two fresh arrays (x may be a strided view, e.g. a split's gate)."""
    if type(x) is not np.ndarray or x.ndim == 0:
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)
    e = np.abs(x)
    np.negative(e, out=e)
    np.exp(e, out=e)
    denominator = e + _one(e.dtype)
    return np.divide(np.where(x >= 0, _one(e.dtype), e), denominator, out=denominator)


SIGMOID = _unary("Sigmoid", _sigmoid, grad_inputs=(), grad_outputs=(0,))


# Fused gradient ops, as in TensorFlow: one kernel instead of three eager ops on
# the backward path of every tanh/sigmoid, and differentiable themselves.
_ONES: dict = {}  # {NumPy dtype: a 0-d one of it}, never written into


def _one(dtype: Any) -> np.ndarray:
    """A 0-d one of `dtype`: as a ufunc operand it costs no conversion, where the
    Python int 1 costs about 0.35 us per call (NumPy's weak-scalar handling)."""
    one = _ONES.get(dtype)
    if one is None:
        one = _ONES[dtype] = np.ones((), dtype)
    return one


def _tanh_grad_kernel(y, dy):
    """dy * (1 - y*y), in one fresh array: large backward passes allocate less."""
    out = y * y
    if type(out) is not np.ndarray or type(dy) is not np.ndarray or out.shape != dy.shape \
            or out.dtype != dy.dtype:
        return dy * (1 - out)
    np.subtract(_one(out.dtype), out, out)
    return np.multiply(dy, out, out)


def _sigmoid_grad_kernel(y, dy):
    """dy * y * (1 - y), in one fresh array."""
    out = np.subtract(_one(y.dtype), y) if type(y) is np.ndarray else 1 - y
    if type(out) is not np.ndarray or type(dy) is not np.ndarray or out.shape != dy.shape \
            or out.dtype != dy.dtype:
        return dy * (y * out)
    np.multiply(out, y, out)
    return np.multiply(dy, out, out)


TANH_GRAD = _binary("TanhGrad", _tanh_grad_kernel, FLOAT)
SIGMOID_GRAD = _binary("SigmoidGrad", _sigmoid_grad_kernel, FLOAT)


def tanh_grad(y: Any, dy: Any, name: Optional[str] = None):
    """dy * (1 - y**2): the gradient of tanh given its output y (TF's TanhGrad, whose
    argument names these are)."""
    return apply_binary(TANH_GRAD, y, dy, name)


def sigmoid_grad(y: Any, dy: Any, name: Optional[str] = None):
    """dy * y * (1 - y): the gradient of sigmoid given its output y (TF's SigmoidGrad)."""
    return apply_binary(SIGMOID_GRAD, y, dy, name)


negative = unary_function(NEG, "negative", __name__)


sin = unary_function(SIN, "sin", __name__)


cos = unary_function(COS, "cos", __name__)


tanh = unary_function(TANH, "tanh", __name__)


exp = unary_function(EXP, "exp", __name__)


log = unary_function(LOG, "log", __name__)


log1p = unary_function(LOG1P, "log1p", __name__)


sqrt = unary_function(SQRT, "sqrt", __name__)


rsqrt = unary_function(RSQRT, "rsqrt", __name__)


square = unary_function(SQUARE, "square", __name__)


abs = unary_function(ABS, "abs", __name__)  # noqa: A001 (TF's name)


sign = unary_function(SIGN, "sign", __name__)


sigmoid = unary_function(SIGMOID, "sigmoid", __name__)


# -- cast ------------------------------------------------------------------
def _cast_kernel(x, *, DstT):
    if (x.dtype.kind in "OS") != (DstT.kind == "O"):   # TF: as_string / to_number instead
        source = "string" if x.dtype.kind in "OS" else dtypes.from_numpy(x.dtype).name
        raise UnimplementedError(None, None, f"Cast {source} to {DstT.name} is not supported")
    if x.dtype.kind == "c" and not DstT.is_complex:
        x = x.real   # TF keeps the real part (NumPy would warn)
    return x.astype(DstT.as_numpy_dtype, copy=False)


def _cast_infer(inputs, attrs):
    return [(attrs["DstT"], inputs[0].shape)]


CAST = declare_op("Cast", _cast_kernel, _cast_infer, grad_inputs=())


def cast(x: Any, dtype: Any, name: Optional[str] = None):
    """`x` converted to `dtype` (complex to real keeps the real part, as in TF)."""
    dtype = dtypes.as_dtype(dtype)
    x = convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    return apply_unary(CAST, x, name, {"DstT": dtype})


# -- comparisons and logic (never differentiable) ---------------------------
def _compare(op_type: str, kernel, kinds: str = NUMERIC + "b"):
    return declare_op(op_type, kernel, broadcast_compare, input_kinds=kinds, grad_inputs=())


EQUAL = _compare("Equal", np.equal, NUMERIC + "bO")   # strings compare too, as in TF
NOT_EQUAL = _compare("NotEqual", np.not_equal, NUMERIC + "bO")
LESS = _compare("Less", np.less, "fiu")
LESS_EQUAL = _compare("LessEqual", np.less_equal, "fiu")
GREATER = _compare("Greater", np.greater, "fiu")
GREATER_EQUAL = _compare("GreaterEqual", np.greater_equal, "fiu")
LOGICAL_AND = _compare("LogicalAnd", np.logical_and, "b")
LOGICAL_OR = _compare("LogicalOr", np.logical_or, "b")
LOGICAL_NOT = declare_op("LogicalNot", np.logical_not, _float_rule, input_kinds="b", grad_inputs=())


equal = binary_function(EQUAL, "equal", __name__)


not_equal = binary_function(NOT_EQUAL, "not_equal", __name__)


def tensor_equals(x: Any, y: Any) -> Any:
    """Python `x == y` on tensors (TF2): elementwise Equal, False for None, and a
    scalar False when the shapes cannot broadcast (TF's incompatible_shape_error=False)."""
    return _value_comparison(EQUAL, x, y, False)


def tensor_not_equals(x: Any, y: Any) -> Any:
    """Python `x != y` on tensors (TF2): elementwise NotEqual; see `tensor_equals`."""
    return _value_comparison(NOT_EQUAL, x, y, True)


def _value_comparison(op_def: Any, x: Any, y: Any, incompatible: bool) -> Any:
    if y is None:
        return incompatible
    x, y = binary_operands(op_def.type, x, y)
    try:
        broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return convert_to_tensor(incompatible)
    return apply_binary(op_def, x, y)


less = binary_function(LESS, "less", __name__)


less_equal = binary_function(LESS_EQUAL, "less_equal", __name__)


greater = binary_function(GREATER, "greater", __name__)


greater_equal = binary_function(GREATER_EQUAL, "greater_equal", __name__)


def _bool_operand(value: Any, second: bool = False) -> Any:
    """A Python value given to a logical op converts as bool (TF: TypeError if it is not).
    A binary op's second operand goes through TF's op conversion: building a graph any
    failure is a TypeError; eagerly a string is a ValueError."""
    if isinstance(value, Tensor):
        return value
    try:
        return convert_to_tensor(value, dtype=dtypes.bool_)
    except (TypeError, ValueError) as error:
        if not second:
            raise
        graph = context.state.graph is not None
        cls = TypeError if graph else ValueError if isinstance(value, str) else type(error)
        raise cls(str(error)) from None


def logical_and(x: Any, y: Any, name: Optional[str] = None):
    return apply_binary(LOGICAL_AND, _bool_operand(x), _bool_operand(y, True), name)


def logical_or(x: Any, y: Any, name: Optional[str] = None):
    return apply_binary(LOGICAL_OR, _bool_operand(x), _bool_operand(y, True), name)


def logical_not(x: Any, name: Optional[str] = None):
    return apply_unary(LOGICAL_NOT, _bool_operand(x), name)


def logical_xor(x: Any, y: Any, name: Optional[str] = None):
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


for _name, _func in [("add", add), ("subtract", subtract), ("multiply", multiply),
                     ("truediv", truediv), ("floordiv", floordiv), ("mod", mod), ("pow", pow),
                     ("negative", negative), ("abs", abs), ("logical_not", logical_not),
                     ("logical_and", logical_and), ("logical_or", logical_or),
                     ("logical_xor", logical_xor), ("less", less), ("less_equal", less_equal),
                     ("greater", greater), ("greater_equal", greater_equal),
                     ("equal", equal), ("not_equal", not_equal),
                     ("tensor_equals", tensor_equals), ("tensor_not_equals", tensor_not_equals)]:
    register_operator(_name, _func)  # type: ignore[arg-type]  # mypy joins the signatures to `function`

__all__ = ["cast", "add", "subtract", "multiply", "truediv", "divide", "floordiv", "mod", "pow",
           "maximum", "minimum", "negative", "sin", "cos", "tanh", "exp", "log", "log1p",
           "sqrt", "rsqrt", "square", "abs", "sign", "sigmoid", "tanh_grad", "sigmoid_grad", "equal", "not_equal", "less",
           "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
           "logical_not", "logical_xor"]
