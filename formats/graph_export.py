"""Graph.as_graph_def: a duograd graph as a GraphDef in TensorFlow's conventions.

duograd keeps some of TF's tensor inputs as attributes (a reduction's axes,
a concat's axis, a transpose's permutation); the export writes them back as
Const nodes (`<op>/reduction_indices`, ...) and adds the type attrs TF's op
definitions require (T, Tidx, ...), so `tf.compat.v1.import_graph_def` and
duograd's importer both read the result. An op outside the table below is
written with the attrs a GraphDef can hold (TensorBoard shows it; TF may not
import it).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from . import tf_types
from .graph_import_ops import SAME_SIGNATURE
from .protos import proto
from .tensor_proto import from_ndarray, shape_to_proto

GRAPH_DEF_PRODUCER = 2474  # the GraphDef version TF 2.21 writes (VersionDef.producer)
Exporter = Callable[[Any, Any, "GraphDefBuilder"], None]
EXPORTERS: Dict[str, Exporter] = {}


def _attr(value: Any) -> Any:
    attr_value = proto("attr_value_pb2").AttrValue
    if isinstance(value, proto("tensor_pb2").TensorProto):
        return attr_value(tensor=value)
    if isinstance(value, dtypes.DType):
        return attr_value(type=tf_types.enum_of(value))
    if isinstance(value, TensorShape):
        return attr_value(shape=shape_to_proto(value))
    if isinstance(value, (bool, np.bool_)):
        return attr_value(b=bool(value))
    if isinstance(value, (int, np.integer)):
        return attr_value(i=int(value))
    if isinstance(value, (float, np.floating)):
        return attr_value(f=float(value))
    if isinstance(value, str):
        return attr_value(s=value.encode())
    if isinstance(value, bytes):
        return attr_value(s=value)
    if isinstance(value, np.ndarray):
        return attr_value(tensor=from_ndarray(value))
    if isinstance(value, (list, tuple)):
        items = list(value)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
            return attr_value(list=attr_value.ListValue(i=[int(v) for v in items]))
        if all(isinstance(v, (float, np.floating)) for v in items):
            return attr_value(list=attr_value.ListValue(f=[float(v) for v in items]))
        if all(isinstance(v, str) for v in items):
            return attr_value(list=attr_value.ListValue(s=[v.encode() for v in items]))
        if all(isinstance(v, dtypes.DType) for v in items):
            return attr_value(list=attr_value.ListValue(
                type=[tf_types.enum_of(v) for v in items]))
    return None


def input_name(tensor: Any) -> str:
    return tensor.op.name if tensor.value_index == 0 else \
        f"{tensor.op.name}:{tensor.value_index}"


class GraphDefBuilder:
    """Accumulates NodeDefs (and the Const nodes exporters add)."""

    def __init__(self) -> None:
        self.graph_def = proto("graph_pb2").GraphDef()
        self.graph_def.versions.producer = GRAPH_DEF_PRODUCER

    def node(self, name: str, op_type: str, inputs: List[str], attrs: Dict[str, Any],
             device: str = "") -> Any:
        node = self.graph_def.node.add(name=name, op=op_type, device=device or "")
        node.input.extend(inputs)
        for key, value in attrs.items():
            message = _attr(value)
            if message is not None:
                node.attr[key].CopyFrom(message)
        return node

    def constant(self, name: str, value: Any, dtype: dtypes.DType = dtypes.int32) -> str:
        array = np.asarray(value, dtype=dtype.as_numpy_dtype)
        self.node(name, "Const", [], {"value": array, "dtype": dtype})
        return name


def exporter(*op_types: str) -> Callable[[Exporter], Exporter]:
    def register(function: Exporter) -> Exporter:
        for op_type in op_types:
            EXPORTERS[op_type] = function
        return function
    return register


def _inputs(op: Any) -> List[str]:
    return [input_name(t) for t in op.inputs]


def _controls(op: Any) -> List[str]:
    return ["^" + c.name for c in op.control_inputs]


def _t(op: Any, index: int = 0) -> dtypes.DType:
    return op.inputs[index].dtype


def _simple(builder: "GraphDefBuilder", op: Any, attrs: Dict[str, Any],
            extra_inputs: Tuple[str, ...] = ()) -> None:
    builder.node(op.name, op.type, _inputs(op) + list(extra_inputs) + _controls(op), attrs,
                 op.device)


@exporter("Const")
def _const(op, graph, builder):
    value = np.asarray(op.get_attr("value"))
    dtype = op.outputs[0].dtype
    builder.node(op.name, "Const", _controls(op), {"value": from_ndarray(value, dtype),
                                                   "dtype": dtype}, op.device)


@exporter("Placeholder")
def _placeholder(op, graph, builder):
    _simple(builder, op, {"dtype": op.get_attr("dtype"), "shape": op.outputs[0].shape})


@exporter("MatMul")
def _matmul(op, graph, builder):
    _simple(builder, op, {"T": _t(op), "transpose_a": op.attrs.get("transpose_a", False),
                          "transpose_b": op.attrs.get("transpose_b", False)})


@exporter("BatchMatMulV2")
def _batch_matmul(op, graph, builder):
    _simple(builder, op, {"T": _t(op), "adj_x": op.attrs.get("transpose_a", False),
                          "adj_y": op.attrs.get("transpose_b", False)})


@exporter("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
def _reduction(op, graph, builder):
    axis = op.attrs.get("axis")
    rank = op.inputs[0].shape.rank
    if axis is None:
        if rank is None:
            raise ValueError(f"as_graph_def: {op.name} reduces all axes of a tensor of "
                             "unknown rank")
        axis = list(range(rank))
    axes = builder.constant(f"{op.name}/reduction_indices", list(np.ravel(axis)))
    attrs = {"keep_dims": op.attrs.get("keepdims", False), "Tidx": dtypes.int32}
    if op.type not in ("All", "Any"):
        attrs["T"] = _t(op)
    _simple(builder, op, attrs, (axes,))


@exporter("ConcatV2")
def _concat(op, graph, builder):
    axis = builder.constant(f"{op.name}/axis", op.attrs["axis"])
    _simple(builder, op, {"N": len(op.inputs), "T": _t(op), "Tidx": dtypes.int32}, (axis,))


@exporter("Pack")
def _pack(op, graph, builder):
    _simple(builder, op, {"N": len(op.inputs), "T": _t(op), "axis": op.attrs.get("axis", 0)})


@exporter("Unpack")
def _unpack(op, graph, builder):
    _simple(builder, op, {"num": len(op.outputs), "T": _t(op),
                          "axis": op.attrs.get("axis", 0)})


@exporter("Transpose")
def _transpose(op, graph, builder):
    perm = builder.constant(f"{op.name}/perm", list(op.attrs["perm"]))
    _simple(builder, op, {"T": _t(op), "Tperm": dtypes.int32}, (perm,))


@exporter("ExpandDims")
def _expand_dims(op, graph, builder):
    dim = builder.constant(f"{op.name}/dim", op.attrs["axis"])
    _simple(builder, op, {"T": _t(op), "Tdim": dtypes.int32}, (dim,))


@exporter("Squeeze")
def _squeeze(op, graph, builder):
    axis = op.attrs.get("axis") or ()
    _simple(builder, op, {"T": _t(op), "squeeze_dims": list(axis)})


@exporter("Cast")
def _cast(op, graph, builder):
    _simple(builder, op, {"SrcT": _t(op), "DstT": op.outputs[0].dtype, "Truncate": False})


@exporter("Shape")
def _shape(op, graph, builder):
    _simple(builder, op, {"T": _t(op), "out_type": op.outputs[0].dtype})


@exporter("Softmax", "LogSoftmax")
def _softmax(op, graph, builder):
    axis, rank = op.attrs.get("axis", -1), op.inputs[0].shape.rank
    if axis != -1 and (rank is None or axis != rank - 1):
        raise ValueError(f"as_graph_def: {op.name} is a {op.type} over axis {axis}; TF's op "
                         "works on the last axis only")
    _simple(builder, op, {"T": _t(op)})


@exporter("BiasAdd")
def _bias_add(op, graph, builder):
    _simple(builder, op, {"T": _t(op), "data_format": op.attrs.get("data_format") or "NHWC"})


@exporter("GatherV2")
def _gather(op, graph, builder):
    axis = builder.constant(f"{op.name}/axis", op.attrs.get("axis", 0))
    _simple(builder, op, {"Tparams": _t(op), "Tindices": _t(op, 1), "Taxis": dtypes.int32,
                          "batch_dims": op.attrs.get("batch_dims", 0)}, (axis,))


@exporter("StridedSlice")
def _strided_slice(op, graph, builder):
    attrs = {"T": _t(op), "Index": _t(op, 1)}
    for mask in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                 "shrink_axis_mask"):
        attrs[mask] = op.attrs.get(mask, 0)
    _simple(builder, op, attrs)


@exporter("ArgMax", "ArgMin")
def _arg(op, graph, builder):
    dimension = builder.constant(f"{op.name}/dimension", op.attrs["axis"])
    _simple(builder, op, {"T": _t(op), "Tidx": dtypes.int32,
                          "output_type": op.outputs[0].dtype}, (dimension,))


@exporter("Conv2D")
def _conv2d(op, graph, builder):
    _simple(builder, op, {"T": _t(op), "strides": list(op.attrs["strides"]),
                          "padding": op.attrs["padding"],
                          "dilations": list(op.attrs.get("dilations") or (1, 1, 1, 1)),
                          "data_format": "NHWC", "use_cudnn_on_gpu": True})


@exporter("MaxPool", "AvgPool")
def _pool(op, graph, builder):
    _simple(builder, op, {"T": _t(op), "ksize": list(op.attrs["ksize"]),
                          "strides": list(op.attrs["strides"]), "padding": op.attrs["padding"],
                          "data_format": "NHWC"})


@exporter("VarHandleOp")
def _var_handle(op, graph, builder):
    _simple(builder, op, {"dtype": op.attrs["dtype"], "shape": TensorShape(op.attrs["shape"]),
                          "container": "", "shared_name": op.name})


@exporter("ReadVariableOp", "AssignVariableOp")
def _variable_access(op, graph, builder):
    dtype = op.attrs.get("dtype") or (op.inputs[1].dtype if len(op.inputs) > 1 else None)
    _simple(builder, op, {"dtype": dtype})


@exporter("NoOp")
def _no_op(op, graph, builder):
    _simple(builder, op, {})


_TYPED_INPUTS = {"Reshape": {"Tshape": 1}, "Fill": {"index_type": 0}, "Tile": {"Tmultiples": 1},
                 "Slice": {"Index": 1}, "PadV2": {"Tpaddings": 1}, "Cumsum": {"Tidx": 1},
                 "BroadcastTo": {"Tidx": 1}}


def _generic(op: Any, graph: Any, builder: GraphDefBuilder) -> None:
    attrs: Dict[str, Any] = {}
    if op.type in SAME_SIGNATURE:
        if op.inputs:
            value_input = 1 if op.type in ("Select", "SelectV2") else (
                1 if op.type == "Fill" else 0)
            attrs["T"] = op.inputs[value_input].dtype
        for attr, index in _TYPED_INPUTS.get(op.type, {}).items():
            attrs[attr] = op.inputs[index].dtype
        if op.type == "AddN":
            attrs["N"] = len(op.inputs)
        if op.type in ("Equal", "NotEqual"):
            attrs["incompatible_shape_error"] = True
        if op.type == "LeakyRelu":
            attrs["alpha"] = float(op.attrs.get("alpha", 0.2))
    else:
        attrs = {k: v for k, v in sorted(op.attrs.items()) if _attr(v) is not None}
        if op.inputs and "T" not in attrs:
            attrs["T"] = op.inputs[0].dtype
    _simple(builder, op, attrs)


def graph_to_graph_def(graph: Any, add_shapes: bool = False) -> Any:
    """The GraphDef of every op of `graph`, in creation order; the dg.functions its call
    ops call go to the GraphDef's function library."""
    from .function_export import CALL_OPS, CalledFunctions, call_node, function_def
    builder = GraphDefBuilder()
    called = CalledFunctions()
    for op in graph.get_operations():
        if op.type in CALL_OPS:
            call_node(op, builder, called)
        else:
            EXPORTERS.get(op.type, _generic)(op, graph, builder)
        if add_shapes and op.outputs:
            node = builder.graph_def.node[-1] if builder.graph_def.node[-1].name == op.name \
                else next(n for n in builder.graph_def.node if n.name == op.name)
            shapes = proto("attr_value_pb2").AttrValue.ListValue(
                shape=[shape_to_proto(t.shape) for t in op.outputs])
            node.attr["_output_shapes"].CopyFrom(proto("attr_value_pb2").AttrValue(list=shapes))
    while called.pending:  # a worklist: functions calling functions never recurse
        graph_function, name = called.pending.pop()
        builder.graph_def.library.function.append(
            function_def(graph_function, name, called=called)[0])
    return builder.graph_def


def extract_sub_graph(graph_def: Any, dest_nodes: List[str]) -> Any:
    """The nodes `dest_nodes` need (data and control inputs), in their original order."""
    by_name = {node.name: node for node in graph_def.node}
    for name in dest_nodes:
        if name not in by_name:
            raise AssertionError(f"{name} is not in graph")
    keep = set()
    stack = list(dest_nodes)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        for text in by_name[name].input:
            source = text[1:] if text.startswith("^") else text.split(":")[0]
            stack.append(source)
    out = proto("graph_pb2").GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    out.node.extend(node for node in graph_def.node if node.name in keep)
    return out

