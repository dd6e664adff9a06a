"""How each TensorFlow op type of a GraphDef becomes duograd ops (import_graph_def).

A translator receives the importer's context, the NodeDef's name, its input
tensors and its decoded attrs, and builds the op through duograd's public
functions (so an imported graph runs on duograd's kernels and differentiates
like one built by hand). Inputs that TF passes as tensors but duograd keeps
as attributes (a reduction's axes, a transpose's permutation) must be
constants of the GraphDef, as they are in frozen graphs.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List

import numpy as np

from ..framework.errors import InvalidArgumentError

Translator = Callable[[Any, str, List[Any], Dict[str, Any]], Any]
TRANSLATORS: Dict[str, Translator] = {}

# Ops whose TF inputs and duograd's are the same and whose only TF attrs are types
# (T, Tidx, ...): built directly from the op declaration of the same type name.
SAME_SIGNATURE = (
    "Identity", "StopGradient", "Snapshot", "PreventGradient",
    "Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log", "Log1p", "Sin", "Cos",
    "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh",
    "Sigmoid", "Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "Sign", "Floor",
    "Ceil", "Round", "Rint", "Reciprocal", "Inv", "Erf", "Erfc", "Lgamma", "Digamma",
    "IsNan", "IsInf", "IsFinite", "LogicalNot", "ZerosLike", "OnesLike",
    "Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "DivNoNan", "FloorDiv", "FloorMod",
    "TruncateDiv", "Maximum", "Minimum", "Pow", "SquaredDifference", "Atan2", "Xdivy",
    "Xlogy", "Greater", "GreaterEqual", "Less", "LessEqual", "LogicalAnd", "LogicalOr",
    "Reshape", "Fill", "Tile", "Slice", "PadV2", "Select", "SelectV2", "BroadcastTo",
    "AddN", "Cumsum",
)


def translator(*op_types: str) -> Callable[[Translator], Translator]:
    def register(function: Translator) -> Translator:
        for op_type in op_types:
            TRANSLATORS[op_type] = function
        return function
    return register


def _dg() -> Any:
    import duograd  # the public API (imported when a graph is imported, not at import)
    return duograd


@translator("Const")
def _const(ctx, name, inputs, attrs):
    return _dg().constant(attrs["value"], dtype=attrs.get("dtype"), name=name)


@translator("Placeholder")
def _placeholder(ctx, name, inputs, attrs):
    shape = attrs.get("shape")
    return _dg().compat.v1.placeholder(attrs["dtype"], shape=shape, name=name)


@translator("PlaceholderWithDefault")
def _placeholder_with_default(ctx, name, inputs, attrs):
    return _dg().compat.v1.placeholder_with_default(inputs[0], attrs.get("shape"), name=name)


@translator("NoOp")
def _no_op(ctx, name, inputs, attrs):
    return _dg().no_op(name=name)


@translator("MatMul")
def _matmul(ctx, name, inputs, attrs):
    return _dg().linalg.matmul(inputs[0], inputs[1], transpose_a=attrs.get("transpose_a", False),
                               transpose_b=attrs.get("transpose_b", False), name=name)


@translator("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def _batch_matmul(ctx, name, inputs, attrs):
    return _dg().linalg.matmul(inputs[0], inputs[1], adjoint_a=attrs.get("adj_x", False),
                               adjoint_b=attrs.get("adj_y", False), name=name)


_REDUCTIONS = {"Sum": "reduce_sum", "Mean": "reduce_mean", "Max": "reduce_max",
               "Min": "reduce_min", "Prod": "reduce_prod", "All": "reduce_all",
               "Any": "reduce_any"}


@translator(*_REDUCTIONS)
def _reduction(ctx, name, inputs, attrs):
    axes = ctx.static(inputs[1], name, "reduction_indices")
    function = getattr(_dg(), _REDUCTIONS[ctx.op_type])
    return function(inputs[0], axis=[int(a) for a in np.ravel(axes)],
                    keepdims=attrs.get("keep_dims", False), name=name)


@translator("ConcatV2")
def _concat(ctx, name, inputs, attrs):
    axis = int(ctx.static(inputs[-1], name, "axis"))
    return _dg().concat(inputs[:-1], axis=axis, name=name)


@translator("Pack")
def _pack(ctx, name, inputs, attrs):
    return _dg().stack(inputs, axis=attrs.get("axis", 0), name=name)


@translator("Unpack")
def _unpack(ctx, name, inputs, attrs):
    return _dg().unstack(inputs[0], num=attrs.get("num"), axis=attrs.get("axis", 0), name=name)


@translator("Transpose")
def _transpose(ctx, name, inputs, attrs):
    perm = ctx.static(inputs[1], name, "perm")
    return _dg().transpose(inputs[0], [int(p) for p in np.ravel(perm)], name=name)


@translator("ExpandDims")
def _expand_dims(ctx, name, inputs, attrs):
    return _dg().expand_dims(inputs[0], int(ctx.static(inputs[1], name, "dim")), name=name)


@translator("Squeeze")
def _squeeze(ctx, name, inputs, attrs):
    dims = attrs.get("squeeze_dims") or None
    return _dg().squeeze(inputs[0], dims, name=name)


@translator("Cast")
def _cast(ctx, name, inputs, attrs):
    return _dg().cast(inputs[0], attrs["DstT"], name=name)


@translator("Shape")
def _shape(ctx, name, inputs, attrs):
    return _dg().shape(inputs[0], out_type=attrs.get("out_type"), name=name)


@translator("Softmax", "LogSoftmax")
def _softmax(ctx, name, inputs, attrs):
    nn = _dg().nn
    function = nn.softmax if ctx.op_type == "Softmax" else nn.log_softmax
    return function(inputs[0], name=name)


@translator("BiasAdd", "BiasAddV1")
def _bias_add(ctx, name, inputs, attrs):
    return _dg().nn.bias_add(inputs[0], inputs[1], data_format=attrs.get("data_format"),
                             name=name)


@translator("GatherV2")
def _gather(ctx, name, inputs, attrs):
    axis = int(ctx.static(inputs[2], name, "axis"))
    return _dg().gather(inputs[0], inputs[1], axis=axis,
                        batch_dims=attrs.get("batch_dims", 0), name=name)


@translator("StridedSlice")
def _strided_slice(ctx, name, inputs, attrs):
    return _dg().strided_slice(
        inputs[0], inputs[1], inputs[2], inputs[3], begin_mask=attrs.get("begin_mask", 0),
        end_mask=attrs.get("end_mask", 0), ellipsis_mask=attrs.get("ellipsis_mask", 0),
        new_axis_mask=attrs.get("new_axis_mask", 0),
        shrink_axis_mask=attrs.get("shrink_axis_mask", 0), name=name)


@translator("Pad")
def _pad(ctx, name, inputs, attrs):
    return _dg().pad(inputs[0], inputs[1], name=name)


@translator("ArgMax", "ArgMin")
def _arg(ctx, name, inputs, attrs):
    function = _dg().argmax if ctx.op_type == "ArgMax" else _dg().argmin
    axis = int(ctx.static(inputs[1], name, "dimension"))
    return function(inputs[0], axis=axis, output_type=attrs.get("output_type"), name=name)


@translator("LeakyRelu")
def _leaky_relu(ctx, name, inputs, attrs):
    return _dg().nn.leaky_relu(inputs[0], alpha=attrs.get("alpha", 0.2), name=name)


@translator("Equal", "NotEqual")
def _equal(ctx, name, inputs, attrs):
    function = _dg().equal if ctx.op_type == "Equal" else _dg().not_equal
    return function(inputs[0], inputs[1], name=name)


def _nhwc(attrs: Dict[str, Any], name: str) -> None:
    if attrs.get("data_format", "NHWC") != "NHWC":
        raise InvalidArgumentError(None, None, f"import_graph_def: node {name} uses "
                                   f"data_format {attrs['data_format']}; duograd imports NHWC")


@translator("Conv2D")
def _conv2d(ctx, name, inputs, attrs):
    _nhwc(attrs, name)
    return _dg().nn.conv2d(inputs[0], inputs[1], strides=list(attrs["strides"]),
                           padding=attrs["padding"], dilations=list(attrs.get("dilations") or
                                                                     [1, 1, 1, 1]), name=name)


@translator("MaxPool", "AvgPool")
def _pool(ctx, name, inputs, attrs):
    _nhwc(attrs, name)
    nn = _dg().nn
    function = nn.max_pool2d if ctx.op_type == "MaxPool" else nn.avg_pool2d
    return function(inputs[0], list(attrs["ksize"]), list(attrs["strides"]), attrs["padding"],
                    name=name)


# Ops that would run Python code, or state TF keeps outside the graph: never imported.
REFUSED = {
    "PyFunc": "it calls a Python function (py_function/numpy_function), which a file must "
              "never make duograd run",
    "PyFuncStateless": "it calls a Python function, which a file must never make duograd run",
    "EagerPyFunc": "it calls a Python function, which a file must never make duograd run",
    "VarHandleOp": "variables are not imported from a GraphDef: freeze the graph first "
                   "(graph_util.convert_variables_to_constants)",
    "VariableV2": "variables are not imported from a GraphDef: freeze the graph first "
                  "(graph_util.convert_variables_to_constants)",
}


@translator("Einsum")
def _einsum(ctx, name, inputs, attrs):
    return _dg().einsum(attrs["equation"], *inputs, name=name)


@translator("Split")
def _split(ctx, name, inputs, attrs):
    axis = int(ctx.static(inputs[0], name, "split_dim"))
    return _dg().split(inputs[1], attrs["num_split"], axis=axis, name=name)


@translator("SplitV")
def _split_v(ctx, name, inputs, attrs):
    sizes = [int(s) for s in np.ravel(ctx.static(inputs[1], name, "size_splits"))]
    axis = int(ctx.static(inputs[2], name, "split_dim"))
    return _dg().split(inputs[0], sizes, axis=axis, name=name)


@translator("Range")
def _range(ctx, name, inputs, attrs):
    return _dg().range(inputs[0], inputs[1], inputs[2], dtype=attrs.get("Tidx"), name=name)


@translator("OneHot")
def _one_hot(ctx, name, inputs, attrs):
    depth = int(ctx.static(inputs[1], name, "depth"))
    return _dg().one_hot(inputs[0], depth, on_value=inputs[2], off_value=inputs[3],
                         axis=attrs.get("axis", -1), name=name)


@translator("FusedBatchNormV3", "FusedBatchNorm", "FusedBatchNormV2")
def _fused_batch_norm(ctx, name, inputs, attrs):
    _nhwc(attrs, name)
    if attrs.get("is_training", True):
        raise InvalidArgumentError(None, None, f"node {name}: a training-mode "
                                   f"{ctx.op_type} is not supported (inference only)")
    dg = _dg()
    x, scale, offset, mean, variance = inputs[:5]
    y = dg.nn.batch_normalization(x, mean, variance, offset, scale,
                                  attrs.get("epsilon", 1e-4), name=name)
    extra = [dg.identity(mean), dg.identity(variance), dg.identity(mean),
             dg.identity(variance)]
    return [y] + extra + ([dg.zeros_like(mean)] if ctx.op_type == "FusedBatchNormV3" else [])
