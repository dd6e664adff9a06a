"""A duograd Graph as TensorFlow's GraphDef protobuf, for TensorBoard's graph dashboard.

Each Operation becomes a NodeDef: its name (name scopes are the "/" parts
TensorBoard groups by), op type, inputs ("op", "op:1", "^control"), and the
attrs a protobuf can hold (dtypes, shapes, numbers, strings, small constant
values); `_output_shapes` labels the edges with shapes. Python objects in
attrs (variables, writers, traced functions) are left out.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...framework import dtypes
from ...framework.tensor_shape import TensorShape
from .tensorboard_support import tb

# Const values up to this many elements are embedded (TensorBoard shows them).
MAX_EMBEDDED_ELEMENTS = 16

_TYPE_ENUMS = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE",
               "int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64",
               "uint8": "DT_UINT8", "uint16": "DT_UINT16", "uint32": "DT_UINT32",
               "uint64": "DT_UINT64", "bfloat16": "DT_BFLOAT16", "bool": "DT_BOOL", "complex64": "DT_COMPLEX64",
               "complex128": "DT_COMPLEX128", "string": "DT_STRING", "resource": "DT_RESOURCE",
               "variant": "DT_VARIANT"}


def _type_enum(dtype: dtypes.DType) -> int:
    return tb("types_pb2").DataType.Value(_TYPE_ENUMS.get(dtype.name, "DT_INVALID"))


def _shape_proto(shape: Any) -> Any:
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    proto = tb("tensor_shape_pb2").TensorShapeProto()
    if shape.rank is None:
        proto.unknown_rank = True
        return proto
    for dim in shape.dims:
        proto.dim.add(size=-1 if dim is None else int(dim))
    return proto


def _tensor_proto(value: np.ndarray) -> Any:
    value = np.asarray(value)
    if value.size <= MAX_EMBEDDED_ELEMENTS and value.dtype != object:
        return tb("tensor_util").make_tensor_proto(value)
    dtype = dtypes.as_dtype(value.dtype) if value.dtype != object else dtypes.string
    return tb("tensor_pb2").TensorProto(dtype=_type_enum(dtype), tensor_shape=_shape_proto(
        value.shape))


def _attr_value(value: Any) -> Any:
    """The AttrValue for a plain attr, or None for what a GraphDef cannot hold."""
    attr = tb("attr_value_pb2").AttrValue
    if isinstance(value, dtypes.DType):
        return attr(type=_type_enum(value))
    if isinstance(value, TensorShape):
        return attr(shape=_shape_proto(value))
    if isinstance(value, (bool, np.bool_)):
        return attr(b=bool(value))
    if isinstance(value, (int, np.integer)):
        return attr(i=int(value))
    if isinstance(value, (float, np.floating)):
        return attr(f=float(value))
    if isinstance(value, str):
        return attr(s=value.encode())
    if isinstance(value, np.ndarray):
        return attr(tensor=_tensor_proto(value))
    if isinstance(value, (list, tuple)) and value and \
            all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        return attr(list=attr.ListValue(i=[int(v) for v in value]))
    return None


def _input_name(tensor: Any) -> str:
    return tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"


def graph_to_graph_def(graph: Any) -> Any:
    """The GraphDef of every op in `graph` (a dg.Graph or FuncGraph)."""
    graph_def = tb("graph_pb2").GraphDef()
    for op in graph.get_operations():
        node = graph_def.node.add(name=op.name, op=op.type, device=op.device or "")
        node.input.extend(_input_name(t) for t in op.inputs)
        node.input.extend("^" + c.name for c in op.control_inputs)
        for key, value in sorted(op.attrs.items()):
            proto = _attr_value(value)
            if proto is not None:
                node.attr[key].CopyFrom(proto)
        if op.outputs:
            if "T" not in node.attr and "dtype" not in node.attr:
                node.attr["T"].CopyFrom(_attr_value(op.outputs[0].dtype))
            shapes = tb("attr_value_pb2").AttrValue.ListValue(
                shape=[_shape_proto(t.shape) for t in op.outputs])
            node.attr["_output_shapes"].CopyFrom(tb("attr_value_pb2").AttrValue(list=shapes))
    return graph_def
